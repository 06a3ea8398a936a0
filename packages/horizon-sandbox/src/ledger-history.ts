import type { LedgerHeader } from './ledger-state';

/** Horizon's result_codes object, kept with a failed transaction so a resubmission reports it again. */
export interface ResultCodes {
  transaction: string;
  operations?: string[];
  inner_transaction?: { transaction: string; operations?: string[] };
}

/** Horizon's transaction preconditions, already in its JSON shape. */
export interface TransactionPreconditions {
  timebounds?: { min_time: string; max_time?: string };
  ledgerbounds?: { min_ledger: number; max_ledger: number };
  min_account_sequence?: string;
  min_account_sequence_age?: string;
  min_account_sequence_ledger_gap?: number;
}

/** A transaction that made it into a ledger (successful, or failed with its fee charged). Plain JSON. */
export interface StoredTransaction {
  hash: string;
  pagingToken: string;
  ledger: number;
  createdAt: number;
  successful: boolean;
  sourceAccount: string;
  sourceAccountSequence: string;
  feeAccount: string;
  feeCharged: string;
  maxFee: string;
  operationCount: number;
  envelopeXdr: string;
  resultXdr: string;
  resultMetaXdr: string;
  feeMetaXdr: string;
  memoType: string;
  memo?: string;
  memoBytes?: string;
  signatures: string[];
  preconditions?: TransactionPreconditions;
  feeBump?: { hash: string; signatures: string[] };
  inner?: { hash: string; signatures: string[]; maxFee: string };
  resultCodes: ResultCodes;
}

export type AssetRef =
  | { type: 'native' }
  | { type: 'credit_alphanum4' | 'credit_alphanum12'; code: string; issuer: string };

interface StoredOperationBase {
  id: string;
  transactionHash: string;
  ledger: number;
  createdAt: number;
  sourceAccount: string;
}

/** The operations Horizon lists under /accounts/:id/payments (of successful transactions). */
export type StoredPayment = StoredOperationBase &
  (
    | { type: 'create_account'; account: string; funder: string; startingBalance: string }
    | { type: 'payment'; from: string; to: string; asset: AssetRef; amount: string; toMuxedId?: string }
    /**
     * A path payment that crossed no offer: `amount` of `asset` left `from` and reached `to` (the
     * sandbox has no order book, so only those succeed).
     */
    | {
        type: 'path_payment_strict_receive' | 'path_payment_strict_send';
        from: string;
        to: string;
        asset: AssetRef;
        amount: string;
        toMuxedId?: string;
      }
    /** `account` was merged into `into`; the amount moved is in the result XDR, as on Horizon. */
    | { type: 'account_merge'; account: string; into: string; toMuxedId?: string }
  );

export interface PageQuery {
  order: 'asc' | 'desc';
  limit: number;
  /** A paging token: records strictly after it (asc) or strictly before it (desc). */
  cursor?: bigint;
  /** The oldest paging token history still holds (Horizon's retention): older records are gone. */
  floor?: bigint;
}

export interface ClosedLedger {
  header: LedgerHeader;
  transactions: StoredTransaction[];
  payments: StoredPayment[];
}

/** Horizon's /fee_stats looks at the transactions of the last 5 ledgers. */
export const FEE_STATS_LEDGERS = 5;

/** Append-only record of closed ledgers with the indexes the read routes need. */
export class LedgerHistory {
  private readonly transactionsByHash = new Map<string, StoredTransaction>();
  private readonly ledgerList: LedgerHeader[] = [];
  private readonly ledgersBySequence = new Map<number, LedgerHeader>();
  private readonly paymentsByAccount = new Map<string, StoredPayment[]>();
  /** Only ledgers that hold transactions; the records are the ones indexed by hash, not copies. */
  private readonly transactionsByLedger = new Map<number, StoredTransaction[]>();
  /** Only ledgers that hold payments, in the order their operations applied. */
  private readonly paymentsByLedger = new Map<number, StoredPayment[]>();
  /** The sequences of the ledgers that hold transactions, ascending: what a walk over operations visits. */
  private readonly ledgersWithTransactions: number[] = [];

  addLedger(header: LedgerHeader, transactions: StoredTransaction[], payments: StoredPayment[]): void {
    this.ledgerList.push(header);
    this.ledgersBySequence.set(header.sequence, header);
    for (const tx of transactions) {
      this.transactionsByHash.set(tx.hash, tx);
      // Horizon answers a fee bump under its inner hash too.
      if (tx.inner) this.transactionsByHash.set(tx.inner.hash, tx);
    }
    if (transactions.length > 0) {
      this.transactionsByLedger.set(header.sequence, transactions);
      this.ledgersWithTransactions.push(header.sequence);
    }
    if (payments.length > 0) this.paymentsByLedger.set(header.sequence, payments);
    for (const payment of payments) {
      const parties = paymentParties(payment);
      for (const account of new Set(parties)) {
        let list = this.paymentsByAccount.get(account);
        if (!list) this.paymentsByAccount.set(account, (list = []));
        list.push(payment);
      }
    }
  }

