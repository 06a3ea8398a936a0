import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { passwordResetTokens } from '../schema';

export class PasswordResetRepository {
  constructor(private readonly db: Database) {}

  async record(id: string, userId: string, expiresAt: Date): Promise<void> {
    await this.db.insert(passwordResetTokens).values({ id, userId, expiresAt });
  }

  /** Forgets an unused reset token (its e-mail could not be sent). */
  async discard(id: string): Promise<void> {
    await this.db.delete(passwordResetTokens).where(and(eq(passwordResetTokens.id, id), isNull(passwordResetTokens.usedAt)));
  }

  /**
   * Consumes a reset token with one conditional update, so two requests racing with the same
   * token cannot both succeed. Returns false when it was unknown, used or expired.
   */
  async consume(tx: Executor, id: string, userId: string): Promise<boolean> {
    const rows = await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(passwordResetTokens.id, id),
          eq(passwordResetTokens.userId, userId),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, new Date()),
        ),
      )
      .returning({ id: passwordResetTokens.id });
    return rows.length > 0;
  }

  /** A password change voids every reset link still outstanding for the account. */
  async voidAllFor(tx: Executor, userId: string): Promise<void> {
    await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
  }
}
