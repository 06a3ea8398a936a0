import type { Readiness } from '../app';
import type { StellarClient } from '../clients/stellar.client';
import type { Database } from '../db/client';
import type { Treasury, TreasuryReading } from '../ledger/treasury';

/**
 * /readyz: ready when the database answers and Horizon is reachable; a distribution account
 * running low on XLM is a warning (the service still works), not unreadiness.
 */
export function readinessProbe(db: Database, ledger: StellarClient, treasury: Treasury): () => Promise<Readiness> {
  return async () => {
    await db.execute('select 1');
    if (!(await ledger.isReachable())) return { ready: false };
    const funds = await treasury.read();
    return { ready: true, warnings: funds?.low ? [lowFundsWarning(funds)] : [] };
  };
}

function lowFundsWarning(funds: TreasuryReading): string {
  return `The distribution account's XLM covers ${funds.signupsLeft} more wallets, fewer than MIN_SIGNUPS_LEFT: top it up`;
}
