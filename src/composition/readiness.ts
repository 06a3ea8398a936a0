import type { Readiness } from '../app';
import type { LedgerApi } from '../clients/ledger-api';
import type { Database } from '../db/client';
import type { HistoryWindow } from '../ledger/history-window';
import type { Treasury, TreasuryReading } from '../ledger/treasury';

/**
 * /readyz: ready when the database answers and the ledger API reports itself healthy. Warnings
 * (the service still works, an operator should act): the distribution account running low on XLM,
 * and envelopes whose ledgers have left the ledger API's history window.
 */
export function readinessProbe(db: Database, ledger: LedgerApi, treasury: Treasury, history: HistoryWindow): () => Promise<Readiness> {
  return async () => {
    await db.execute('select 1');
    if (!(await ledger.health().then(() => true, () => false))) return { ready: false };
    const [funds, window] = await Promise.all([treasury.read(), history.read()]);
    const warnings: string[] = [];
    if (funds?.low) warnings.push(lowFundsWarning(funds));
    if (window && window.envelopesBeyond > 0) {
      warnings.push(
        `${window.envelopesBeyond} submitted envelope(s) could have entered ledgers older than the ledger API's history (from ledger ${window.oldestLedger}): ` +
          'their outcome can no longer be proven; run npm run ledger:audit and settle them by hand',
      );
    }
    return { ready: true, warnings };
  };
}

function lowFundsWarning(funds: TreasuryReading): string {
  return `The distribution account's XLM covers ${funds.signupsLeft} more wallets, fewer than MIN_SIGNUPS_LEFT: top it up`;
}
