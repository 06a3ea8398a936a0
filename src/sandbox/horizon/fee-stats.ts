import type { StoredTransaction } from './ledger-history';
import { BASE_FEE } from './ledger-rules';

const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

type Distribution = Record<'max' | 'min' | 'mode' | `p${(typeof PERCENTILES)[number]}`, string>;

/**
 * Horizon's /fee_stats: per-operation fee distributions over recent transactions. The sandbox never
 * has surge pricing, so what is charged is always the base fee; max_fee shows what clients offered.
 */
export function feeStats(recent: readonly StoredTransaction[], latestLedger: number) {
  const perOperation = (total: string, tx: StoredTransaction) => BigInt(total) / BigInt(Math.max(1, tx.operationCount));
  return {
    last_ledger: String(latestLedger),
    last_ledger_base_fee: BASE_FEE.toString(),
    ledger_capacity_usage: '0.00',
    fee_charged: distribution(recent.map((tx) => perOperation(tx.feeCharged, tx))),
    max_fee: distribution(recent.map((tx) => perOperation(tx.maxFee, tx))),
  };
}

function distribution(values: bigint[]): Distribution {
  const sorted = values.length > 0 ? [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : [BASE_FEE];
  const at = (percentile: number) => {
    // nearest-rank percentile
    const rank = Math.max(1, Math.ceil((percentile / 100) * sorted.length));
    return String(sorted[rank - 1] ?? BASE_FEE);
  };
  const result: Partial<Distribution> = {
    max: String(sorted[sorted.length - 1] ?? BASE_FEE),
    min: String(sorted[0] ?? BASE_FEE),
    mode: String(mode(sorted)),
  };
  for (const percentile of PERCENTILES) result[`p${percentile}`] = at(percentile);
  return result as Distribution;
}

function mode(sorted: bigint[]): bigint {
  let best = sorted[0] ?? BASE_FEE;
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
