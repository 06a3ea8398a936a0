import { cloneAccount, type AccountEntry, type PriorImages } from './ledger-state';

/** What a delta holds for an account it touched: its new image, or DELETED once it is merged away. */
const DELETED = null;
type Change = AccountEntry | typeof DELETED;

/**
 * A tentative set of account changes on top of the committed accounts. Operations only ever write
 * through a delta, so rolling back a failed transaction is just dropping it, and only the accounts a
 * transaction touches are copied.
 */
export class LedgerDelta {
  private readonly changed = new Map<string, Change>();

  constructor(
    private readonly base: ReadonlyMap<string, AccountEntry>,
    readonly ledgerSequence: number,
    readonly closeTime: number,
  ) {}

  exists(id: string): boolean {
    return this.read(id) !== undefined;
  }

  /** The current view of an account, not to be mutated. */
  read(id: string): Readonly<AccountEntry> | undefined {
    const change = this.changed.get(id);
    if (change === DELETED) return undefined;
    return change ?? this.base.get(id);
  }

  /** A private copy of the account to mutate; the change is stamped with this ledger. */
  write(id: string): AccountEntry | undefined {
    let account = this.changed.get(id);
    if (account === DELETED) return undefined;
    if (!account) {
      const committed = this.base.get(id);
      if (!committed) return undefined;
      account = cloneAccount(committed);
      this.changed.set(id, account);
    }
    account.lastModifiedLedger = this.ledgerSequence;
    account.lastModifiedTime = this.closeTime;
    return account;
  }

  create(account: AccountEntry): void {
    this.changed.set(account.id, account);
  }

  /** Removes the account entry (account_merge); a later create in the same delta brings it back as new. */
  delete(id: string): void {
    this.changed.set(id, DELETED);
  }

  /** `priorImages` keeps the first image replaced in a ledger: later ones are the ledger's own writes. */
  commitTo(accounts: Map<string, AccountEntry>, priorImages?: PriorImages): void {
    for (const [id, change] of this.changed) {
      if (priorImages && !priorImages.has(id)) priorImages.set(id, accounts.get(id));
      if (change === DELETED) accounts.delete(id);
      else accounts.set(id, change);
    }
    this.changed.clear();
  }
}
