import fs from 'node:fs';

/** Stops the run's embedded server and removes its directory (see global-setup.ts). */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis.walletTestRun;
  if (!run) return;
  globalThis.walletTestRun = undefined;
  await run.server.stop();
  fs.rmSync(run.dataDir, { recursive: true, force: true });
}
