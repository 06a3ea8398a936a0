import crypto from 'node:crypto';
import { and, eq, getTableColumns, inArray, is, sql, SQL, type Placeholder, type WithSubquery } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { idempotencyKeys, ledgerEntries, ledgerEnvelopes, type EntryKind } from '../schema';
import { ENVELOPE_MOVES, OPEN_ENVELOPE_STATES, type EnvelopeMove, type EnvelopeMoveName } from '../../domain/envelope-lifecycle';
import { appendStep, holderOf } from './event.repository';
import { claimDueRows, msFromNow } from './leased-claims';
import { placeholderValue } from './placeholders';
import { first, rowsOf } from './rows';

export type EntryRow = typeof ledgerEntries.$inferSelect;

export type EnvelopeRow = typeof ledgerEnvelopes.$inferSelect;

/** What becomes of an entry whose envelope was refused: it rides again in a new one, or it is over (failed, with its code). */
export interface EntryVerdict {
  entryId: string;
  final: boolean;
  code: string;
}

/** How the ledger applied an envelope: at which ledger, the fee charged, the fee bump's hash. */
export interface AppliedEnvelope {
  ledger: number;
  feeCharged?: bigint;
  hash?: string;
}

const OPEN_ENTRY = ['pending', 'submitted'] as const;
export type NewEntry = Pick<EntryRow, 'kind' | 'fromPublicKey' | 'toPublicKey' | 'amountStroops' | 'assetCode'> &
  Partial<Pick<EntryRow, 'userId' | 'paymentReference' | 'reversalId' | 'withdrawalId' | 'approvalId'>>;
export interface NewEnvelope {
  hash: string;
  sourceAccount: string;
  sequence: bigint;
  firstLedger: number | undefined;
  lastLedger: number | undefined;
  envelopeXdr: string;
  /** The fee bump's own hash and whole fee bid (the envelope is a fee bump around `hash`). */
  outerHash: string;
  bidStroops: bigint;
  /** The ledger Horizon had closed when the bid was made (bumps count from it); undefined if unknown. */
  bidLedger: number | undefined;
}

/**
 * What storing an envelope did: stored with every entry in it; or nothing stored because some
 * entries already ride in another open envelope (lost), or because the journal already holds this
 * inner transaction (duplicate: built elsewhere with the same sequence number and operations).
 */
export type Attached = { envelopeId: string } | { lost: string[] } | { duplicate: string };

/** An entry may move to a new envelope only while pending with no envelope, or only a failed one. */
const MOVABLE = and(
  eq(ledgerEntries.status, 'pending'),
  sql`(${ledgerEntries.envelopeId} is null or exists (select 1 from ${ledgerEnvelopes} v where v.id = ${ledgerEntries.envelopeId} and v.status = 'failed'))`,
)!;

/**
 * A claim (src/ledger/kinds/entry-kind.ts) as the update of a data-modifying CTE, for
 * insertEntryClaimed: its values are placeholders named after the entry's fields (ENTRY_PLACEHOLDERS),
 * plus `now`; `name` (what it claims) names the prepared statement.
 */
export interface ClaimStatement {
  name: string;
  build(db: Database): WithSubquery;
}

/** A new entry's columns as a prepared statement's placeholders: its optional ones are all bound, null when absent, which is what leaving them out inserts (they have no defaults). */
const ENTRY_PLACEHOLDERS = {
  id: sql.placeholder('id'),
  kind: sql.placeholder('kind'),
  fromPublicKey: sql.placeholder('fromPublicKey'),
  toPublicKey: sql.placeholder('toPublicKey'),
  amountStroops: sql.placeholder('amountStroops'),
  assetCode: sql.placeholder('assetCode'),
  userId: sql.placeholder('userId'),
  paymentReference: sql.placeholder('paymentReference'),
  reversalId: sql.placeholder('reversalId'),
  withdrawalId: sql.placeholder('withdrawalId'),
  approvalId: sql.placeholder('approvalId'),
  leaseUntil: sql`now() + ${sql.placeholder('leaseMs')}::interval`,
};