  transaction(hash: string): StoredTransaction | undefined {
    return this.transactionsByHash.get(hash);
  }

  ledger(sequence: number): LedgerHeader | undefined {
    return this.ledgersBySequence.get(sequence);
  }

  /** A closed ledger with its transactions (application order) and payments (operation order). */
  closedLedger(sequence: number): ClosedLedger | undefined {
    const header = this.ledgersBySequence.get(sequence);
    if (!header) return undefined;
    return {
      header,
      transactions: this.transactionsByLedger.get(sequence) ?? [],
      payments: this.paymentsByLedger.get(sequence) ?? [],
    };
  }

  /** The transactions of one ledger, in application order (empty for an empty or unknown ledger). */
  transactionsIn(sequence: number): readonly StoredTransaction[] {
    return this.transactionsByLedger.get(sequence) ?? [];
  }

  /**
   * The ledgers holding transactions from `from` on, oldest first (asc), or from `from` back, newest
   * first (desc), never past `upToLedger`.
   */
  *ledgersWithTransactionsFrom(from: number, order: 'asc' | 'desc', upToLedger = Number.MAX_SAFE_INTEGER): Generator<number> {
    const list = this.ledgersWithTransactions;
    const firstAbove = (bound: number) => firstIndexAbove(list, (sequence) => BigInt(sequence), BigInt(bound));
    if (order === 'asc') {
      for (let index = firstAbove(from - 1); index < list.length && (list[index] as number) <= upToLedger; index++) yield list[index] as number;
      return;
    }
    for (let index = firstAbove(Math.min(from, upToLedger)) - 1; index >= 0; index--) yield list[index] as number;
  }

  /** `upToLedger` leaves out newer ledgers, for a read side that has not ingested them yet. */
  ledgers(query: PageQuery, upToLedger?: number): LedgerHeader[] {
    return page(this.ledgerList, (ledger) => BigInt(ledger.sequence) << 32n, query, lastTokenOf(upToLedger));
  }

  paymentsFor(account: string, query: PageQuery, upToLedger?: number): StoredPayment[] {
    return page(this.paymentsByAccount.get(account) ?? [], (payment) => BigInt(payment.id), query, lastTokenOf(upToLedger));
  }

  /** The transactions of the FEE_STATS_LEDGERS ledgers up to `upToLedger` (default: the latest), oldest first. */
  recentTransactions(upToLedger = this.ledgerList.at(-1)?.sequence ?? 0): StoredTransaction[] {
    const recent: StoredTransaction[] = [];
    for (let sequence = upToLedger - FEE_STATS_LEDGERS + 1; sequence <= upToLedger; sequence++) {
      recent.push(...(this.transactionsByLedger.get(sequence) ?? []));
    }
    return recent;
  }
}

/** The accounts whose /payments list shows the record. */
function paymentParties(payment: StoredPayment): string[] {
  switch (payment.type) {
    case 'create_account':
      return [payment.funder, payment.account];
    case 'payment':
    case 'path_payment_strict_receive':
    case 'path_payment_strict_send':
      return [payment.from, payment.to];
    case 'account_merge':
      return [payment.account, payment.into];
  }
}

/** Paging tokens (TOIDs) carry the ledger in their high 32 bits, so a ledger's records all sort below the next one's. */
const lastTokenOf = (ledger: number | undefined): bigint | undefined =>
  ledger === undefined ? undefined : ((BigInt(ledger) + 1n) << 32n) - 1n;

/** Index of the first item of an ascending list whose token is greater than `bound`. Binary search. */
export function firstIndexAbove<T>(items: readonly T[], token: (item: T) => bigint, bound: bigint): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (token(items[mid] as T) <= bound) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * One page of an ascending list, by paging token, in either direction, counting only the items whose
 * token is at most `maxToken` and at least the query's floor. Binary search: no full scans.
 */
function page<T>(items: readonly T[], token: (item: T) => bigint, query: PageQuery, maxToken?: bigint): T[] {
  const { cursor, limit, floor } = query;
  const firstAfter = (bound: bigint) => firstIndexAbove(items, token, bound);
  const visible = maxToken === undefined ? items.length : firstAfter(maxToken);
  const oldest = floor === undefined ? 0 : firstAfter(floor - 1n);
  if (query.order === 'asc') {
    const start = Math.max(cursor === undefined ? 0 : firstAfter(cursor), oldest);
    return items.slice(start, Math.min(start + limit, visible));
  }
  // first index whose token is >= cursor, i.e. everything before it is strictly smaller
  const end = Math.min(cursor === undefined ? items.length : firstAfter(cursor - 1n), visible);
  return items.slice(Math.max(oldest, end - limit), end).reverse();
}
