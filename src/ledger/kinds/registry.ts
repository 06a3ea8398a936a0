import { activation } from './activation';
import { adminMint } from './admin-mint';
import { channelFunding } from './channel-funding';
import { channelMerge } from './channel-merge';
import { clawback } from './clawback';
import type { EntryKind, KindCommand, SupplyRole } from './entry-kind';
import { issue } from './issue';
import { issuerFlags } from './issuer-flags';
import { paymentMint } from './payment-mint';
import { transfer } from './transfer';
import { trustline } from './trustline';
import { withdrawalDebit } from './withdrawal';
import { withdrawalRefund } from './withdrawal-refund';

/**
 * The kinds of ledger write the journal knows, by name. Everything that treats kinds differently
 * asks here (or the kind itself): the journal, the submitters, the reconciler, the settlement, the
 * audits and the record lists. Adding a kind is one file under kinds/ and one registration.
 */
export class KindRegistry {
  private readonly byName = new Map<string, EntryKind>();

  constructor(kinds: readonly EntryKind<never>[] = []) {
    for (const kind of kinds) this.register(kind);
  }

  register<C extends KindCommand>(kind: EntryKind<C>): void {
    if (this.byName.has(kind.name)) throw new Error(`the entry kind ${kind.name} is registered twice`);
    this.byName.set(kind.name, kind as unknown as EntryKind);
  }

  /** The kind of a command or a stored entry; an unknown name is a bug (a row no registered kind wrote). */
  of(name: string): EntryKind {
    const kind = this.byName.get(name);
    if (!kind) throw new Error(`no entry kind ${name} is registered`);
    return kind;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** The kinds users and admins see as transaction records, in registration order. */
  get recordKinds(): string[] {
    return this.names.filter((name) => this.of(name).record);
  }

  /** The kinds that change other rows when their entries are confirmed (a payment minted, a wallet active). */
  get confirming(): string[] {
    return this.names.filter((name) => this.of(name).confirmed !== undefined);
  }

  /** The kinds the audit counts in this role of the token's supply. */
  withSupply(...roles: SupplyRole[]): Set<string> {
    return new Set(this.names.filter((name) => roles.includes(this.of(name).supply)));
  }

  /** The kinds whose entries claim `of` ('payment', 'reversal', 'withdrawal debit', 'withdrawal refund') when committed. */
  claiming(of: string): Set<string> {
    return new Set(this.names.filter((name) => this.of(name).claim?.of === of));
  }
}

/** The service's kinds of ledger write. */
export function standardKinds(): KindRegistry {
  return new KindRegistry([transfer, paymentMint, adminMint, clawback, issue, activation, trustline, issuerFlags, channelFunding, channelMerge, withdrawalDebit, withdrawalRefund] as EntryKind<never>[]);
}
