import fs from 'node:fs';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import { withFileLock } from '../db/embedded/file-lock';
import { HOST_CONTROL_PATH, HOST_OPTIONS_VARIABLE, SANDBOX_PATHS, hostFiles, hostOptionsSchema } from './host-options';
import { removeHostState, writeHostState } from './host-state';

/**
 * The sandbox host: the embedded stand-ins for the ledger and the payment provider, in a process of
 * their own, so that a ledger close, a state file write or a busy checkout never runs on the
 * service's event loop. Started by the first service process of a DATA_DIR (attach.ts); every
 * service process of that DATA_DIR holds one open request to /_host/attach while it runs, and the
 * host leaves once none has been attached for idleExitMs. Its lifetime is its attachments', not its
 * starter's: a second `npm start`, a cluster's workers, or a restart after a kill all find it.
 */
async function main(): Promise<void> {
  const parsed = hostOptionsSchema.safeParse(JSON.parse(process.env[HOST_OPTIONS_VARIABLE] ?? 'null'));
  if (!parsed.success) {
    console.error(`sandbox host: ${HOST_OPTIONS_VARIABLE} is not valid: ${parsed.error.message}`);
    process.exit(2);
  }
  const options = parsed.data;
  delete process.env[HOST_OPTIONS_VARIABLE];
  const files = hostFiles(options.dataDir);

  const app = express();
  app.disable('x-powered-by');
  const server = await listen(app, options.preferredPort);
  const root = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const closers: Array<() => Promise<void>> = [];
  if (options.ledger) {
    const { createHorizonSandbox } = await import('@wallet/horizon-sandbox');
    const ledger = await createHorizonSandbox({
      networkPassphrase: options.ledger.networkPassphrase,
      dataDir: `${options.dataDir}/ledger`,
      ledgerCloseMs: options.ledger.ledgerCloseMs,
      maxOperationsPerLedger: options.ledger.maxOperationsPerLedger,
      friendbotUrl: `${root}${SANDBOX_PATHS.horizon}/friendbot`,
    });
    app.use(SANDBOX_PATHS.horizon, ledger.router);
    app.use(SANDBOX_PATHS.rpc, ledger.rpcRouter);
    closers.push(() => ledger.close());
  }
  if (options.paystack) {
    const { createPaystackSandbox } = await import('@wallet/paystack-sandbox');
    const paystack = await createPaystackSandbox({ ...options.paystack, dataDir: `${options.dataDir}/paystack` });
    app.use(SANDBOX_PATHS.paystack, paystack.router);
    closers.push(() => paystack.close());
  }

  const attachments = new Attachments(options.idleExitMs, () => leaveIfIdle());
  app.get(`${HOST_CONTROL_PATH}/attach`, (req, res) => {
    attachments.add();
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
    res.write('attached\n');
    req.socket.setKeepAlive(true);
    res.on('close', () => attachments.remove());
  });
  app.get(`${HOST_CONTROL_PATH}/health`, (_req, res) => {
    res.json({ pid: process.pid, attached: attachments.count });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
  app.use(((_err, _req, res, _next) => {
    if (res.headersSent) res.destroy();
    else res.status(500).json({ error: 'Internal error' });
  }) as ErrorRequestHandler);

  writeHostState(files.state, { pid: process.pid, port: (server.address() as { port: number }).port });
  console.log(`${new Date().toISOString()} sandbox host ${process.pid} at ${root} for ${options.dataDir}`);

  // Leaving happens under the start lock, files flushed before it is released: a service process
  // attaching takes the same lock, so it either attaches before this looks (and the host stays) or
  // starts the next host only once this one no longer writes to DATA_DIR.
  let leaving = false;
  const leave = (why: string, onlyIfIdle: boolean) =>
    withFileLock(files.lock, 120_000, async () => {
      if (leaving || (onlyIfIdle && attachments.count > 0)) return false;
      leaving = true;
      console.log(`${new Date().toISOString()} sandbox host ${process.pid} leaving: ${why}`);
      removeHostState(files.state, process.pid);
      server.close();
      server.closeAllConnections();
      for (const close of closers) await close().catch((err: unknown) => console.error('closing a sandbox:', err));
      return true;
    });
  const exitAfter = (left: Promise<boolean>) =>
    left.then(
      (gone) => gone && process.exit(0),
      (err: unknown) => {
        console.error('sandbox host: could not leave cleanly:', err);
        process.exit(1);
      },
    );
  async function leaveIfIdle(): Promise<void> {
    // A DATA_DIR removed under it (a test's or a bench's temporary one) has nothing left to own or lock.
    if (!fs.existsSync(options.dataDir)) process.exit(0);
    if (await leave(`no service process attached for ${options.idleExitMs} ms`, true)) process.exit(0);
  }
  process.on('SIGTERM', () => void exitAfter(leave('SIGTERM', false)));
  process.on('SIGINT', () => void exitAfter(leave('SIGINT', false)));
  attachments.startIdleTimer();
}

/** Counts the service processes attached, and calls onIdle once none has been for idleMs. */
class Attachments {
  count = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => Promise<void>,
  ) {}
  add(): void {
    this.count += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
  remove(): void {
    this.count -= 1;
    if (this.count === 0) this.startIdleTimer();
  }
  startIdleTimer(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.onIdle().catch((err: unknown) => {
        console.error('sandbox host: could not leave:', err);
        this.startIdleTimer();
      });
    }, this.idleMs);
  }
}

/** On the port the host had before when it is free (attached processes' clients name it), else any. */
async function listen(app: express.Express, preferredPort: number | undefined): Promise<Server> {
  const on = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = app.listen(port, '127.0.0.1');
      server.once('listening', () => resolve(server));
      server.once('error', reject);
    });
  if (preferredPort) {
    try {
      return await on(preferredPort);
    } catch {
      // taken: another port, and the processes that named the old one are told by attach.ts
    }
  }
  return on(0);
}

main().catch((err: unknown) => {
  console.error('sandbox host failed to start:', err);
  process.exit(1);
});
