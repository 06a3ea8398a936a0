import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../client';
import { payoutAccounts } from '../schema';
import { first } from './rows';

export type PayoutAccountRow = typeof payoutAccounts.$inferSelect;
export type NewPayoutAccount = Omit<typeof payoutAccounts.$inferInsert, 'id' | 'createdAt' | 'deletedAt'>;

/** A user's bank accounts for payouts; a deleted one is kept (withdrawals name it) but no longer listed or usable. */
export class PayoutAccountRepository {
  constructor(private readonly db: Database) {}

  /** Adds the account, or answers the user's live one for the same bank and number (adding it twice is one account). */
  async add(row: NewPayoutAccount): Promise<PayoutAccountRow> {
    const [inserted] = await this.db.insert(payoutAccounts).values(row).onConflictDoNothing().returning();
    if (inserted) return inserted;
    const live = await this.findLive(row.userId, row.bankCode, row.accountNumber);
    if (!live) throw new Error('a payout account conflicted with one that is not there');
    return live;
  }

  private findLive(userId: string, bankCode: string, accountNumber: string): Promise<PayoutAccountRow | undefined> {
    return first(
      this.db
        .select()
        .from(payoutAccounts)
        .where(and(eq(payoutAccounts.userId, userId), eq(payoutAccounts.bankCode, bankCode), eq(payoutAccounts.accountNumber, accountNumber), isNull(payoutAccounts.deletedAt))),
    );
  }

  /** The user's live account with this id. */
  findOwn(userId: string, id: string): Promise<PayoutAccountRow | undefined> {
    return first(this.db.select().from(payoutAccounts).where(and(eq(payoutAccounts.id, id), eq(payoutAccounts.userId, userId), isNull(payoutAccounts.deletedAt))));
  }

  listOwn(userId: string): Promise<PayoutAccountRow[]> {
    return this.db.select().from(payoutAccounts).where(and(eq(payoutAccounts.userId, userId), isNull(payoutAccounts.deletedAt))).orderBy(desc(payoutAccounts.createdAt));
  }

  /** True when the user's live account was deleted now. */
  async deleteOwn(userId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .update(payoutAccounts)
      .set({ deletedAt: new Date() })
      .where(and(eq(payoutAccounts.id, id), eq(payoutAccounts.userId, userId), isNull(payoutAccounts.deletedAt)))
      .returning({ id: payoutAccounts.id });
    return rows.length > 0;
  }
}
