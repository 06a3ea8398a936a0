import type { LedgerReadView } from '../ledger-read-view';
import type { LedgerHeader } from '../ledger-state';

/** stellar-rpc's default HISTORY_RETENTION_WINDOW: 7 days of 5 s ledgers. */
export const DEFAULT_RETENTION_LEDGERS = 120_960;

/** The first ledger a sandbox has: its genesis. */
const FIRST_LEDGER = 1;

export interface LedgerRange {
  latest: LedgerHeader;
  oldest: LedgerHeader;
}

/**
 * The ledgers an RPC instance still answers for: its latest ingested ledger and the `retention - 1`
 * before it. History older than that may still be stored, but RPC acts as if it were gone.
 */
export function ledgerRange(view: LedgerReadView, retentionLedgers: number): LedgerRange {
  const latest = view.latest;
  const oldestSequence = Math.max(FIRST_LEDGER, latest.sequence - retentionLedgers + 1);
  return { latest, oldest: view.ledger(oldestSequence) ?? latest };
}

/** The four retention fields of getTransaction and getEvents; close times are strings of unix seconds. */
export function retentionFields({ latest, oldest }: LedgerRange) {
  return {
    latestLedger: latest.sequence,
    latestLedgerCloseTime: String(latest.closedAt),
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTime: String(oldest.closedAt),
  };
}
