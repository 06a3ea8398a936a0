import { openDatabase } from '../../src/db/client';

/**
 * A separate process that opens DATA_DIR's embedded database (argv[2]) and holds it until it is
 * killed: the service in miniature, for tests that kill it with SIGKILL.
 */
async function main(): Promise<void> {
  await openDatabase({ dataDir: process.argv[2]!, poolSize: 1 });
  process.stdout.write('ready\n');
  setInterval(() => undefined, 60_000);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
