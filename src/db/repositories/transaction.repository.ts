import { count, desc, eq } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { transactions, users } from '../schema';

export type TransactionRow = typeof transactions.$inferSelect;
export type NewTransaction = Omit<TransactionRow, 'id' | 'createdAt'>;

export class TransactionRepository {
  constructor(private readonly db: Database) {}

  async insert(tx: Executor, record: NewTransaction): Promise<TransactionRow> {
    const [row] = await tx.insert(transactions).values(record).returning();
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
    const [row] = await this.db.select({ n: count() }).from(transactions);
    return row?.n ?? 0;
  }
}
