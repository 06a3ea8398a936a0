import { and, desc, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import {
  NOTHING_PAID_STATES,
  SWEPT_STATES,
  WAITING_STATES,
  WITHDRAWAL_TRANSITIONS,
  type WithdrawalMove,
  type WithdrawalState,
  type WithdrawalTransition,
} from '../../domain/withdrawal-lifecycle';
import type { Database, Executor } from '../client';
import { withdrawals } from '../schema';
import { withdrawalEventOf, type EventSink, type EventTransactions } from './event.repository';
import { claimDueRows, msFromNow } from './leased-claims';
import { first, rowsOf } from './rows';

export type WithdrawalRow = typeof withdrawals.$inferSelect;
export type NewWithdrawal = Omit<typeof withdrawals.$inferInsert, 'status' | 'createdAt' | 'updatedAt' | 'nextCheckAt'> & { id: string };

/** What recording a withdrawal request did. */
export type WithdrawalCreated =
  | { created: true; withdrawal: WithdrawalRow }
  /** The user's Idempotency-Key is bound already: to this withdrawal (the same request) or another body (`reused`). */
  | { created: false; reason: 'key_bound'; withdrawal: WithdrawalRow }
  | { created: false; reason: 'key_reused' }
  /** Over the daily limit: `usedKobo` counts in the last 24 hours already. */
  | { created: false; reason: 'over_limit'; usedKobo: bigint };

/** What a move writes besides the new status. */
type MoveFields = Partial<Pick<WithdrawalRow, 'transferCode' | 'providerStatus' | 'reason' | 'paidAt'>> & { nextCheckAt?: SQL | Date; transferCalls?: SQL; cleanRefusals?: SQL };

/**
 * Withdrawals. Every state change is one of the named moves of src/domain/withdrawal-lifecycle.ts,
 * one conditional statement (`where status in (from)`): of any number of concurrent callers (the
 * request, the sweep, the webhook inbox, an admin, other processes) exactly one makes a given move.
 */
export class WithdrawalRepository {
  constructor(
    private readonly db: Database,
    private readonly events: EventTransactions,
  ) {}

  /**
   * Records a request, under the user's withdrawal lock: two requests of one user queue here, so
   * their sum is checked against the daily limit one after the other and never passes it twice.
   * The Idempotency-Key is checked under the same lock: a retry finds its withdrawal.
   * `dailyLimitKobo` counts everything that may still pay out Naira in the last 24 hours (by the database's clock).
   */
  async create(row: NewWithdrawal, dailyLimitKobo: bigint, firstCheckMs: number): Promise<WithdrawalCreated> {
    return this.db.transaction(async (tx): Promise<WithdrawalCreated> => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`withdrawal:${row.userId}`}))`);
      const [bound] = await tx.select().from(withdrawals).where(and(eq(withdrawals.userId, row.userId), eq(withdrawals.idempotencyKey, row.idempotencyKey)));
      if (bound) return bound.requestHash === row.requestHash ? { created: false, reason: 'key_bound', withdrawal: bound } : { created: false, reason: 'key_reused' };
      const used = await usedToday(tx, row.userId);
      if (used + row.nairaKobo > dailyLimitKobo) return { created: false, reason: 'over_limit', usedKobo: used };
      // The request writes its debit itself; the sweep takes over only if it has not after this long (it died).
      const [created] = await tx.insert(withdrawals).values({ ...row, nextCheckAt: msFromNow(firstCheckMs) }).returning();
      return { created: true, withdrawal: created! };
    });
  }

  async find(id: string): Promise<WithdrawalRow | undefined> {
    return first(this.db.select().from(withdrawals).where(eq(withdrawals.id, id)));
  }

  async findByKey(userId: string, idempotencyKey: string): Promise<WithdrawalRow | undefined> {
    return first(this.db.select().from(withdrawals).where(and(eq(withdrawals.userId, userId), eq(withdrawals.idempotencyKey, idempotencyKey))));
  }

  async findByReference(reference: string): Promise<WithdrawalRow | undefined> {
    return first(this.db.select().from(withdrawals).where(eq(withdrawals.reference, reference)));
  }

  async all(): Promise<WithdrawalRow[]> {
    return this.db.select().from(withdrawals).orderBy(withdrawals.createdAt);
  }

  /** A page of withdrawals, newest first: a user's own, or all of one status (operators). */
  async page(filter: { userId?: string; status?: WithdrawalState; limit: number; offset: number }): Promise<{ rows: WithdrawalRow[]; total: number }> {
    const clauses = [filter.userId ? eq(withdrawals.userId, filter.userId) : undefined, filter.status ? eq(withdrawals.status, filter.status) : undefined].filter(Boolean) as SQL[];
    const where = clauses.length > 0 ? and(...clauses) : undefined;
    const [rows, [counted]] = await Promise.all([
      this.db.select().from(withdrawals).where(where).orderBy(desc(withdrawals.createdAt), desc(withdrawals.id)).limit(filter.limit).offset(filter.offset),
      this.db.select({ n: sql<string>`count(*)` }).from(withdrawals).where(where),
    ]);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /** Makes `move` if the withdrawal is in one of its `from` states; undefined when another caller moved it first. */
  move(id: string, move: WithdrawalMove, fields: MoveFields = {}, also?: SQL): Promise<WithdrawalRow | undefined> {
    const transition: WithdrawalTransition = WITHDRAWAL_TRANSITIONS[move];
    if (!transition.event) return moveWithdrawal(this.db, undefined, id, move, fields, also);
    return this.events.run((tx, events) => moveWithdrawal(tx, events, id, move, fields, also));
  }

  /** Counts a transfer call before it goes out (debited / sending -> sending; a retry for the float stays waiting_float). */
  async transferStarted(id: string): Promise<WithdrawalRow | undefined> {
    const counted = { transferCalls: sql`${withdrawals.transferCalls} + 1` };
    return (await moveWithdrawal(this.db, undefined, id, 'floatRetried', counted)) ?? moveWithdrawal(this.db, undefined, id, 'transferStarted', counted);
  }

  /**
   * The provider refused the call and created nothing: the balance is short (`floatShort`), or the
   * transfer can never be made (`transferFailed`). The latter only when every earlier call was
   * refused outright too: after an unclear call a transfer may exist, and only verify may end it.
   */
  async refusedOutright(id: string, move: 'floatShort' | 'transferFailed', reason: string): Promise<WithdrawalRow | undefined> {
    const nothingElse = move === 'transferFailed' ? sql`${withdrawals.transferCalls} = ${withdrawals.cleanRefusals} + 1` : undefined;
    return this.move(id, move, { reason, cleanRefusals: sql`${withdrawals.cleanRefusals} + 1` }, nothingElse);
  }

  /**
   * An admin's cancel: before the debit, nothing to give back (cancelled); after it, only while no
   * call can have created a transfer (every call refused outright), the tokens come back (refund_due).
   */
  async cancel(tx: Executor, events: EventSink, id: string, reason: string): Promise<WithdrawalRow | undefined> {
    const before = await moveWithdrawal(tx, events, id, 'cancelled', { reason });
    if (before) return before;
    return moveWithdrawal(tx, events, id, 'cancelledAfterDebit', { reason, nextCheckAt: new Date() }, sql`${withdrawals.transferCalls} = ${withdrawals.cleanRefusals}`);
  }

  /** Due withdrawals, leased to the caller (SKIP LOCKED: one process per withdrawal at a time). */
  async claimDue(limit: number, leaseMs: number): Promise<WithdrawalRow[]> {
    const claim = { dueAt: withdrawals.nextCheckAt, waiting: inArray(withdrawals.status, [...SWEPT_STATES]), alsoSet: sql`attempts = attempts + 1` };
    const ids = await claimDueRows(this.db, withdrawals, claim, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db.select().from(withdrawals).where(inArray(withdrawals.id, ids));
  }

  /** The sweep looks again after `delayMs` (the state and its age are left as they are). */
  async checkLater(id: string, delayMs: number): Promise<void> {
    await this.db.update(withdrawals).set({ nextCheckAt: msFromNow(delayMs) }).where(eq(withdrawals.id, id));
  }

  /** For each waiting state, how long its oldest withdrawal has been in it (seconds), by the database's clock. */
  async oldestWaiting(): Promise<{ status: WithdrawalState; seconds: number }[]> {
    const result = await this.db.execute(sql`
      select status, extract(epoch from now() - min(status_since))::float8 as seconds
      from withdrawals where status in (${sql.join(WAITING_STATES.map((s) => sql`${s}`), sql`, `)}) group by status`);
    return rowsOf<{ status: WithdrawalState; seconds: number | string }>(result).map((r) => ({ status: r.status, seconds: Number(r.seconds) }));
  }
}

/** Naira (kobo) of a user's withdrawals in the last 24 hours that paid, or may still pay, out. */
async function usedToday(tx: Executor, userId: string): Promise<bigint> {
  const [row] = await tx
    .select({ kobo: sql<string>`coalesce(sum(${withdrawals.nairaKobo}), 0)` })
    .from(withdrawals)
    .where(and(eq(withdrawals.userId, userId), sql`${withdrawals.createdAt} > now() - interval '24 hours'`, notInArray(withdrawals.status, [...NOTHING_PAID_STATES])));
  return BigInt(row?.kobo ?? '0');
}

/** One conditional statement: `move` if the withdrawal is in one of its `from` states (and `also` holds). */
async function moveWithdrawal(executor: Executor, events: EventSink | undefined, id: string, move: WithdrawalMove, fields: MoveFields = {}, also?: SQL): Promise<WithdrawalRow | undefined> {
  const { from, to, event } = WITHDRAWAL_TRANSITIONS[move] as WithdrawalTransition;
  // A move to another status restarts the sweep's backoff and the status's age; one to the status it has
  // (asking again, a retry while waiting for the float) keeps both, so delays grow and gauges stay true.
  const changed = sql`${withdrawals.status} <> ${to}`;
  const [row] = await executor
    .update(withdrawals)
    .set({
      ...fields,
      status: to,
      attempts: sql`case when ${changed} then 0 else ${withdrawals.attempts} end`,
      statusSince: sql`case when ${changed} then now() else ${withdrawals.statusSince} end`,
      updatedAt: new Date(),
    })
    .where(and(eq(withdrawals.id, id), inArray(withdrawals.status, [...from]), also))
    .returning();
  if (row && event) {
    if (!events) throw new Error(`the withdrawal move ${move} tells the user: it needs the transaction's events`);
    events.add(withdrawalEventOf(row, event));
  }
  return row;
}

