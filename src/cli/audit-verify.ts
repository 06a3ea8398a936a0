import { loadConfig, ConfigError } from '../config/env';
import { openDatabase } from '../db/client';
import { AdminLogRepository } from '../db/repositories/admin-log.repository';
import { ChainWalk } from '../domain/admin-log';
import { errorReason } from '../errors/loggable-error';

/**
 * `npm run audit:verify`: walks the admin log's hash chain from its first row (src/domain/admin-log.ts)
 * and names the first row that does not fit: one edited, deleted, inserted or swapped directly in
 * the database. Prints the head's hash when the chain holds: keep it somewhere else (a ticket, a
 * chat, a log shipper), so a history rewritten from some row on no longer ends at a head anyone saw.
 *
 * Exit status: 0 the chain holds; 4 it is broken; 1 failure. Like the key rotation, it builds only
 * the configuration and the database, not the service.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    const walk = new ChainWalk();
    for await (const rows of new AdminLogRepository(database.db).inOrder()) walk.next(rows);
    const verdict = walk.verdict();
    if (verdict.ok) {
      console.log(`admin log: ${verdict.rows} rows, the chain holds; head ${verdict.head}`);
    } else {
      console.log(`admin log: broken at row seq ${verdict.seq}: ${verdict.problem} (${verdict.rows - 1} rows before it fit)`);
      process.exitCode = 4;
    }
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `audit:verify failed: ${errorReason(err)}`);
  process.exit(1);
});
