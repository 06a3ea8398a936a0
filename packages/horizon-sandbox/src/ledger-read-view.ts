import type { ClosedLedger, PageQuery, StoredPayment, StoredTransaction } from './ledger-history';
import type { AccountEntry, LedgerHeader, LedgerState } from './ledger-state';
import type { OperationQuery } from './operation-history';
import type { OperationRecord } from './operation-records';

/**
 * What Horizon's read side (its ingested database) shows, as opposed to the core state where
 * submissions apply. Every read route takes one view per request, so that one answer never mixes
 * ledgers that are ingested with ledgers that are not.
 */
export interface LedgerReadView {
  /** The newest ingested ledger. */
  readonly latest: LedgerHeader;
  account(id: string): Readonly<AccountEntry> | undefined;
  transaction(hash: string): StoredTransaction | undefined;
  ledger(sequence: number): LedgerHeader | undefined;
  /** An ingested ledger with its transactions and payments (RPC's getEvents derives its events from them). */
  closedLedger(sequence: number): ClosedLedger | undefined;
  ledgers(query: PageQuery): LedgerHeader[];
  paymentsFor(account: string, query: PageQuery): StoredPayment[];
  /** Horizon's operations (all, or an account's), one page in TOID order. */
  operations(query: OperationQuery): OperationRecord[];
  /** One operation by its id (TOID). */
  operation(id: bigint): OperationRecord | undefined;
  /** The transactions of the last few ingested ledgers, which /fee_stats describes. */
  recentTransactions(): readonly StoredTransaction[];
}

/** The read side caught up with core: the core state itself, nothing copied. */
export class CurrentView implements LedgerReadView {
  constructor(private readonly state: LedgerState) {}

  get latest(): LedgerHeader {
    return this.state.latest;
  }

  account(id: string) {
    return this.state.accounts.get(id);
  }

  transaction(hash: string) {
    return this.state.history.transaction(hash);
  }

  ledger(sequence: number) {
    return this.state.history.ledger(sequence);
  }

  closedLedger(sequence: number) {
    return this.state.history.closedLedger(sequence);
  }

  ledgers(query: PageQuery) {
    return this.state.history.ledgers(query);
  }

  paymentsFor(account: string, query: PageQuery) {
    return this.state.history.paymentsFor(account, query);
  }

  operations(query: OperationQuery) {
    return this.state.operations.page(query);
  }

  operation(id: bigint) {
    return this.state.operations.operation(id);
  }

  recentTransactions() {
    return this.state.history.recentTransactions();
  }
}

/**
 * The read side as it was when ledger `ingested` closed, while the ledgers after it (`notIngested`,
 * oldest first) are applied in core but not ingested. History is append-only, so older records are
 * only filtered by ledger; accounts come from the prior images of the first ledger that changed them.
 */
export class ViewAtLedger implements LedgerReadView {
  readonly latest: LedgerHeader;

  constructor(
    private readonly state: LedgerState,
    private readonly ingested: number,
    private readonly notIngested: readonly { priorImages: ReadonlyMap<string, AccountEntry | undefined> }[],
  ) {
    const header = state.history.ledger(ingested);
    if (!header) throw new Error(`ledger ${ingested} is missing from the history`);
    this.latest = header;
  }

  account(id: string) {
    for (const ledger of this.notIngested) {
      if (ledger.priorImages.has(id)) return ledger.priorImages.get(id);
    }
    return this.state.accounts.get(id);
  }

  transaction(hash: string) {
    const tx = this.state.history.transaction(hash);
    return tx && tx.ledger <= this.ingested ? tx : undefined;
  }

  ledger(sequence: number) {
    return sequence <= this.ingested ? this.state.history.ledger(sequence) : undefined;
  }

  closedLedger(sequence: number) {
    return sequence <= this.ingested ? this.state.history.closedLedger(sequence) : undefined;
  }

  ledgers(query: PageQuery) {
    return this.state.history.ledgers(query, this.ingested);
  }

  paymentsFor(account: string, query: PageQuery) {
    return this.state.history.paymentsFor(account, query, this.ingested);
  }

  operations(query: OperationQuery) {
    return this.state.operations.page(query, this.ingested);
  }

  operation(id: bigint) {
    return this.state.operations.operation(id, this.ingested);
  }

  recentTransactions() {
    return this.state.history.recentTransactions(this.ingested);
  }
}