/** The values of ENTRY_PLACEHOLDERS for a new entry leased for `leaseMs`. */
function entryValues(entry: NewEntry & { id: string }, leaseMs: number): Record<string, unknown> {
  return {
    id: entry.id,
    kind: entry.kind,
    fromPublicKey: entry.fromPublicKey,
    toPublicKey: entry.toPublicKey,
    amountStroops: entry.amountStroops,
    assetCode: entry.assetCode,
    userId: entry.userId ?? null,
    paymentReference: entry.paymentReference ?? null,
    reversalId: entry.reversalId ?? null,
    withdrawalId: entry.withdrawalId ?? null,
    approvalId: entry.approvalId ?? null,
    leaseMs: `${leaseMs} milliseconds`,
  };
}

/**
 * The journal's storage. Every state change is one conditional statement or one database
 * transaction, so any number of processes can work on the same journal: an envelope changes
 * state only from an open one, and an entry moves to a new envelope only once its current one
 * has failed.
 */
export class JournalRepository {
  private readonly markSent;
  private readonly insertAlone;
  /** insertEntryClaimed's statements by their claim's name. */
  private readonly claimedInserts = new Map<string, ReturnType<JournalRepository['prepareInsertClaimed']>>();
  /** confirmEnvelopeAlone's statements by their kinds with effects. */
  private readonly confirmAlone = new Map<string, ReturnType<JournalRepository['prepareConfirmAlone']>>();

  constructor(private readonly db: Database) {
    this.markSent = this.prepareMarkSent();
    this.insertAlone = this.prepareInsertAlone();
  }

  /**
   * Inserts a new entry, leased to the caller for `leaseMs`, in the caller's transaction (the
   * journal commits it with its claims). Undefined when one of the partial unique indexes already
   * holds a live entry for the same thing (one live mint per payment, clawback per reversal,
   * activation per wallet): nothing is inserted.
   */
  async insertEntry(tx: Executor, entry: NewEntry & { id: string }, leaseMs: number): Promise<EntryRow | undefined> {
    const [row] = await tx
      .insert(ledgerEntries)
      .values({ ...entry, leaseUntil: msFromNow(leaseMs) })
      // Without a target: any of the partial unique indexes.
      .onConflictDoNothing()
      .returning();
    return row;
  }

  /**
   * insertEntry outside a transaction (an entry with nothing to claim or log: a transfer sent
   * without a key), prepared once: its optional columns are all bound, null when absent, which is
   * what leaving them out inserts (they have no defaults).
   */
  async insertEntryAlone(entry: NewEntry & { id: string }, leaseMs: number): Promise<EntryRow | undefined> {
    const [row] = await this.insertAlone.execute(entryValues(entry, leaseMs));
    return row;
  }

  private prepareInsertAlone() {
    return this.db.insert(ledgerEntries).values(ENTRY_PLACEHOLDERS).onConflictDoNothing().returning().prepare('journal_insert_entry_alone');
  }

  /**
   * A claim taken and its entry inserted in one prepared statement (a claim with nothing else to
   * commit: no Idempotency-Key, no admin log): the claim's update runs first as a data-modifying
   * CTE, and the entry's row exists only when it moved a row. Undefined when another caller took
   * the claim: nothing was written. A live entry standing for a claim this caller won is a broken
   * invariant: the unique index refuses the insert, and the statement, the claim's update with it,
   * fails as a whole.
   */
  async insertEntryClaimed(claim: ClaimStatement, entry: NewEntry & { id: string }, leaseMs: number): Promise<EntryRow | undefined> {
    let statement = this.claimedInserts.get(claim.name);
    if (!statement) {
      statement = this.prepareInsertClaimed(claim);
      this.claimedInserts.set(claim.name, statement);
    }
    const [row] = await statement.execute({ ...entryValues(entry, leaseMs), now: new Date() });
    return row;
  }

  private prepareInsertClaimed(claim: ClaimStatement) {
    const claimed = claim.build(this.db);
    // A select list gives PostgreSQL no column to infer a parameter's type from: each is cast to its column's.
    const columns = Object.entries(getTableColumns(ledgerEntries)).map(([key, column]) => {
      const given = (ENTRY_PLACEHOLDERS as Record<string, SQL | Placeholder>)[key];
      if (given) return sql`(${given})::${sql.raw(column.getSQLType())}`;
      if (column.default === undefined) return sql`null`;
      return is(column.default, SQL) ? column.default : sql`${sql.param(column.default, column)}::${sql.raw(column.getSQLType())}`;
    });
    return this.db
      .with(claimed)
      .insert(ledgerEntries)
      .select(sql`select ${sql.join(columns, sql`, `)} from ${claimed}`)
      .returning()
      .prepare(`journal_insert_claiming_${claim.name}`);
  }

