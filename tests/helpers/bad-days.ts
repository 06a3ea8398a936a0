import type { FaultPlan } from '@wallet/horizon-sandbox';

/**
 * The ledger API's bad days, as the sandbox's fault layer plays them, shared by the fault suites
 * that run every write kind through them (journal-faults, clawback-faults).
 */

const LAG_MS = 1500;
const SPLIT_MS = 4000;

export interface BadDay {
  name: string;
  plan: FaultPlan;
  /** The ledger applied the envelope before the answer went wrong (only the outcome is unclear). */
  applied: boolean;
}

export const BAD_DAYS: BadDay[] = [
  { name: '504 after applying', plan: { mode: 'apply-then-504', next: 2 }, applied: true },
  { name: 'connection reset after applying', plan: { mode: 'apply-then-reset', next: 2 }, applied: true },
  { name: '502 with an HTML body after applying', plan: { mode: 'apply-then-502', next: 2 }, applied: true },
  { name: 'ingestion lag', plan: { mode: 'lag', lagMs: LAG_MS, next: 2 }, applied: true },
  { name: '504 while ingestion lags', plan: { mode: 'lag-then-504', lagMs: LAG_MS, next: 2 }, applied: true },
  { name: '503 without applying', plan: { mode: 'refuse-503', next: 2 }, applied: false },
  { name: 'an answer slower than the submit timeout', plan: { mode: 'slow', slowMs: 1500, next: 2 }, applied: false },
  { name: 'TRY_AGAIN_LATER without applying', plan: { mode: 'try-again-later', next: 2 }, applied: false },
  // The wallet's owner holds its key: another client used the account's next sequence number first.
  { name: 'tx_bad_seq without applying', plan: { mode: 'bad-seq', next: 2 }, applied: false },
  // Instances behind one URL at different ledgers: for SPLIT_MS after the ledger that applied it,
  // lookups by hash reach an instance a ledger behind, every other read one that has it.
  { name: 'a split view, 504 after applying', plan: { mode: 'split-then-504', lagMs: SPLIT_MS, next: 2 }, applied: true },
  { name: 'a split view, answered', plan: { mode: 'split', lagMs: SPLIT_MS, next: 2 }, applied: false },
];

/** Short deadlines, so unclear answers happen and the reconciler takes over within a test. */
export const FAST_JOURNAL = {
  LEDGER_SUBMIT_TIMEOUT_MS: '600',
  LEDGER_SETTLE_BASE_MS: '50',
  LEDGER_ANSWER_WAIT_MS: '1500',
  LEDGER_LEASE_MS: '1500',
  LEDGER_RECHECK_MS: '200',
  RECONCILE_INTERVAL_MS: '250',
  WEBHOOK_RETRY_BASE_MS: '200',
  LEDGER_CHANNELS: '2',
  LEDGER_TX_TIMEOUT_LEDGERS: '4',
};
