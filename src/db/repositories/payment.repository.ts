import { and, desc, eq, getTableColumns, inArray, isNull, lt, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { MINT_NOT_YET_CODES, MINT_NOT_YET_LIMIT, TRANSITIONS, UNFINISHED_STATES, type PaymentState, type Transition, type TransitionName } from '../../domain/payment-lifecycle';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { Database, Executor } from '../client';
import { payments, wallets } from '../schema';
import type { ClaimStatement } from './journal.repository';
import { paymentEventOf, type EventSink, type EventTransactions } from './event.repository';
import { claimDueRows, msFromNow } from './leased-claims';
import { placeholderValue } from './placeholders';
import { owedStroopsOf } from './reversal.repository';

export type PaymentRow = typeof payments.$inferSelect;

/** The buyer's wallet as recordPaid's statement read it: null when the buyer has none (deleted: see the archive). */
export type BuyerWallet = { status: 'pending' | 'active'; publicKey: string } | null;

/** What a move writes besides the new status. */
type MoveFields = Partial<Pick<PaymentRow, 'tokensStroops' | 'destinationPublicKey' | 'providerPayload' | 'failureReason' | 'paidAt' | 'nextCheckAt' | 'mintTxHash'>>;

/**
 * Payments. Every state change is one of the named moves of src/domain/payment-lifecycle.ts, run
 * as one conditional statement (`where status in (from)`), never check-then-act in memory: of any
 * number of concurrent callers (verify, callback, webhook, the sweep, other processes) exactly one
 * makes a given move. A `failed` payment that carries a reason never moves again.
 */
export class PaymentRepository {
  // verify-payment's statements, built once and prepared on each connection (issue 37): a burst of
  // verifications spent a fifth of the service's thread in drizzle building them per call.
  private readonly byReference;
  private readonly paid;
  private readonly settlesNoDebt;

  constructor(
    private readonly db: Database,
    private readonly events: EventTransactions,
  ) {
    const reference = eq(payments.reference, sql.placeholder('reference'));
    this.byReference = db.select().from(payments).where(reference).prepare('payments_find');
    const now = placeholderValue('now');
    // The buyer's wallet comes back with the move: the mint that follows needs it (one round trip fewer per verified payment).
    // The payment's column named with its table: drizzle writes an update's own columns unqualified, and inside the subselect that would name the wallet's.
    const buyer = sql`${payments}.${sql.identifier(payments.userId.name)}`;
    const buyerWallet = (column: typeof wallets.status | typeof wallets.publicKey) => sql<string | null>`(select ${column} from ${wallets} where ${wallets.userId} = ${buyer})`;
    this.paid = moveUpdate(db, 'paid', sql.placeholder('reference'), { providerPayload: sql`${sql.placeholder('payload')}::jsonb`, paidAt: now, nextCheckAt: now, updatedAt: now })
      .returning({ ...getTableColumns(payments), walletStatus: buyerWallet(wallets.status), walletPublicKey: buyerWallet(wallets.publicKey) })
      .prepare('payments_record_paid');
    this.settlesNoDebt = db
      .update(payments)
      .set({ debtSettledStroops: 0n, updatedAt: now })
      .where(and(reference, eq(payments.status, 'paid'), isNull(payments.debtSettledStroops), sql`${owedStroopsOf(sql`${payments.userId}`)} <= 0`))
      .returning({ reference: payments.reference })
      .prepare('payments_settles_no_debt');
  }

  /** A new intent; the sweep first asks the provider about it `firstCheckMs` later. */
  async insertInitialized(row: { reference: string; userId: string; amountKobo: bigint }, firstCheckMs: number): Promise<void> {
    await this.db.insert(payments).values({ ...row, nextCheckAt: msFromNow(firstCheckMs) });
  }

  async find(reference: string): Promise<PaymentRow | undefined> {
    const [row] = await this.byReference.execute({ reference });
    return row;
  }

  /** A move that writes nothing else, outside any transaction (disputes, reversals). */
  moveNow(reference: string, move: 'disputeOpened' | 'disputeWon' | 'reversed'): Promise<PaymentRow | undefined> {
    return this.moveWithEvent(reference, move);
  }

  /** The provider's success for the recorded amount: the reference is consumed (one caller wins). */
  async recordPaid(reference: string, payload: unknown): Promise<{ payment: PaymentRow; buyerWallet: BuyerWallet } | undefined> {
    // due at once (nextCheckAt: now): the sweep mints it if this caller dies before it does.
    // The payload as the jsonb column stores it: its JSON text (node-postgres would send an array as a PostgreSQL array).
    const [row] = await this.paid.execute({ reference, payload: JSON.stringify(payload), now: new Date() });
    if (!row) return undefined;
    const { walletStatus, walletPublicKey, ...payment } = row;
    const buyerWallet = walletStatus !== null && walletPublicKey !== null ? { status: walletStatus === 'active' ? ('active' as const) : ('pending' as const), publicKey: walletPublicKey } : null;
    return { payment, buyerWallet };
  }

  /**
   * Decides that this paid purchase settles none of its buyer's debt, when the buyer owes nothing:
   * one statement, no lock (nothing owed, nothing two purchases could both settle). False when it
   * could not decide so (something owed, already decided, not paid): the caller takes the lock.
   */
  async recordSettlesNoDebt(reference: string): Promise<boolean> {
    return (await this.settlesNoDebt.execute({ reference, now: new Date() })).length > 0;
  }

  recordProviderFailed(reference: string, payload: unknown): Promise<PaymentRow | undefined> {
    return this.moveWithEvent(reference, 'providerFailed', { providerPayload: payload });
  }

  recordRefused(reference: string, reason: string, payload: unknown): Promise<PaymentRow | undefined> {
    return this.moveWithEvent(reference, 'refused', { failureReason: reason, providerPayload: payload, nextCheckAt: null });
  }

  /** A purchase whose tokens all went to settle the buyer's debt: nothing to mint, it is done. */
  recordCoveredByDebt(reference: string, destinationPublicKey: string): Promise<PaymentRow | undefined> {
    return this.moveWithEvent(reference, 'mintCoveredByDebt', { tokensStroops: 0n, destinationPublicKey, nextCheckAt: null });
  }

  /** A move on its own; one that tells the buyer (its transition names an event) commits with its event. */
  private moveWithEvent(reference: string, move: TransitionName, fields: MoveFields = {}): Promise<PaymentRow | undefined> {
    const transition: Transition = TRANSITIONS[move];
    if (!transition.event) return movePayment(this.db, undefined, reference, move, fields);
    return this.events.run((tx, events) => movePayment(tx, events, reference, move, fields));
  }

  /** The payment, locked for the caller's transaction (FOR UPDATE): one settlement of its debt at a time. */
  async lockForDebt(tx: Executor, reference: string): Promise<PaymentRow | undefined> {
    const [payment] = await tx.select().from(payments).where(eq(payments.reference, reference)).for('update');
    return payment;
  }

  /** Records, in the caller's transaction, how much of the buyer's debt this purchase settled. */
  async recordDebtSettled(tx: Executor, reference: string, settled: bigint): Promise<void> {
    await tx.update(payments).set({ debtSettledStroops: settled, updatedAt: new Date() }).where(eq(payments.reference, reference));
  }

  /**
   * Unfinished payments due for the sweep, leased to the caller (SKIP LOCKED, one process per
   * payment at a time): their `nextCheckAt` moves `leaseMs` ahead and the attempt is counted.
   */
  async claimDue(limit: number, leaseMs: number): Promise<PaymentRow[]> {
    const claim = { dueAt: payments.nextCheckAt, waiting: inArray(payments.status, UNFINISHED_STATES), alsoSet: sql`check_attempts = check_attempts + 1`, key: payments.reference };
    const references = await claimDueRows(this.db, payments, claim, limit, leaseMs);
    if (references.length === 0) return [];
    return this.db.select().from(payments).where(inArray(payments.reference, references));
  }

  /** The sweep asks again after `delayMs`. */
  async checkLater(reference: string, delayMs: number): Promise<void> {
    await this.db
      .update(payments)
      .set({ nextCheckAt: msFromNow(delayMs) })
      .where(and(eq(payments.reference, reference), inArray(payments.status, UNFINISHED_STATES)));
  }

  /** The sweep stops asking (its attempts ran out); the payment stays as it is, for an operator. */
  async stopChecking(reference: string): Promise<void> {
    await this.db.update(payments).set({ nextCheckAt: null }).where(eq(payments.reference, reference));
  }

  async listByStatus(status: PaymentState): Promise<PaymentRow[]> {
    return this.db.select().from(payments).where(eq(payments.status, status));
  }

  /** A page of payments, newest first, optionally of one status. */
  async page(options: { status?: PaymentState; limit: number; offset: number }): Promise<{ rows: PaymentRow[]; total: number }> {
    const where = options.status ? eq(payments.status, options.status) : undefined;
    const [rows, [counted]] = await Promise.all([
      this.db.select().from(payments).where(where).orderBy(desc(payments.createdAt), desc(payments.reference)).limit(options.limit).offset(options.offset),
      this.db.select({ n: sql<string>`count(*)` }).from(payments).where(where),
    ]);
    return { rows, total: Number(counted?.n ?? 0) };
  }
}

// The journal's settlement of payments' mint entries: each runs in the transaction that settles
// the mint's envelope (src/ledger/envelope-lifecycle.ts, through the payment_mint kind).

/** The ledger applied these payments' mints. */
/** Makes `move` if the payment is in one of its `from` states (one conditional statement); undefined if another caller got there first. */
async function movePayment(executor: Executor, events: EventSink | undefined, reference: string, move: TransitionName, fields: MoveFields = {}): Promise<PaymentRow | undefined> {
  const [row] = await moveUpdate(executor, move, reference, { ...fields, updatedAt: new Date() }).returning();
  const { event } = TRANSITIONS[move] as Transition;
  if (row && event) {
    if (!events) throw new Error(`the payment move ${move} tells the buyer: it needs the transaction's events`);
    events.add(paymentEventOf(row, event));
  }
  return row;
}

/**
 * The update that makes `move` (its `from` states, its `to` status): every move is this one shape,
 * whether run at once with values (movePayment) or prepared with placeholders (verify-payment's
 * `paid`, the mint's claim in its entry's statement).
 */
function moveUpdate(executor: Executor, move: TransitionName, reference: string | SQL | Placeholder, set: Omit<PgUpdateSetSource<typeof payments>, 'status'>) {
  const { from, to } = TRANSITIONS[move];
  return executor
    .update(payments)
    .set({ ...set, status: to })
    .where(and(eq(payments.reference, reference), movableFrom(from)));
}

/**
 * Consumes a paid payment's reference for its mint (paid -> minting), in the transaction that
 * commits the mint's journal entry (src/ledger/entry-commit.ts). False when another caller did first.
 */
export async function paymentMintStarted(tx: Executor, mint: { reference: string; stroops: bigint; to: string }): Promise<boolean> {
  const moved = await moveUpdate(tx, 'mintStarted', mint.reference, { ...mintStartedFields(mint.stroops, mint.to), updatedAt: new Date() }).returning({ reference: payments.reference });
  return moved.length > 0;
}

/** What consuming a reference for its mint writes besides the status: one definition for both claims below. */
function mintStartedFields(stroops: bigint | SQL, to: string | SQL): Omit<PgUpdateSetSource<typeof payments>, 'status'> {
  return { tokensStroops: stroops, destinationPublicKey: to, nextCheckAt: null };
}

/**
 * paymentMintStarted as a ClaimStatement: the same move with the same fields, for the mint's entry
 * inserted in the same statement (JournalRepository.insertEntryClaimed). Its values are the entry's.
 */
export const paymentMintStartedStatement: ClaimStatement = {
  name: 'payment',
  build: (db) =>
    db.$with('claimed').as(
      moveUpdate(db, 'mintStarted', sql.placeholder('paymentReference'), { ...mintStartedFields(placeholderValue('amountStroops'), placeholderValue('toPublicKey')), updatedAt: placeholderValue('now') }).returning({
        reference: payments.reference,
      }),
    ),
};

export async function paymentMintsConfirmed(tx: Executor, events: EventSink, references: string[], hash: string): Promise<void> {
  if (references.length === 0) return;
  const minted = await tx
    .update(payments)
    .set({ status: TRANSITIONS.mintConfirmed.to, mintTxHash: hash, updatedAt: new Date() })
    .where(and(inArray(payments.reference, references), inArray(payments.status, TRANSITIONS.mintConfirmed.from)))
    .returning();
  events.add(...minted.map((row) => paymentEventOf(row, TRANSITIONS.mintConfirmed.event)));
}

/**
 * The ledger refused a payment's mint. A "not yet" refusal (the wallet is still being activated:
 * MINT_NOT_YET_CODES) sends it back to `paid`, due for the sweep, until MINT_NOT_YET_LIMIT;
 * anything else fails it with the ledger's code.
 */
export async function paymentMintRefused(tx: Executor, events: EventSink, reference: string, code: string): Promise<void> {
  if (MINT_NOT_YET_CODES.has(code)) {
    const [back] = await tx
      .update(payments)
      .set({ status: TRANSITIONS.mintNotYet.to, mintNotYetCount: sql`${payments.mintNotYetCount} + 1`, nextCheckAt: new Date(), updatedAt: new Date() })
      .where(and(eq(payments.reference, reference), inArray(payments.status, TRANSITIONS.mintNotYet.from), lt(payments.mintNotYetCount, MINT_NOT_YET_LIMIT - 1)))
      .returning({ reference: payments.reference });
    if (back) return;
  }
  const failed = await tx
    .update(payments)
    .set({ status: TRANSITIONS.mintRefused.to, failureReason: `The ledger refused the mint (${code})`, updatedAt: new Date() })
    .where(and(eq(payments.reference, reference), inArray(payments.status, TRANSITIONS.mintRefused.from)))
    .returning();
  events.add(...failed.map((row) => paymentEventOf(row, TRANSITIONS.mintRefused.event)));
}

/** `status in (from)`, where `failed` counts only while it carries no reason. */
function movableFrom(from: readonly PaymentState[]): SQL {
  const plain = from.filter((s) => s !== 'failed');
  const clauses: SQL[] = [];
  if (plain.length > 0) clauses.push(inArray(payments.status, plain));
  if (from.includes('failed')) clauses.push(and(eq(payments.status, 'failed'), isNull(payments.failureReason))!);
  return or(...clauses)!;
}
