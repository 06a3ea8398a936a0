import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../client';
import { ledgerEntries as transactions, RECORD_KINDS, users } from '../schema';

/** A transaction record is a journal entry of a token-moving kind (see ledgerEntries). */
export type TransactionRow = typeof transactions.$inferSelect;

/** Matches the partial indexes' predicate, so they serve the lists. */
const isRecord = inArray(transactions.kind, [...RECORD_KINDS]);

/** How long the total of all records may be served from memory before it is counted again. */
const TOTAL_TTL_MS = 10_000;

export class TransactionRepository {
  /**
   * count(*) over every record reads the whole table (or index): ~120 ms at a million rows. The
   * admin list's X-Total-Count is served from here: new records are counted within TOTAL_TTL_MS; refreshed in the background, one count at a time.
   */
  private total: { value: number; countedAt: number; refreshing?: Promise<number> } | undefined;

  constructor(private readonly db: Database) {}

  /** Newest first; the (user_id, created_at desc, id desc) index serves this without a sort. */
  async listForUser(userId: string, limit: number, offset: number): Promise<TransactionRow[]> {
    return this.db
      .select()
      .from(transactions)
      .where(and(eq(transactions.userId, userId), isRecord))
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(limit)
      .offset(offset);
  }

  async countForUser(userId: string): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(transactions).where(and(eq(transactions.userId, userId), isRecord));
    return row?.n ?? 0;
  }

  /** All users' records with the owner's name and e-mail (null once the owner is deleted). */
  async listAll(limit: number, offset: number) {
    return this.db
      .select({ record: transactions, owner: { username: users.username, email: users.email } })
      .from(transactions)
      .leftJoin(users, eq(users.id, transactions.userId))
      .where(isRecord)
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(limit)
      .offset(offset);
  }

  async countAll(): Promise<number> {
    const cached = this.total;
    if (cached && Date.now() - cached.countedAt < TOTAL_TTL_MS) return cached.value;
    if (cached) {
      // Never left to reject unhandled: a failed refresh keeps the last value until the next try.
      cached.refreshing ??= this.countAllNow()
        .catch(() => cached.value)
        .finally(() => (cached.refreshing = undefined));
      return cached.value; // stale by at most one TTL while the new count runs
    }
    return this.countAllNow();
  }

  private async countAllNow(): Promise<number> {
    const countedAt = Date.now();
    const [row] = await this.db.select({ n: count() }).from(transactions).where(isRecord);
    const value = row?.n ?? 0;
    this.total = { value, countedAt };
    return value;
  }
}
