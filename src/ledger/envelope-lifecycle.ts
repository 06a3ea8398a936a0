import { LedgerRejectedError } from '../clients/ledger-errors';
import type { Database } from '../db/client';
import { EventBatch, walletEventsOf, type EventAppender } from '../db/repositories/event.repository';
import type { AppliedEnvelope, EntryRow, EntryVerdict, JournalRepository } from '../db/repositories/journal.repository';
import { isFinalRefusal } from './entry-verdict';
import type { KindRegistry } from './kinds/registry';

/** An entry an envelope carries, in the envelope's order: its kind and how many of the envelope's operations are its own. */
export interface CarriedEntry {
  entryId: string;
  kind: string;
  operations: number;
}

/** How a failure may be recorded: `proven` by ledger evidence (any open envelope), or else only a first and only send's. */
export interface FailOptions {
  proven: boolean;
  ledger?: number;
}

/**
 * Settles envelopes: each move of domain/envelope-lifecycle.ts in one database transaction with
 * what it means for the entries it carries and the rows they stand for, which each entry's kind
 * decides (a payment minted, a reversal's tokens taken back, a wallet active). The sender, the
 * submitters and the reconciler settle through here, so an envelope is settled one way whoever
 * meets its fate.
 */
export class EnvelopeLifecycle {
  private readonly records: Set<string>;

  constructor(private readonly deps: { db: Database; repository: JournalRepository; kinds: KindRegistry; events: EventAppender }) {
    this.records = new Set(deps.kinds.recordKinds);
  }

  /**
   * The ledger applied the envelope (`hash`, its inner transaction). False when it was not open:
   * settled elsewhere. Entries whose kinds change nothing else when confirmed (a transfer) are
   * confirmed by one statement with their wallet events (issue 37's one round trip, CONTRACT 13's
   * events); the others, or any envelope while a webhook endpoint hears wallet events (their
   * deliveries' jobs are enqueued in a transaction), with what their kinds change and the events
   * they tell users, in one transaction.
   */
  async confirm(envelopeId: string, hash: string, applied: AppliedEnvelope): Promise<boolean> {
    const events = this.deps.events.enabled ? { recordKinds: [...this.records], hash } : undefined;
    const alone = await this.deps.repository.confirmEnvelopeAlone(envelopeId, applied, this.deps.kinds.confirming, events);
    if (alone !== 'with_effects') return alone === 'confirmed';
    return this.deps.db.transaction(async (tx) => {
      const entries = await this.deps.repository.confirmEnvelope(tx, envelopeId, applied);
      if (!entries) return false;
      const events = new EventBatch();
      for (const [kind, ofKind] of byKind(entries)) await this.deps.kinds.of(kind).confirmed?.(tx, ofKind, hash, events);
      for (const e of entries.filter((entry) => this.records.has(entry.kind))) {
        events.add(...walletEventsOf({ transactionId: e.id, ledgerTransactionId: hash, from: e.fromPublicKey, to: e.toPublicKey, stroops: e.amountStroops, assetCode: e.assetCode, origin: 'service' }));
      }
      await this.deps.events.append(tx, events.drafts);
      return true;
    });
  }

  /**
   * The envelope failed: `failure` says why (result codes, not_delivered, never_applies). Unless
   * `proven`, only its first and only send's failure counts (a refusal of a resubmission proves
   * nothing: the first send may have applied). Entries with a final verdict are over, their kinds
   * say what that changes; the others ride again. False when the move was not allowed: nothing
   * changed, its outcome is still unknown.
   */
  fail(envelopeId: string, failure: string, verdicts: EntryVerdict[], options: FailOptions): Promise<boolean> {
    return this.deps.db.transaction(async (tx) => {
      const move = options.proven ? 'neverApplies' : 'refused';
      const failed = await this.deps.repository.failEnvelope(tx, envelopeId, move, failure, verdicts, options.ledger);
      if (!failed) return false;
      const events = new EventBatch();
      for (const [kind, ofKind] of byKind(failed)) await this.deps.kinds.of(kind).failed?.(tx, ofKind, events);
      await this.deps.events.append(tx, events.drafts);
      return true;
    });
  }

  /**
   * A first and only submission refused: the one way a refusal is recorded, whoever met it. Each
   * entry whose own operations the refusal names for good (its kind decides, entry-verdict.ts) is
   * over, with its own error; every other entry rides again in a new envelope. `carried` is the
   * envelope's entries in order; undefined when which operations are whose is not known here (the
   * reconciler's first send of an envelope a dead process stored): then every entry rides again and
   * a new envelope gets a precise answer. Returns the entries that are over, with their errors, or
   * undefined when the envelope was no longer open (settled elsewhere: the refusal says nothing).
   */
  async refused(envelopeId: string, error: LedgerRejectedError, carried: CarriedEntry[] | undefined): Promise<Map<string, LedgerRejectedError> | undefined> {
    const verdicts: EntryVerdict[] = [];
    const finals = new Map<string, LedgerRejectedError>();
    let index = 0;
    for (const entry of carried ?? []) {
      const own = error.operationCodes.slice(index, index + entry.operations);
      index += entry.operations;
      const ownError = error.transactionCode === 'tx_failed' ? new LedgerRejectedError('tx_failed', own) : error;
      const final = isFinalRefusal(this.deps.kinds.of(entry.kind), error, own);
      verdicts.push({ entryId: entry.entryId, final, code: ownError.code });
      if (final) finals.set(entry.entryId, ownError);
    }
    return (await this.fail(envelopeId, error.message, verdicts, { proven: false })) ? finals : undefined;
  }
}

function byKind(entries: EntryRow[]): Map<string, EntryRow[]> {
  const groups = new Map<string, EntryRow[]>();
  for (const e of entries) groups.set(e.kind, [...(groups.get(e.kind) ?? []), e]);
  return groups;
}
