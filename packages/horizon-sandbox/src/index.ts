import type { Router } from 'express';
import { FaultInjector, type SandboxFaults } from './faults/fault-injector';
import { ReadSides } from './faults/read-sides';
import { LedgerClock } from './ledger-clock';
import { DEFAULT_MAX_TX_SET_SIZE, createGenesisState, type LedgerState } from './ledger-state';
import { LedgerStore } from './ledger-store';
import { createHorizonRouter } from './routes';
import { DEFAULT_RETENTION_LEDGERS } from './rpc/retention';
import { createRpcRouter } from './rpc/routes';
import { SandboxLedger } from './sandbox-ledger';

export const SANDBOX_NETWORK_PASSPHRASE = 'Wallet Sandbox Network ; 2026';
/** stellar-core's default TRANSACTION_QUEUE_TIMEOUT_LEDGERS. */
export const DEFAULT_PENDING_DEPTH = 4;
export { FAULT_MODES, FaultPlanError, type FaultMode, type FaultPlan, type FaultStats } from './faults/fault-plan';
export type { SandboxFaults } from './faults/fault-injector';
export { DEFAULT_RETENTION_LEDGERS } from './rpc/retention';

export interface HorizonSandboxOptions {
  /** Default SANDBOX_NETWORK_PASSPHRASE. Envelopes must be signed for it. */
  networkPassphrase?: string;
  /** Directory for persisted state (e.g. DATA_DIR/ledger); undefined keeps everything in memory. */
  dataDir?: string;
  /** 0 (default) applies each submission at once; N closes a ledger every N ms. */
  ledgerCloseMs?: number;
  /** An empty ledger closes after this long without one, as on Stellar (default 5000; 0 = never). */
  idleCloseMs?: number;
  /**
   * Operations one ledger takes (default 1000, the public network's classic limit; 0 = no limit).
   * With ledgerCloseMs > 0, a ledger that cannot take everything waiting takes the highest bids per
   * operation and charges them all the lowest of those (surge pricing); the rest wait. A transaction
   * with more operations than this never fits, so it waits until it is dropped.
   */
  maxOperationsPerLedger?: number;
  /**
   * Ledgers a transaction may wait for room before core drops it and its submitter gets Horizon's
   * 504 (default 4); the queue holds this many ledgers' worth of operations.
   */
  pendingDepthLedgers?: number;
  /**
   * Ledgers of history Stellar RPC answers for (default 120960, stellar-rpc's): getTransaction and
   * getEvents see nothing older, getHealth reports the window. History itself stays stored.
   */
  retentionLedgers?: number;
  /**
   * Ledgers of history Horizon keeps (its HISTORY_RETENTION_COUNT; default: all of it, from genesis).
   * GET / reports the oldest as history_elder_ledger; pages start there (a descending cursor before
   * it is 410 before_history), and older transactions, operations and ledgers answer 404. History
   * itself stays stored.
   */
  horizonRetentionLedgers?: number;
  /** getNetwork's friendbotUrl: where the Horizon router's /friendbot is served, when the caller knows. */
  friendbotUrl?: string;
  /** Random source for FaultPlan.share, values in [0, 1); default Math.random. Tests pass a fixed sequence. */
  faultRandom?: () => number;
}

export interface HorizonSandbox {
  /** Mountable under any prefix, e.g. app.use('/sandbox/horizon', sandbox.router). */
  router: Router;
  /** Stellar RPC (JSON-RPC 2.0, POST at its root) over the same ledger, e.g. app.use('/sandbox/rpc', sandbox.rpcRouter). */
  rpcRouter: Router;
  /** Makes the sandbox fail submissions as Horizon does on a bad day; see faults/fault-plan.ts. */
  faults: SandboxFaults;
  /** Stops the ledger timer (closing one last ledger for waiting submissions) and flushes state to disk. */
  close(): Promise<void>;
}

/**
 * The embedded stand-in for the Stellar network: a Horizon-compatible HTTP API over an in-process
 * ledger that applies real signed envelopes. Clients reach it with stellar-sdk's Horizon.Server,
 * exactly as they reach Horizon.
 */
export async function createHorizonSandbox(options: HorizonSandboxOptions = {}): Promise<HorizonSandbox> {
  const networkPassphrase = options.networkPassphrase ?? SANDBOX_NETWORK_PASSPHRASE;
  const ledgerCloseMs = options.ledgerCloseMs ?? 0;
  const maxOperationsPerLedger = options.maxOperationsPerLedger ?? DEFAULT_MAX_TX_SET_SIZE;
  const pendingDepthLedgers = options.pendingDepthLedgers ?? DEFAULT_PENDING_DEPTH;
  const retentionLedgers = options.retentionLedgers ?? DEFAULT_RETENTION_LEDGERS;
  const { horizonRetentionLedgers } = options;
  for (const [name, value] of Object.entries({ retentionLedgers, horizonRetentionLedgers: horizonRetentionLedgers ?? 1 })) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  }
  for (const [name, value] of Object.entries({ ledgerCloseMs, maxOperationsPerLedger })) {
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  }
  if (!Number.isInteger(pendingDepthLedgers) || pendingDepthLedgers < 1) {
    throw new Error(`pendingDepthLedgers must be a positive integer, got ${pendingDepthLedgers}`);
  }

  const opened = options.dataDir ? await LedgerStore.open(options.dataDir, networkPassphrase) : undefined;
  const store = opened?.store;
  let state: LedgerState;
  if (opened?.loaded) {
    state = opened.loaded;
  } else {
    state = createGenesisState(networkPassphrase, Math.floor(Date.now() / 1000), maxOperationsPerLedger);
    store?.recordClosedLedger({ header: state.latest, transactions: [], payments: [] });
  }
  store?.attach(state);

  const readSides = new ReadSides(state);
  const ledger = new SandboxLedger(
    state,
    (closed, priorImages) => {
      store?.recordClosedLedger(closed);
      readSides.ledgerClosed(closed.header.sequence, priorImages);
    },
    maxOperationsPerLedger,
  );
  const clock = new LedgerClock(ledger, {
    closeMs: ledgerCloseMs,
    idleCloseMs: options.idleCloseMs ?? 5000,
    maxOperationsPerLedger,
    pendingDepthLedgers,
  });
  const faults = new FaultInjector(() => readSides.release(), options.faultRandom);
  const router = createHorizonRouter({ state, clock, readSides, faults, networkPassphrase, horizonRetentionLedgers });
  const rpcRouter = createRpcRouter({
    state,
    clock,
    readSides,
    faults,
    networkPassphrase,
    retentionLedgers,
    friendbotUrl: options.friendbotUrl,
  });

  let closing: Promise<void> | undefined;
  return {
    router,
    rpcRouter,
    faults,
    close() {
      closing ??= (async () => {
        clock.stop();
        await store?.flush();
      })();
      return closing;
    },
  };
}
