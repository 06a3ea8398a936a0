import { and, desc, eq } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { archivedWallets, wallets } from '../schema';

export type WalletRow = typeof wallets.$inferSelect;
export type NewWallet = Pick<WalletRow, 'userId' | 'publicKey' | 'secretCiphertext' | 'keyId'>;

export class WalletRepository {
  constructor(private readonly db: Database) {}

  async insert(tx: Executor, wallet: NewWallet): Promise<void> {
    await tx.insert(wallets).values(wallet);
  }

  async findByUserId(userId: string): Promise<WalletRow | undefined> {
    const [row] = await this.db.select().from(wallets).where(eq(wallets.userId, userId));
    return row;
  }

  async findByPublicKey(publicKey: string): Promise<WalletRow | undefined> {
    const [row] = await this.db.select().from(wallets).where(eq(wallets.publicKey, publicKey));
    return row;
  }

  async listPending(limit: number): Promise<WalletRow[]> {
    return this.db.select().from(wallets).where(eq(wallets.status, 'pending')).limit(limit);
  }

  async markActive(userId: string): Promise<void> {
    await this.db
      .update(wallets)
      .set({ status: 'active', activatedAt: new Date() })
      .where(and(eq(wallets.userId, userId), eq(wallets.status, 'pending')));
  }

  /** The most recently archived wallet of a deleted user. */
  async findArchivedByUserId(userId: string): Promise<{ publicKey: string } | undefined> {
    const [row] = await this.db
      .select({ publicKey: archivedWallets.publicKey })
      .from(archivedWallets)
      .where(eq(archivedWallets.userId, userId))
      .orderBy(desc(archivedWallets.archivedAt))
      .limit(1);
    return row;
  }

  /** Removes the wallet row and returns it, for archiving in the same transaction. */
  async remove(tx: Executor, userId: string): Promise<WalletRow | undefined> {
    const [row] = await tx.delete(wallets).where(eq(wallets.userId, userId)).returning();
    return row;
  }

  /** Keeps a deleted user's wallet key, so tokens on the ledger are never made unreachable. */
  async archive(tx: Executor, wallet: WalletRow, owner: { username: string; email: string }): Promise<void> {
    await tx.insert(archivedWallets).values({
      userId: wallet.userId,
      username: owner.username,
      email: owner.email,
      publicKey: wallet.publicKey,
      secretCiphertext: wallet.secretCiphertext,
      keyId: wallet.keyId,
    });
  }
}
