import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface DevSecrets {
  jwtSecret: string;
  walletEncryptionKey: string;
}

/**
 * Development secrets are generated once and kept in DATA_DIR so that tokens and encrypted
 * wallets survive a restart. Production never reaches this (config refuses it).
 */
export function loadOrCreateDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, 'secrets.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets;
  fs.mkdirSync(dataDir, { recursive: true });
  const secrets: DevSecrets = {
    jwtSecret: crypto.randomBytes(48).toString('base64url'),
    walletEncryptionKey: crypto.randomBytes(32).toString('base64'),
  };
  // wx: two processes starting together must not overwrite each other's freshly made secrets.
  try {
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets;
  }
  return secrets;
}
