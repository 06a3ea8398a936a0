import { and, eq, not, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { idempotencyKeys } from '../schema';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A key older than the TTL by the database's clock, the one that stamped its created_at: a
 * process whose clock runs fast must not free a live key (its retry would sign a second
 * transaction), so no expiry is ever judged by Date.now().
 */
const expired: SQL = sql`${idempotencyKeys.createdAt} < now() - ${IDEMPOTENCY_TTL_MS}::integer * interval '1 millisecond'`;

/** A request's Idempotency-Key: who sent it, to which route, and a hash of the validated body. */
export interface IdempotencyClaim {
  callerId: string;
  route: string;
  key: string;
  requestHash: string;
}

/**
 * Client retry keys of money-moving requests. A key exists only bound to the journal entry it
 * answers: it is written in the transaction that commits the entry, so no crash can leave a key
 * claimed with nothing behind it.
 */
export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /** The live (unexpired) key, if any. */
  async find(callerId: string, route: string, key: string): Promise<IdempotencyRow | undefined> {
    const [row] = await this.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key), not(expired)));
    return row;
  }

  async purgeExpired(): Promise<void> {
    await this.db.delete(idempotencyKeys).where(expired);
  }
}

/**
 * Binds the key to a new entry, in the transaction that commits the entry (src/ledger/entry-commit.ts).
 * Returns the key already there when another request took it first (its transaction is committed by
 * then: the insert waited for it), or undefined when the key is now the entry's. An expired key is
 * replaced. Writes nothing when the key is taken.
 *
 * The key it loses to is locked until this transaction ends (`DO UPDATE ... WHERE false` updates
 * nothing but locks the row it conflicts with): an entry dropped unsent takes its key with it
 * (JournalRepository.abandon), and a key that vanished between the conflict and the read below
 * once made this answer "the key is yours" while writing no key, so the entry committed without
 * it and a later retry with the same key ran again.
 */
export async function idempotencyKeyBound(tx: Executor, claim: IdempotencyClaim, entryId: string): Promise<IdempotencyRow | undefined> {
  const where = and(eq(idempotencyKeys.callerId, claim.callerId), eq(idempotencyKeys.route, claim.route), eq(idempotencyKeys.key, claim.key));
  await tx.delete(idempotencyKeys).where(and(where, expired));
  const inserted = await tx
    .insert(idempotencyKeys)
    .values({ ...claim, entryId })
    .onConflictDoUpdate({ target: [idempotencyKeys.callerId, idempotencyKeys.route, idempotencyKeys.key], set: { entryId: sql`excluded.entry_id` }, setWhere: sql`false` })
    .returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return undefined;
  const [existing] = await tx.select().from(idempotencyKeys).where(where);
  // Locked above, so it is there; never answer "yours" for a key this statement did not write.
  if (!existing) throw new Error('an Idempotency-Key conflicted and then could not be read under its lock');
  return existing;
}
