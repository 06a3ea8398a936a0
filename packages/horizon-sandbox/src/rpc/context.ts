import type { FaultInjector } from '../faults/fault-injector';
import type { FaultPlan } from '../faults/fault-plan';
import type { ReadSides } from '../faults/read-sides';
import type { LedgerClock } from '../ledger-clock';
import type { LedgerState } from '../ledger-state';

/** What the RPC methods read and write: the same core and read sides as the Horizon routes. */
export interface RpcDependencies {
  state: LedgerState;
  clock: LedgerClock;
  readSides: ReadSides;
  faults: FaultInjector;
  networkPassphrase: string;
  /** Ledgers of history RPC answers for (getTransaction, getEvents, getHealth). */
  retentionLedgers: number;
  /** getNetwork's friendbotUrl, when the sandbox knows where its friendbot is served. */
  friendbotUrl?: string;
}

/** One HTTP exchange: a method that draws a fault (sendTransaction) leaves it here for the answer. */
export interface Exchange {
  fault?: FaultPlan;
}

export type RpcMethod = (params: unknown, dependencies: RpcDependencies, exchange: Exchange) => unknown;
