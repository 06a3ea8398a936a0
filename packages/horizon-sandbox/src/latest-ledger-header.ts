import type { Response } from 'express';
import type { LedgerReadView } from './ledger-read-view';

/**
 * Real Horizon names, on every answer (404s included), the latest ledger its database had ingested
 * when it answered. Set from the very view the answer is built from, so the two never disagree.
 */
export function answeringFrom(res: Response, view: LedgerReadView): LedgerReadView {
  res.set('Latest-Ledger', String(view.latest.sequence));
  return view;
}
