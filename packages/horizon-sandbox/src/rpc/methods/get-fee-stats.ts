import { FEE_STATS_LEDGERS, type StoredTransaction } from '../../ledger-history';
import type { RpcDependencies } from '../context';
import { noParams, parseParams } from '../params';

const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

/**
 * getFeeStats over the transactions Horizon's /fee_stats describes (those of the last 5 ingested
 * ledgers), computed as stellar-rpc's fee window does: the fee charged per operation (integer
 * division by the transaction's own operations, a fee bump's inner ones), nearest-rank percentiles,
 * and all zeros when there is no transaction. The sandbox runs no Soroban: that window is empty.
 */
export function getFeeStats(params: unknown, { readSides }: RpcDependencies) {
  parseParams(params, noParams);
  const view = readSides.view();
  const ledgerCount = Math.min(FEE_STATS_LEDGERS, view.latest.sequence);
  const fees = view.recentTransactions().map(feePerOperation);
  return {
    sorobanInclusionFee: distribution([], 0),
    inclusionFee: distribution(fees, ledgerCount),
    latestLedger: view.latest.sequence,
  };
}

const feePerOperation = (tx: StoredTransaction) => BigInt(tx.feeCharged) / BigInt(Math.max(1, tx.operationCount));

function distribution(fees: bigint[], ledgerCount: number) {
  const sorted = [...fees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const at = (index: number) => String(sorted[index] ?? 0n);
  const percentiles = Object.fromEntries(
    PERCENTILES.map((p) => [`p${p}`, sorted.length === 0 ? '0' : at(Math.ceil((p * sorted.length) / 100) - 1)]),
  );
  return {
    max: sorted.length === 0 ? '0' : at(sorted.length - 1),
    min: at(0),
    mode: String(mode(sorted)),
    ...percentiles,
    transactionCount: String(sorted.length),
    ledgerCount: sorted.length === 0 ? 0 : ledgerCount,
  };
}

/** The most repeated fee, the smallest among equals (stellar-rpc's computeFeeDistribution). */
function mode(sorted: bigint[]): bigint {
  let best = sorted[0] ?? 0n;
  let bestRun = 0;
  let run = 0;
  sorted.forEach((fee, index) => {
    run = index > 0 && sorted[index - 1] === fee ? run + 1 : 1;
    if (run > bestRun) {
      best = fee;
      bestRun = run;
    }
  });
  return best;
}
