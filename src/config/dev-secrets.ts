import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface DevSecrets {
  jwtSecret: string;
  walletEncryptionKey: string;
  /** The embedded PostgreSQL server's password (no DATABASE_URL). Absent from files written before it existed. */
  databasePassword?: string;
}

function generate(): Required<DevSecrets> {
  return {
    jwtSecret: crypto.randomBytes(48).toString('base64url'),
    walletEncryptionKey: crypto.randomBytes(32).toString('base64'),
    databasePassword: crypto.randomBytes(24).toString('base64url'),
  };
}

const secretsFile = (dataDir: string) => path.join(dataDir, 'secrets.json');

function read(file: string): DevSecrets | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets) : undefined;
}

/** The secrets kept in DATA_DIR, if any; nothing is generated. */
export function readDevSecrets(dataDir: string): DevSecrets | undefined {
  return read(secretsFile(dataDir));
}

/**
 * Development secrets are generated once and kept in DATA_DIR so that tokens and encrypted
 * wallets survive a restart. Production never reaches this (config refuses it).
 */
export function loadOrCreateDevSecrets(dataDir: string): DevSecrets {
  const file = secretsFile(dataDir);
  const existing = read(file);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true });
  const secrets = generate();
  // Written whole to a file of this process, then linked into place: link refuses an existing
  // name, so two processes starting together never overwrite each other's freshly made secrets,
  // and neither ever reads the other's file half written (as create-then-write allowed).
  const partial = `${file}.${process.pid}.new`;
  fs.writeFileSync(partial, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  try {
    fs.linkSync(partial, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return read(file)!;
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return secrets;
}

/**
 * The embedded server's password, kept with the other generated secrets. A secrets file from
 * before the embedded server gets one added, the other secrets unchanged. Callers hold the
 * embedded server's start lock, so two processes never add different passwords.
 */
export function embeddedDatabasePassword(dataDir: string): string {
  const secrets = loadOrCreateDevSecrets(dataDir);
  if (secrets.databasePassword) return secrets.databasePassword;
  const file = secretsFile(dataDir);
  const updated: DevSecrets = { ...secrets, databasePassword: generate().databasePassword };
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, JSON.stringify(updated, null, 2), { mode: 0o600 });
  fs.renameSync(partial, file);
  return updated.databasePassword!;
}
