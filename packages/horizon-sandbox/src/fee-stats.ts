import type { StoredTransaction } from './ledger-history';
import type { LedgerHeader } from './ledger-state';

const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

type Distribution = Record<'max' | 'min' | 'mode' | `p${(typeof PERCENTILES)[number]}`, string>;

/**
 * Horizon's /fee_stats, computed the way its query does: per-operation fees (integer division; a fee
 * bump bids and pays for its inner operations plus one, with its outer fee) over the transactions of
 * the last 5 ledgers, and the share of those ledgers' capacity their operations used. With no
 * transactions in the window every figure is the last ledger's base fee. `ledgers`: newest first.
 */
export function feeStats(recent: readonly StoredTransaction[], ledgers: readonly LedgerHeader[]) {
  const latest = ledgers[0];
  if (!latest) throw new Error('fee_stats needs at least the genesis ledger');
  const baseFee = BigInt(latest.baseFee);
  const operations = (tx: StoredTransaction) => BigInt(Math.max(1, tx.operationCount + (tx.inner ? 1 : 0)));
  const perOperation = (total: string, tx: StoredTransaction) => BigInt(total) / operations(tx);
  return {
    last_ledger: String(latest.sequence),
    last_ledger_base_fee: latest.baseFee,
    ledger_capacity_usage: capacityUsage(ledgers),
    fee_charged: distribution(recent.map((tx) => perOperation(tx.feeCharged, tx)), baseFee),
    max_fee: distribution(recent.map((tx) => perOperation(tx.maxFee, tx)), baseFee),
  };
}

/**
 * Operations of the window's transactions (failed ones too; a fee bump's inner operations) over the
 * sum of its ledgers' limits, to 2 decimals rounded half up as Postgres ROUND does. Exact: bigint.
 */
function capacityUsage(ledgers: readonly LedgerHeader[]): string {
  const used = ledgers.reduce((sum, ledger) => sum + BigInt(ledger.txSetOperationCount), 0n);
  const capacity = ledgers.reduce((sum, ledger) => sum + BigInt(ledger.maxTxSetSize), 0n);
  // a sandbox without a limit is never full
  if (capacity === 0n) return '0.00';
  const hundredths = (used * 200n + capacity) / (2n * capacity);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

function distribution(values: bigint[], fallback: bigint): Distribution {
  const sorted = values.length > 0 ? [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : [fallback];
  const at = (percentile: number) => {
    // percentile_disc: the first value whose cumulative share reaches the percentile (nearest rank)
    const rank = Math.max(1, Math.ceil((percentile * sorted.length) / 100));
    return String(sorted[rank - 1] ?? fallback);
  };
  const result: Partial<Distribution> = {
    max: String(sorted[sorted.length - 1] ?? fallback),
    min: String(sorted[0] ?? fallback),
    mode: String(mode(sorted, fallback)),
  };
  for (const percentile of PERCENTILES) result[`p${percentile}`] = at(percentile);
  return result as Distribution;
}

/** The most frequent value; among equally frequent ones the smallest, as Postgres' mode() over sorted input. */
function mode(sorted: bigint[], fallback: bigint): bigint {
  let best = sorted[0] ?? fallback;
  let bestCount = 0;
  let run = 0;
  sorted.forEach((value, index) => {
    run = index > 0 && sorted[index - 1] === value ? run + 1 : 1;
    if (run > bestCount) {
      best = value;
      bestCount = run;
    }
  });
  return best;
}
