import { and, desc, eq, inArray, isNull, not, sql, type SQL } from 'drizzle-orm';
import { APPROVAL_TRANSITIONS, type ApprovalDecision, type ApprovalMove, type ApprovalState } from '../../domain/approval-lifecycle';
import type { Database, Executor } from '../client';
import { approvals } from '../schema';
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim } from './idempotency.repository';
import { first } from './rows';

export type ApprovalRow = typeof approvals.$inferSelect;
/** A request as data: what it asks for and who asked. */
export type NewApproval = Pick<typeof approvals.$inferInsert, 'action' | 'userId' | 'amountStroops' | 'assetCode' | 'requestedBy'>;

/** What recording a request did. */
export type ApprovalRecorded =
  | { recorded: true; approval: ApprovalRow }
  /** Its Idempotency-Key is bound already: to this approval (the same request again). */
  | { recorded: false; reason: 'key_bound'; approval: ApprovalRow }
  /** Its Idempotency-Key is bound to a request with another body. */
  | { recorded: false; reason: 'key_reused' };

/** Past its 24 hours, by the database's clock (the one that stamped expires_at). */
const overdue: SQL = sql`${approvals.expiresAt} <= now()`;
/** An approval's key lives as long as the journal's keys do, by the same clock (idempotency.repository.ts). */
const keyExpired: SQL = sql`${approvals.createdAt} < now() - ${IDEMPOTENCY_TTL_MS}::integer * interval '1 millisecond'`;

/**
 * Money creation waiting for a second admin. Every state change is one of the named moves of
 * src/domain/approval-lifecycle.ts, one conditional statement: of any number of admins deciding
 * at once (in any number of processes), exactly one makes a given move.
 */
export class ApprovalRepository {
  constructor(private readonly db: Database) {}

  /**
   * Records a request that waits for a second admin. With an Idempotency-Key, the key is bound to
   * the approval: a retry finds it (`key_bound`), another body is `key_reused`; two requests with
   * one key racing record one approval (the unique index, then the winner is read).
   */
  async request(row: NewApproval, key: IdempotencyClaim | undefined, executor?: Executor): Promise<ApprovalRecorded> {
    // In the caller's transaction when given (the request and its admin log row commit together).
    return executor ? recordRequest(executor, row, key) : this.db.transaction((tx) => recordRequest(tx, row, key));
  }

  async find(id: string): Promise<ApprovalRow | undefined> {
    return first(this.db.select().from(approvals).where(eq(approvals.id, id)));
  }

  /** The approval a live Idempotency-Key of this caller and route is bound to, if any. */
  async findByKey(key: IdempotencyClaim): Promise<ApprovalRow | undefined> {
    return first(this.db.select().from(approvals).where(and(keyOf(key), not(keyExpired))));
  }

  /** A page of approvals, newest first, optionally of one state; pending ones past their 24 hours are expired first. */
  async page(filter: { status?: ApprovalState; limit: number; offset: number }): Promise<{ rows: ApprovalRow[]; total: number }> {
    await this.expireOverdue();
    const where = filter.status ? eq(approvals.status, filter.status) : undefined;
    const [rows, [counted]] = await Promise.all([
      this.db.select().from(approvals).where(where).orderBy(desc(approvals.createdAt), desc(approvals.id)).limit(filter.limit).offset(filter.offset),
      this.db.select({ n: sql<string>`count(*)` }).from(approvals).where(where),
    ]);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /**
   * An admin's decision: `approve` or `reject`, made only while the approval is pending and within
   * its 24 hours (one past them is expired instead). Answers the approval as it then stands,
   * whoever moved it; undefined when there is no such approval.
   */
  async decide(id: string, decision: ApprovalDecision, adminId: string, executor: Executor = this.db): Promise<{ approval: ApprovalRow; moved: boolean } | undefined> {
    const decided = await moveApproval(executor, id, decision, { decidedBy: adminId, decidedAt: sql`now()` }, not(overdue));
    if (decided) return { approval: decided, moved: true };
    const now = (await moveApproval(executor, id, 'expire', {}, overdue)) ?? (await first(executor.select().from(approvals).where(eq(approvals.id, id))));
    return now ? { approval: now, moved: false } : undefined;
  }

  /**
   * Frees an approved request whose entry was dropped unsent (deleted: nothing moved) to be written
   * again; only while it still names that entry, so racing approvers release it once.
   */
  async released(id: string, droppedEntryId: string): Promise<void> {
    await moveApproval(this.db, id, 'released', { entryId: null }, eq(approvals.entryId, droppedEntryId));
  }

  /** Expires every pending approval past its 24 hours (one statement). */
  private async expireOverdue(): Promise<void> {
    const { from, to } = APPROVAL_TRANSITIONS.expire;
    await this.db
      .update(approvals)
      .set({ status: to, updatedAt: sql`now()` })
      .where(and(inArray(approvals.status, [...from]), overdue));
  }
}

/** Records a request for approval in `tx`: see ApprovalRepository.request. */
async function recordRequest(tx: Executor, row: NewApproval, key: IdempotencyClaim | undefined): Promise<ApprovalRecorded> {
  if (!key) {
    const [created] = await tx.insert(approvals).values(row).returning();
    return { recorded: true, approval: created! };
  }
  const sameKey = keyOf(key);
  // A key past its lifetime is free again, as an expired key of the journal is replaced.
  await tx.update(approvals).set({ idempotencyRoute: null, idempotencyKey: null, requestHash: null }).where(and(sameKey, keyExpired));
  const [created] = await tx
    .insert(approvals)
    .values({ ...row, idempotencyRoute: key.route, idempotencyKey: key.key, requestHash: key.requestHash })
    .onConflictDoNothing()
    .returning();
  if (created) return { recorded: true, approval: created };
  const [bound] = await tx.select().from(approvals).where(sameKey);
  return bound?.requestHash === key.requestHash ? { recorded: false, reason: 'key_bound', approval: bound } : { recorded: false, reason: 'key_reused' };
}

/** An Idempotency-Key's approval: its caller is the requester. */
function keyOf(key: IdempotencyClaim): SQL {
  return and(eq(approvals.requestedBy, key.callerId), eq(approvals.idempotencyRoute, key.route), eq(approvals.idempotencyKey, key.key))!;
}

type MoveFields = Partial<Pick<typeof approvals.$inferInsert, 'entryId'>> & { decidedBy?: string; decidedAt?: SQL };

/** One conditional statement: `move` if the approval is in one of its `from` states and `also` holds. */
async function moveApproval(executor: Executor, id: string, move: ApprovalMove, fields: MoveFields, also: SQL): Promise<ApprovalRow | undefined> {
  const { from, to } = APPROVAL_TRANSITIONS[move];
  const [row] = await executor
    .update(approvals)
    .set({ ...fields, status: to, updatedAt: sql`now()` })
    .where(and(eq(approvals.id, id), inArray(approvals.status, [...from]), also))
    .returning();
  return row;
}

// The journal's claim of an approval: it runs in the transaction that commits the approved
// request's entry (src/ledger/entry-commit.ts, through the admin_mint and issue kinds).

/**
 * Takes an approved request for its one journal entry (`written`): only while it names no entry,
 * so of two approvers racing, or one retrying, exactly one commits an entry. False: not approved,
 * or another caller's entry took it first (its transaction is committed by then: this update waited for it).
 */
export async function approvalWritten(tx: Executor, approvalId: string, entryId: string): Promise<boolean> {
  return (await moveApproval(tx, approvalId, 'written', { entryId }, isNull(approvals.entryId))) !== undefined;
}