// The journal's settlement of withdrawals' debit and refund entries: each runs in the transaction
// that commits the entry (the claims) or settles its envelope (src/ledger/envelope-lifecycle.ts,
// through the withdrawal and withdrawal_refund kinds).

/** Takes a requested withdrawal for its debit (requested -> debiting), in the transaction that commits the debit's entry. */
export async function withdrawalDebitStarted(tx: Executor, id: string): Promise<boolean> {
  return (await moveWithdrawal(tx, undefined, id, 'debitStarted')) !== undefined;
}

/** The ledger took these withdrawals' tokens: the payout is due at once. */
export async function withdrawalDebitsConfirmed(tx: Executor, events: EventSink, ids: string[]): Promise<void> {
  for (const id of ids) await moveWithdrawal(tx, events, id, 'debitConfirmed', { nextCheckAt: new Date() });
}

/** The ledger refused a debit (the wallet no longer held the tokens): nothing moved, nothing is paid. */
export async function withdrawalDebitRefused(tx: Executor, events: EventSink, id: string, code: string): Promise<void> {
  await moveWithdrawal(tx, events, id, 'debitRefused', { reason: `The ledger refused to take the tokens (${code})` });
}

/** Takes a withdrawal whose tokens are owed back for its refund (refund_due -> refunding), in the committing transaction. */
export async function withdrawalRefundStarted(tx: Executor, id: string): Promise<boolean> {
  return (await moveWithdrawal(tx, undefined, id, 'refundStarted')) !== undefined;
}

export async function withdrawalRefundsConfirmed(tx: Executor, events: EventSink, ids: string[]): Promise<void> {
  for (const id of ids) await moveWithdrawal(tx, events, id, 'refundConfirmed');
}

/** The ledger refused a refund for good: it is owed still, and written again by the sweep later. */
export async function withdrawalRefundRefused(tx: Executor, id: string, code: string, retryMs: number): Promise<void> {
  await moveWithdrawal(tx, undefined, id, 'refundRefused', { reason: `The ledger refused the refund (${code}); it is tried again`, nextCheckAt: msFromNow(retryMs) });
}