  async findEntry(id: string): Promise<EntryRow | undefined> {
    return first(this.db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id)));
  }

  async findEnvelope(id: string): Promise<EnvelopeRow | undefined> {
    return first(this.db.select().from(ledgerEnvelopes).where(eq(ledgerEnvelopes.id, id)));
  }

  /**
   * The journal's envelopes among these inner hashes, with their state: which transactions of the
   * ledger's history are the service's own (the ledger follower).
   */
  async envelopesByHash(hashes: string[]): Promise<Pick<EnvelopeRow, 'id' | 'hash' | 'status'>[]> {
    if (hashes.length === 0) return [];
    return this.db.select({ id: ledgerEnvelopes.id, hash: ledgerEnvelopes.hash, status: ledgerEnvelopes.status }).from(ledgerEnvelopes).where(inArray(ledgerEnvelopes.hash, hashes));
  }

  /** The first ledger any envelope of the journal could enter: the service's history starts there. */
  async firstEnvelopeLedger(): Promise<number | undefined> {
    const [row] = await this.db.select({ first: sql<number | null>`min(coalesce(${ledgerEnvelopes.ledger}, ${ledgerEnvelopes.firstLedger}))` }).from(ledgerEnvelopes);
    return row?.first ?? undefined;
  }

  /**
   * Stores a signed envelope and puts the entries in it, before it is sent. Only entries with no
   * envelope or a failed one can move: if any of them is already riding in an open envelope
   * (another process took it), nothing is stored and those entries are answered as lost. Nothing is
   * stored either when the journal already holds this very inner transaction (its hash is unique).
   */
  async attach(envelope: NewEnvelope, entryIds: string[], leaseMs: number): Promise<Attached> {
    const wanted = [...new Set(entryIds)].sort();
    const entries = ledgerEntries;
    // One statement, not a transaction of three (five round trips; issue 37), and the same moves:
    // the entries are locked in one order, so two processes attaching overlapping batches queue
    // instead of deadlocking, and one another process is attaching is seen, once that one commits,
    // in its new state (PostgreSQL rechecks a row it waited for). The envelope is stored only when
    // every entry could move, and the entries move only when it was stored.
    const result = await this.db.execute(sql`
      with movable as (
        select ${entries.id} from ${entries} where ${inArray(entries.id, wanted)} and ${MOVABLE} order by ${entries.id} for update of ${entries}
      ), stored as (
        insert into ${ledgerEnvelopes} (hash, source_account, sequence, first_ledger, last_ledger, envelope_xdr, outer_hash, bid_stroops, bid_ledger, next_check_at)
        select ${envelope.hash}, ${envelope.sourceAccount}, ${envelope.sequence}, ${envelope.firstLedger ?? null}::integer, ${envelope.lastLedger ?? null}::integer,
               ${envelope.envelopeXdr}, ${envelope.outerHash}, ${envelope.bidStroops}, ${envelope.bidLedger ?? null}::integer, ${msFromNow(leaseMs)}
        where (select count(*) from movable) = ${wanted.length}
        on conflict (hash) do nothing
        returning id
      ), moved as (
        update ${entries} set envelope_id = (select id from stored), ledger_transaction_id = ${envelope.hash}, updated_at = ${new Date()}
        where ${entries.id} in (select id from movable) and exists (select 1 from stored)
      )
      select coalesce((select array_agg(id::text) from movable), '{}') as movable, (select id::text from stored) as envelope_id`);
    const [row] = rowsOf<{ movable: string[]; envelope_id: string | null }>(result);
    const movable = new Set(row?.movable ?? []);
    if (movable.size !== wanted.length) return { lost: wanted.filter((id) => !movable.has(id)) };
    if (!row?.envelope_id) return { duplicate: envelope.hash };
    return { envelopeId: row.envelope_id };
  }

  /**
   * Marks the envelope as handed to Horizon, before each send. Returns how many sends it has had,
   * counting this one, or undefined when it is no longer open (settled elsewhere): then it must
   * not be sent.
   */
  async markSubmitted(envelopeId: string): Promise<number | undefined> {
    const [row] = await this.markSent.execute({ envelopeId, now: new Date() });
    return row?.submitCount;
  }

  /**
   * markSubmitted's statement. One statement, not a transaction of two: the count and, on the first
   * send, the entries move together all the same (a statement is atomic), for one round trip
   * instead of four; and prepared, as every send makes it (issue 37).
   */
  private prepareMarkSent() {
    const envelopeId = sql.placeholder('envelopeId');
    const now = placeholderValue('now');
    const sent = this.db.$with('sent').as(
      this.db
        .update(ledgerEnvelopes)
        .set({ status: ENVELOPE_MOVES.sent.to, submitCount: sql`${ledgerEnvelopes.submitCount} + 1`, updatedAt: now })
        .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, ENVELOPE_MOVES.sent.from)))
        .returning({ submitCount: ledgerEnvelopes.submitCount }),
    );
    const entriesSubmitted = this.db.$with('entries_submitted').as(
      this.db
        .update(ledgerEntries)
        .set({ status: 'submitted', updatedAt: now })
        .where(and(eq(ledgerEntries.envelopeId, envelopeId), eq(ledgerEntries.status, 'pending'), sql`(select ${sent.submitCount} from ${sent}) = 1`)),
    );
    return this.db.with(sent, entriesSubmitted).select({ submitCount: sent.submitCount }).from(sent).prepare('journal_mark_sent');
  }

  /**
   * The ledger applied the envelope (`applied`): it and its open entries are confirmed, in the
   * caller's transaction. Returns the entries confirmed, or undefined when the envelope was not
   * open (settled elsewhere): nothing changed.
   */
  async confirmEnvelope(tx: Executor, envelopeId: string, applied: AppliedEnvelope): Promise<EntryRow[] | undefined> {
    const { ledger } = applied;
    const moved = await this.move(tx, envelopeId, 'applied', { ledger, feeCharged: applied.feeCharged, outerHash: applied.hash });
    if (!moved) return undefined;
    return tx
      .update(ledgerEntries)
      .set({ status: 'confirmed', ledger, updatedAt: new Date() })
      .where(and(eq(ledgerEntries.envelopeId, envelopeId), inArray(ledgerEntries.status, OPEN_ENTRY)))
      .returning();
  }

  /**
   * `applied` as one statement, without a transaction: the envelope and its open entries are
   * confirmed together, unless one of its entries is of a kind in `withEffects` (kinds that change
   * other rows when confirmed, which needs a transaction: confirmEnvelope). For a transfer that is
   * one round trip instead of four (issue 37). With `events`, the same statement appends the wallet
   * events of its entries of `events.recordKinds` (CONTRACT 13; the steps are the outbox's own,
   * event.repository.ts appendStep), unless a live webhook endpoint hears wallet events: their
   * deliveries' jobs need the transaction too. `unchanged`: the envelope was not open (settled
   * elsewhere) or needs the transaction; `with_effects` says which, and nothing changed either way.
   */
  async confirmEnvelopeAlone(
    envelopeId: string,
    applied: AppliedEnvelope,
    withEffects: readonly string[],
    events?: { recordKinds: readonly string[]; hash: string },
  ): Promise<'confirmed' | 'with_effects' | 'not_open'> {
    const key = [...withEffects].sort().join(',') + (events ? `|events:${[...events.recordKinds].sort().join(',')}` : '');
    let statement = this.confirmAlone.get(key);
    if (!statement) {
      // Named after the kinds: node-postgres refuses one name for two texts on a connection, and
      // repositories built with other registries (tests) share a pool.
      statement = this.prepareConfirmAlone(withEffects, events?.recordKinds, `journal_confirm_alone_${crypto.createHash('sha256').update(key).digest('hex').slice(0, 16)}`);
      this.confirmAlone.set(key, statement);
    }
    const [row] = await statement.execute({ envelopeId, ledger: applied.ledger, feeCharged: applied.feeCharged ?? null, outerHash: applied.hash ?? null, now: new Date(), hash: events?.hash ?? null });
    if (row?.moved) return 'confirmed';
    return row?.effects ? 'with_effects' : 'not_open';
  }

  /** confirmEnvelopeAlone's statement for one set of kinds with effects (a process has one: its registry's), with the wallet events of `recordKinds` when given. */
  private prepareConfirmAlone(withEffects: readonly string[], recordKinds: readonly string[] | undefined, name: string) {
    const envelopeId = sql.placeholder('envelopeId');
    const ledger = placeholderValue('ledger');
    const now = placeholderValue('now');
    const move = ENVELOPE_MOVES.applied;
    // An envelope's entries are fixed when it is stored (attach), so what this reads of them holds.
    const effects = this.db.$with('effects').as(
      this.db
        .select({ id: ledgerEntries.id })
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.envelopeId, envelopeId), withEffects.length > 0 ? inArray(ledgerEntries.kind, withEffects as EntryKind[]) : sql`false`))
        .limit(1),
    );
    // A live endpoint hearing wallet events: its deliveries' jobs are enqueued in a transaction (the outbox).
    const listening = this.db.$with('listening', { one: sql<number>`one` }).as(
      recordKinds
        ? sql`select 1 as one from webhook_endpoints where deleted_at is null and (event_types is null or event_types && array['wallet.debited', 'wallet.credited']::text[]) limit 1`
        : sql`select 1 as one where false`,
    );
    const moved = this.db.$with('moved').as(
      this.db
        .update(ledgerEnvelopes)
        .set({ ledger, feeCharged: placeholderValue('feeCharged'), outerHash: placeholderValue('outerHash'), status: move.to, updatedAt: now })
        .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, move.from), sql`not exists (select 1 from ${effects})`, sql`not exists (select 1 from ${listening})`))
        .returning({ id: ledgerEnvelopes.id }),
    );
    const entriesConfirmed = this.db.$with('entries_confirmed').as(
      this.db
        .update(ledgerEntries)
        .set({ status: 'confirmed', ledger, updatedAt: now })
        .where(and(eq(ledgerEntries.envelopeId, envelopeId), inArray(ledgerEntries.status, OPEN_ENTRY), sql`exists (select 1 from ${moved})`))
        .returning({ id: ledgerEntries.id, kind: ledgerEntries.kind, fromPublicKey: ledgerEntries.fromPublicKey, toPublicKey: ledgerEntries.toPublicKey, amountStroops: ledgerEntries.amountStroops, assetCode: ledgerEntries.assetCode }),
    );
    const eventSteps = recordKinds ? this.walletEventSteps(recordKinds) : [];
    const notified = eventSteps.at(-1);
    return this.db
      .with(effects, listening, moved, entriesConfirmed, ...eventSteps)
      .select({
        moved: sql<boolean>`exists (select 1 from ${moved})`,
        effects: sql<boolean>`exists (select 1 from ${effects}) or exists (select 1 from ${listening})`,
        notified: notified ? sql<number>`(select count(*) from ${notified})::int` : sql<number>`0`,
      })
      .from(sql`(select 1) as one`)
      .prepare(name);
  }

  /**
   * The CTEs that append the wallet events of the entries `entries_confirmed` returns (kinds in
   * `recordKinds`): each movement's sender debited, its receiver credited, as walletEventsOf
   * (event.repository.ts) writes them in the transaction path; the amount as Stellar's 7-place text.
   */
  private walletEventSteps(recordKinds: readonly string[]) {
    const name = (n: string) => sql`${sql.identifier(n)}`;
    const amount = sql`(m.amount_stroops / 10000000)::text || '.' || lpad((m.amount_stroops % 10000000)::text, 7, '0')`;
    const input = this.db.$with('event_input', { ord: sql<number>`ord` }).as(sql`
      select row_number() over (order by m.id, m.side) as ord, h.user_id, m.type, jsonb_build_object(
               'transactionId', m.id, 'ledgerTransactionId', ${sql.placeholder('hash')}::text, 'from', m.from_public_key, 'to', m.to_public_key,
               'amount', ${amount}, 'assetCode', m.asset_code, 'origin', 'service') as data
      from (
        select id, kind, from_public_key, to_public_key, amount_stroops, asset_code, from_public_key as holder, 'wallet.debited'::text as type, 0 as side from entries_confirmed
        union all
        select id, kind, from_public_key, to_public_key, amount_stroops, asset_code, to_public_key as holder, 'wallet.credited'::text as type, 1 as side from entries_confirmed
      ) m
      cross join lateral (select ${holderOf(sql`m.holder`)} as user_id) h
      where h.user_id is not null and m.kind in (${sql.join(recordKinds.map((k) => sql`${k}`), sql`, `)})`);
    const counts = this.db.$with('event_counts', { n: sql<number>`n` }).as(appendStep.counts(name('event_input')));
    const numbers = this.db.$with('event_numbers', { n: sql<number>`last_seq` }).as(appendStep.numbers(name('event_counts')));
    const inserted = this.db.$with('events_inserted', { n: sql<number>`seq` }).as(appendStep.inserted(name('event_input'), name('event_numbers'), name('event_counts')));
    const notified = this.db.$with('events_notified', { n: sql<number>`1` }).as(appendStep.notified(name('events_inserted')));
    return [input, counts, numbers, inserted, notified] as const;
  }

  /**
   * The envelope failed (`refused` or `neverApplies`), with `failure` saying why, in the caller's
   * transaction. Each entry with a final verdict is failed with its code; every other entry in it
   * waits for a new envelope. Returns the entries failed for good, or undefined when the move was
   * not allowed (envelope-lifecycle.ts): nothing changed, its outcome is still unknown.
   */
  async failEnvelope(tx: Executor, envelopeId: string, move: 'refused' | 'neverApplies', failure: string, verdicts: EntryVerdict[], ledger?: number): Promise<EntryRow[] | undefined> {
    const moved = await this.move(tx, envelopeId, move, { failure, ledger: ledger ?? null });
    if (!moved) return undefined;
    const failed: EntryRow[] = [];
    for (const v of verdicts.filter((verdict) => verdict.final)) {
      failed.push(
        ...(await tx
          .update(ledgerEntries)
          .set({ status: 'failed', failureCode: v.code, updatedAt: new Date() })
          .where(and(eq(ledgerEntries.id, v.entryId), eq(ledgerEntries.envelopeId, envelopeId), inArray(ledgerEntries.status, OPEN_ENTRY)))
          .returning()),
      );
    }
    await tx
      .update(ledgerEntries)
      .set({ status: 'pending', updatedAt: new Date() })
      .where(and(eq(ledgerEntries.envelopeId, envelopeId), inArray(ledgerEntries.status, OPEN_ENTRY)));
    return failed;
  }

  /** One move of envelope-lifecycle.ts as one conditional statement: true when this caller made it. */
  private async move(tx: Executor, envelopeId: string, name: EnvelopeMoveName, fields: Partial<EnvelopeRow>): Promise<boolean> {
    const move: EnvelopeMove = ENVELOPE_MOVES[name];
    const rows = await tx
      .update(ledgerEnvelopes)
      .set({ ...fields, status: move.to, updatedAt: new Date() })
      .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, move.from), move.firstSendOnly ? eq(ledgerEnvelopes.submitCount, 1) : undefined))
      .returning({ id: ledgerEnvelopes.id });
    return rows.length > 0;
  }

  /**
   * Notes that the envelope was seen still waiting with Horizon at `ledger`. Returns how many
   * ledgers its current bid has waited: since the ledger the bid was made at, or (an envelope
   * stored without one) since the first time it was seen waiting.
   */
  async noteWaiting(envelopeId: string, ledger: number): Promise<number> {
    const [row] = await this.db
      .update(ledgerEnvelopes)
      .set({ bidLedger: sql`coalesce(${ledgerEnvelopes.bidLedger}, ${ledger})` })
      .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, OPEN_ENVELOPE_STATES)))
      .returning({ bidLedger: ledgerEnvelopes.bidLedger });
    return row?.bidLedger === null || row?.bidLedger === undefined ? 0 : Math.max(0, ledger - row.bidLedger);
  }

  /**
   * Replaces a sent envelope's fee bump with one bidding more, around the same signed inner
   * transaction (same hash, same sequence number: at most one of them can ever apply). Only while
   * it is open. Returns false when it was settled meanwhile.
   */
  async rebid(envelopeId: string, bump: { envelopeXdr: string; outerHash: string; bidStroops: bigint; bidLedger: number }): Promise<boolean> {
    const rows = await this.db
      .update(ledgerEnvelopes)
      .set({
        ...bump,
        priorOuterHashes: sql`case when ${ledgerEnvelopes.outerHash} is null then ${ledgerEnvelopes.priorOuterHashes} else array_append(${ledgerEnvelopes.priorOuterHashes}, ${ledgerEnvelopes.outerHash}) end`,
        bumps: sql`${ledgerEnvelopes.bumps} + 1`,
        updatedAt: new Date(),
      })
      .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, OPEN_ENVELOPE_STATES)))
      .returning({ id: ledgerEnvelopes.id });
    return rows.length > 0;
  }

  /**
   * Submitted envelopes that could have entered a ledger before `oldestLedger` (or that carry no
   * ledger bounds at all): the ones absence can no longer settle.
   */
  async countSubmittedBefore(oldestLedger: number): Promise<number> {
    const [row] = await this.db
      .select({ count: sql<number>`count(*)::int` })
      .from(ledgerEnvelopes)
      .where(and(eq(ledgerEnvelopes.status, 'submitted'), sql`(${ledgerEnvelopes.firstLedger} is null or ${ledgerEnvelopes.firstLedger} < ${oldestLedger})`));
    return row?.count ?? 0;
  }

  /** Whether an envelope with this source account (a lane) is still open. */
  async hasOpenEnvelopeFrom(sourceAccount: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: ledgerEnvelopes.id })
      .from(ledgerEnvelopes)
      .where(and(eq(ledgerEnvelopes.sourceAccount, sourceAccount), inArray(ledgerEnvelopes.status, OPEN_ENVELOPE_STATES)))
      .limit(1);
    return row !== undefined;
  }

  /** Lets workers look at an open envelope again after `delayMs` (ends the caller's lease). */
  async recheckLater(envelopeId: string, delayMs: number): Promise<void> {
    await this.db
      .update(ledgerEnvelopes)
      .set({ nextCheckAt: msFromNow(delayMs) })
      .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, OPEN_ENVELOPE_STATES)));
  }

  /** Lets workers take a waiting entry after `delayMs` (ends the caller's lease). */
  async releaseEntry(entryId: string, delayMs: number): Promise<void> {
    await this.db
      .update(ledgerEntries)
      .set({ leaseUntil: msFromNow(delayMs) })
      .where(eq(ledgerEntries.id, entryId));
  }

  /**
   * Drops an entry that nothing on the ledger can ever carry (no envelope, or only failed ones)
   * together with its Idempotency-Key, so the request can be made again: the caller answers 503.
   * False when the entry rides in an open envelope (or is settled): then it is not dropped. In the
   * caller's transaction (the journal records an admin's dropped write in the admin log with it).
   */
  async abandon(tx: Executor, entryId: string): Promise<boolean> {
    const dropped = await tx
      .delete(ledgerEntries)
      .where(and(eq(ledgerEntries.id, entryId), MOVABLE))
      .returning({ id: ledgerEntries.id });
    if (dropped.length === 0) return false;
    await tx.delete(idempotencyKeys).where(eq(idempotencyKeys.entryId, entryId));
    return true;
  }

  /**
   * Open envelopes nobody is working on (their lease passed), leased to the caller for `leaseMs`.
   * SKIP LOCKED: workers of several processes never take the same envelope.
   */
  async claimOpenEnvelopes(limit: number, leaseMs: number): Promise<EnvelopeRow[]> {
    const claim = { dueAt: ledgerEnvelopes.nextCheckAt, waiting: inArray(ledgerEnvelopes.status, OPEN_ENVELOPE_STATES) };
    const ids = await claimDueRows(this.db, ledgerEnvelopes, claim, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db.select().from(ledgerEnvelopes).where(inArray(ledgerEnvelopes.id, ids));
  }

  /** Entries waiting for an envelope whose lease passed (their process gave up or died), leased to the caller. */
  async claimWaitingEntries(limit: number, leaseMs: number, kinds?: readonly EntryKind[]): Promise<EntryRow[]> {
    const waiting = and(MOVABLE, kinds ? inArray(ledgerEntries.kind, [...kinds]) : undefined)!;
    const ids = await claimDueRows(this.db, ledgerEntries, { dueAt: ledgerEntries.leaseUntil, waiting }, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db.select().from(ledgerEntries).where(inArray(ledgerEntries.id, ids));
  }

  /** Every envelope and entry (for the audit). */
  async allEnvelopes(): Promise<EnvelopeRow[]> {
    return this.db.select().from(ledgerEnvelopes);
  }

  async allEntries(): Promise<EntryRow[]> {
    return this.db.select().from(ledgerEntries);
  }

  async entriesOf(envelopeId: string): Promise<EntryRow[]> {
    return this.db.select().from(ledgerEntries).where(eq(ledgerEntries.envelopeId, envelopeId));
  }
}
