import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/env';
import { openDatabase } from '../db/client';
import { AdminLogRepository } from '../db/repositories/admin-log.repository';
import { SEALED_TABLES, WalletKeyRepository } from '../db/repositories/wallet-key.repository';
import { createLogger } from '../logger';
import { WalletCipher } from '../security/wallet-cipher';
import { KeyRotationService, type RotationReport } from '../services/key-rotation.service';
import { errorReason } from '../errors/loggable-error';

/**
 * `npm run wallet:rotate-key [-- --batch-size N]`: re-encrypts every wallet, archived wallet and
 * system account secret, and every admin's TOTP secret (admin MFA), sealed under an older key with
 * the current WALLET_ENCRYPTION_KEY.
 *
 * 1. Configure the service with the new key as WALLET_ENCRYPTION_KEY and the old one in
 *    WALLET_ENCRYPTION_KEY_PREVIOUS, and restart it: it reads both, seals new wallets with the new one.
 * 2. Run this with the same configuration, while the service keeps serving.
 * 3. When it reports nothing remaining, drop the old key from WALLET_ENCRYPTION_KEY_PREVIOUS.
 *
 * Exit status: 0 all rows are under the current key; 3 some rows remain (unreadable with the
 * configured keys, or written under an old key meanwhile: run again); 1 failure; 2 usage.
 *
 * Only the configuration and the database are built, not the whole container: rotation needs no
 * ledger, provider or mail, and the container would open the embedded sandboxes' state. With the
 * embedded database (no DATABASE_URL) it connects to the server the service runs, or starts it.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'batch-size': { type: 'string' } } });
  const batchSize = values['batch-size'] === undefined ? 100 : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    console.error('usage: npm run wallet:rotate-key [-- --batch-size 1..10000]');
    process.exit(2);
  }
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel === 'silent' ? 'silent' : 'warn' });
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    const cipher = new WalletCipher(config.walletKeys.current, config.walletKeys.previous);
    const rotation = new KeyRotationService(new WalletKeyRepository(database.db), cipher, logger);
    console.log(`current key id ${cipher.currentKeyId}; previous key ids: ${config.walletKeys.previous.map(WalletCipher.keyIdOf).join(', ') || 'none'}`);
    const report = await rotation.rotate({ batchSize });
    for (const line of describe(report)) console.log(line);
    // An operator's action on every wallet's secret: one row in the admin log (no admin account ran it).
    const resealed = Object.fromEntries(SEALED_TABLES.map((table) => [table, report.tables[table].resealed]));
    await new AdminLogRepository(database.db).append({ adminId: null, action: 'keys.rotate', details: { currentKeyId: cipher.currentKeyId, ...resealed } });
    if (Object.values(report.remaining).some((byKey) => Object.keys(byKey).length > 0)) process.exitCode = 3;
  } finally {
    await database.close();
  }
}

function describe(report: RotationReport): string[] {
  const lines = SEALED_TABLES.map((table) => {
    const t = report.tables[table];
    return `${table}: ${t.resealed} re-encrypted, ${t.changedMeanwhile} changed meanwhile, ${t.unreadable} unreadable`;
  });
  const remaining = SEALED_TABLES.flatMap((table) => Object.entries(report.remaining[table]).map(([keyId, n]) => `${table} ${n} under ${keyId}`));
  lines.push(remaining.length === 0 ? 'remaining under other keys: none (the previous key can be removed)' : `remaining under other keys: ${remaining.join('; ')}`);
  return lines;
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `wallet:rotate-key failed: ${errorReason(err)}`);
  process.exit(1);
});
