import type { LedgerReadView } from './ledger-read-view';

/** The history a Horizon read side holds: its newest ledger and its oldest (history_elder_ledger). */
export interface HistoryBounds {
  latestLedger: number;
  elderLedger: number;
}

/**
 * Horizon's HISTORY_RETENTION_COUNT: it keeps the last `retentionLedgers` ledgers of history and
 * reaps older ones (undefined: it keeps everything from genesis). As with RPC's window, the history
 * itself stays stored; Horizon's answers act as if it were gone.
 */
export function historyBounds(view: LedgerReadView, retentionLedgers: number | undefined): HistoryBounds {
  const latestLedger = view.latest.sequence;
  const elderLedger = retentionLedgers === undefined ? 1 : Math.max(1, latestLedger - retentionLedgers + 1);
  return { latestLedger, elderLedger };
}
