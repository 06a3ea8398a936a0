import { firstIndexAbove, type LedgerHistory, type PageQuery, type StoredTransaction } from './ledger-history';
import { operationsOf, type OperationRecord } from './operation-records';

export interface OperationQuery extends PageQuery {
  /** Horizon's include_failed: also the operations of transactions that failed (fee charged, nothing applied). */
  includeFailed: boolean;
  /** Only the operations this G account takes part in (Horizon's operation participants). */
  account?: string;
}

/** A place in an account's list: the operation's token, its transaction and its index there. */
interface Participation {
  token: bigint;
  transaction: StoredTransaction;
  index: number;
}

/** Decoded transactions kept for the next pages; a follower reads the same few again and again. */
const CACHED_TRANSACTIONS = 2000;

const NO_CURSOR_DESC = 1n << 63n;

/**
 * Horizon's operations over the ledger's history, in TOID order: all of them (GET /operations) or
 * an account's (GET /accounts/:id/operations), one page at a time, without copying the history.
 * The whole list is walked ledger by ledger from the cursor; an account's comes from an index of
 * participants built on first use and brought up to date at each read.
 */
export class OperationHistory {
  private readonly decoded = new Map<StoredTransaction, OperationRecord[]>();
  private readonly byAccount = new Map<string, Participation[]>();
  /** The newest ledger the account index covers. */
  private indexedThrough = 0;

  constructor(
    private readonly history: LedgerHistory,
    private readonly networkPassphrase: string,
  ) {}

  /** A page as a read side that has ingested up to `upToLedger` (default: everything) shows it. */
  page(query: OperationQuery, upToLedger = Number.MAX_SAFE_INTEGER): OperationRecord[] {
    if (query.account !== undefined) return this.accountPage(query.account, query, upToLedger);
    return query.order === 'asc' ? this.ascending(query, upToLedger) : this.descending(query, upToLedger);
  }

  /** One operation by its TOID, if its ledger is within `upToLedger`. */
  operation(id: bigint, upToLedger = Number.MAX_SAFE_INTEGER): OperationRecord | undefined {
    const ledger = Number(id >> 32n);
    if (ledger > upToLedger) return undefined;
    const transaction = this.history.transactionsIn(ledger)[Number((id >> 12n) & 0xfffffn) - 1];
    const record = transaction && this.operationsOf(transaction)[Number(id & 0xfffn) - 1];
    return record?.id === id.toString() ? record : undefined;
  }

  private ascending(query: OperationQuery, upToLedger: number): OperationRecord[] {
    // the first token a record may have
    const start = max(query.cursor === undefined ? 0n : query.cursor + 1n, query.floor ?? 0n);
    const records: OperationRecord[] = [];
    for (const ledger of this.history.ledgersWithTransactionsFrom(Number(start >> 32n), 'asc', upToLedger)) {
      for (const transaction of this.history.transactionsIn(ledger)) {
        if (!query.includeFailed && !transaction.successful) continue;
        for (const record of this.operationsOf(transaction)) {
          if (BigInt(record.id) < start) continue;
          records.push(record);
          if (records.length >= query.limit) return records;
        }
      }
    }
    return records;
  }

  private descending(query: OperationQuery, upToLedger: number): OperationRecord[] {
    // every record's token is below `end` and at least the floor
    const end = query.cursor ?? NO_CURSOR_DESC;
    const floor = query.floor ?? 0n;
    const records: OperationRecord[] = [];
    for (const ledger of this.history.ledgersWithTransactionsFrom(Number((end - 1n) >> 32n), 'desc', upToLedger)) {
      if (BigInt(ledger + 1) << 32n <= floor) break;
      for (const transaction of [...this.history.transactionsIn(ledger)].reverse()) {
        if (!query.includeFailed && !transaction.successful) continue;
        for (const record of [...this.operationsOf(transaction)].reverse()) {
          const token = BigInt(record.id);
          if (token >= end || token < floor) continue;
          records.push(record);
          if (records.length >= query.limit) return records;
        }
      }
    }
    return records;
  }

  private accountPage(account: string, query: OperationQuery, upToLedger: number): OperationRecord[] {
    this.catchUp();
    const list = this.byAccount.get(account) ?? [];
    const token = (entry: Participation) => entry.token;
    const floor = query.floor ?? 0n;
    const lastVisible = ((BigInt(upToLedger) + 1n) << 32n) - 1n;
    const records: OperationRecord[] = [];
    const take = (entry: Participation): boolean => {
      if (!query.includeFailed && !entry.transaction.successful) return false;
      const record = this.operationsOf(entry.transaction)[entry.index];
      if (record) records.push(record);
      return records.length >= query.limit;
    };
    if (query.order === 'asc') {
      const start = firstIndexAbove(list, token, max(query.cursor ?? -1n, floor - 1n));
      for (let at = start; at < list.length && (list[at] as Participation).token <= lastVisible; at++) {
        if (take(list[at] as Participation)) break;
      }
      return records;
    }
    const end = min((query.cursor ?? NO_CURSOR_DESC) - 1n, lastVisible);
    for (let at = firstIndexAbove(list, token, end) - 1; at >= 0 && (list[at] as Participation).token >= floor; at--) {
      if (take(list[at] as Participation)) break;
    }
    return records;
  }

  /** Indexes the participants of every ledger closed since the last read. */
  private catchUp(): void {
    for (const ledger of this.history.ledgersWithTransactionsFrom(this.indexedThrough + 1, 'asc')) {
      for (const transaction of this.history.transactionsIn(ledger)) {
        // decoded once, not kept: the whole history passes through here on first use
        operationsOf(transaction, this.networkPassphrase).forEach((record, index) => {
          for (const account of record.participants) {
            let list = this.byAccount.get(account);
            if (!list) this.byAccount.set(account, (list = []));
            list.push({ token: BigInt(record.id), transaction, index });
          }
        });
      }
      this.indexedThrough = ledger;
    }
  }

  private operationsOf(transaction: StoredTransaction): OperationRecord[] {
    let records = this.decoded.get(transaction);
    if (!records) {
      records = operationsOf(transaction, this.networkPassphrase);
      this.decoded.set(transaction, records);
      // forget the oldest: a Map iterates in insertion order
      if (this.decoded.size > CACHED_TRANSACTIONS) this.decoded.delete(this.decoded.keys().next().value as StoredTransaction);
    }
    return records;
  }
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
