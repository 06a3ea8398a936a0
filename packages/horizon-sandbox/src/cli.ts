import express from 'express';
import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { FaultPlanError, parseFaultPlan, type FaultPlan } from './faults/fault-plan';
import { SANDBOX_NETWORK_PASSPHRASE, createHorizonSandbox } from './index';

/**
 * Runs the sandbox ledger on its own, for poking at it with a Stellar client or pointing another
 * service at it:  npm run sandbox:ledger -- --port 8000 [--data-dir DIR] [--close-ms N]
 * Surge pricing (with --close-ms > 0): [--max-ops-per-ledger N (default 1000, 0: no limit)]
 *   [--pending-depth L (ledgers a transaction may wait for room, default 4)]
 * With a fault from the start (POST/DELETE /_sandbox/faults change it later):
 *   --fault MODE [--fault-share 0.3 | --fault-next N] [--lag-ms L] [--slow-ms S]
 * Stellar RPC (JSON-RPC) over the same ledger at /rpc: [--retention-ledgers N (default 120960)]
 * Horizon's own history retention: [--horizon-retention-ledgers N (default: all of it)]
 * It prints its URL first, so a script that starts it with --port 0 can read the port.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8000' },
      'data-dir': { type: 'string' },
      'close-ms': { type: 'string', default: '0' },
      'max-ops-per-ledger': { type: 'string' },
      'pending-depth': { type: 'string' },
      'retention-ledgers': { type: 'string' },
      'horizon-retention-ledgers': { type: 'string' },
      passphrase: { type: 'string', default: SANDBOX_NETWORK_PASSPHRASE },
      fault: { type: 'string' },
      'fault-share': { type: 'string' },
      'fault-next': { type: 'string' },
      'lag-ms': { type: 'string' },
      'slow-ms': { type: 'string' },
    },
  });
  const port = Number(values.port);
  const ledgerCloseMs = Number(values['close-ms']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${values.port}`);
  if (!Number.isInteger(ledgerCloseMs) || ledgerCloseMs < 0) throw new Error(`--close-ms: not a duration: ${values['close-ms']}`);
  const maxOperationsPerLedger = countFlag(values, 'max-ops-per-ledger', 0);
  const pendingDepthLedgers = countFlag(values, 'pending-depth', 1);
  const retentionLedgers = countFlag(values, 'retention-ledgers', 1);
  const horizonRetentionLedgers = countFlag(values, 'horizon-retention-ledgers', 1);

  const fault = faultPlanFrom(values);

  // listen first: getNetwork names friendbot's URL, which needs the port
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(port, () => resolve(listening));
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const root = `http://localhost:${actualPort}`;
  const sandbox = await createHorizonSandbox({
    networkPassphrase: values.passphrase,
    dataDir: values['data-dir'],
    ledgerCloseMs,
    maxOperationsPerLedger,
    pendingDepthLedgers,
    retentionLedgers,
    horizonRetentionLedgers,
    friendbotUrl: `${root}/friendbot`,
  });
  if (fault) sandbox.faults.set(fault);
  app.use('/rpc', sandbox.rpcRouter);
  app.use(sandbox.router);
  console.log(`sandbox ledger (Horizon API) at ${root}/`);
  console.log(`sandbox ledger (Stellar RPC) at ${root}/rpc`);
  console.log(`network passphrase: ${values.passphrase}`);
  console.log(values['data-dir'] ? `state kept in ${values['data-dir']}` : 'state kept in memory only');
  console.log(`faults: ${fault ? JSON.stringify(fault) : 'none'} (switch at /_sandbox/faults)`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: closing the sandbox ledger`);
    server.close();
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** An optional whole-number flag, at least `minimum`; undefined leaves the sandbox's default. */
function countFlag(values: Record<string, string | boolean | undefined>, flag: string, minimum: number): number | undefined {
  const text = values[flag];
  if (typeof text !== 'string') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) throw new Error(`--${flag}: not a whole number >= ${minimum}: ${text}`);
  return value;
}

const FLAGS: Record<string, string> = {
  mode: '--fault',
  share: '--fault-share',
  next: '--fault-next',
  lagMs: '--lag-ms',
  slowMs: '--slow-ms',
};

function faultPlanFrom(values: Record<string, string | boolean | undefined>): FaultPlan | undefined {
  const number = (flag: string) => (typeof values[flag] === 'string' ? Number(values[flag]) : undefined);
  const plan = {
    mode: values.fault,
    share: number('fault-share'),
    next: number('fault-next'),
    lagMs: number('lag-ms'),
    slowMs: number('slow-ms'),
  };
  const given = Object.entries(plan).filter(([, value]) => value !== undefined);
  if (given.length === 0) return undefined;
  try {
    return parseFaultPlan(Object.fromEntries(given));
  } catch (error) {
    if (!(error instanceof FaultPlanError)) throw error;
    // say it in the words of the command line, not of the JSON plan
    const flag = FLAGS[error.field] ?? '--fault';
    throw new Error(`${flag}: ${error.message.replace(`${error.field}: `, '')}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
