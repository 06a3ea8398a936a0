import { count, desc, eq } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { transactions, users } from '../schema';

export type TransactionRow = typeof transactions.$inferSelect;
export type NewTransaction = Omit<TransactionRow, 'id' | 'createdAt'>;

/** How long the total of all records may be served from memory before it is counted again. */
const TOTAL_TTL_MS = 10_000;

export class TransactionRepository {
  /**
   * count(*) over every record reads the whole table (or index): ~120 ms at a million rows. The
   * admin list's X-Total-Count is served from here: exact for this process's own inserts (counted
   * in insert()), other processes' within TOTAL_TTL_MS; refreshed in the background, one count at a time.
   */
  private total: { value: number; countedAt: number; refreshing?: Promise<number> } | undefined;

  constructor(private readonly db: Database) {}

  async insert(tx: Executor, record: NewTransaction): Promise<TransactionRow> {
    const [row] = await tx.insert(transactions).values(record).returning();
    if (this.total) this.total.value++;
    return row!;
  }

  /** Newest first; the (user_id, created_at desc, id desc) index serves this without a sort. */
  async listForUser(userId: string, limit: number, offset: number): Promise<TransactionRow[]> {
    return this.db
      .select()
      .from(transactions)
      .where(eq(transactions.userId, userId))
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(limit)
      .offset(offset);
  }

  async countForUser(userId: string): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(transactions).where(eq(transactions.userId, userId));
    return row?.n ?? 0;
  }

  /** All users' records with the owner's name and e-mail (null once the owner is deleted). */
  async listAll(limit: number, offset: number) {
    return this.db
      .select({ record: transactions, owner: { username: users.username, email: users.email } })
      .from(transactions)
      .leftJoin(users, eq(users.id, transactions.userId))
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
    const [row] = await this.db.select({ n: count() }).from(transactions);
    const value = row?.n ?? 0;
    this.total = { value, countedAt };
    return value;
  }
}
