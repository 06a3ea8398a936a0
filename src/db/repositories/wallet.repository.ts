import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { archivedWallets, ledgerEntries, wallets } from '../schema';
import { first } from './rows';

export type WalletRow = typeof wallets.$inferSelect;
export type NewWallet = Pick<WalletRow, 'userId' | 'publicKey' | 'secretCiphertext' | 'keyId'>;

export class WalletRepository {
  // Every transfer reads its sender's wallet and looks its receiver up: built once and prepared on
  // each connection, not built by drizzle and parsed by PostgreSQL per call (issue 37).
  private readonly byUserId;
  private readonly byPublicKey;

  constructor(private readonly db: Database) {
    this.byUserId = db.select().from(wallets).where(eq(wallets.userId, sql.placeholder('userId'))).prepare('wallet_by_user_id');
    this.byPublicKey = db.select().from(wallets).where(eq(wallets.publicKey, sql.placeholder('publicKey'))).prepare('wallet_by_public_key');
  }

  async insert(tx: Executor, wallet: NewWallet): Promise<void> {
    await tx.insert(wallets).values(wallet);
  }

  async findByUserId(userId: string): Promise<WalletRow | undefined> {
    return first(this.byUserId.execute({ userId }));
  }

  async findByPublicKey(publicKey: string): Promise<WalletRow | undefined> {
    return first(this.byPublicKey.execute({ publicKey }));
  }

  /** Pending wallets with no live entry of `activationKind` in the journal (a crash or a final refusal left them). */
  async listPendingUnjournaled(limit: number, activationKind: string): Promise<WalletRow[]> {
    return this.db
      .select()
      .from(wallets)
      .where(
        and(
          eq(wallets.status, 'pending'),
          sql`not exists (select 1 from ${ledgerEntries} e where e.kind = ${activationKind} and e.user_id = ${wallets.userId} and e.status <> 'failed')`,
        ),
      )
      .limit(limit);
  }

  async markActive(userId: string): Promise<void> {
    await this.db
      .update(wallets)
      .set({ status: 'active', activatedAt: new Date() })
      .where(and(eq(wallets.userId, userId), eq(wallets.status, 'pending')));
  }

  /** The sealed key of a wallet, live or archived, by its public key: the journal signs with it. */
  async findSealedKey(publicKey: string): Promise<Pick<WalletRow, 'publicKey' | 'secretCiphertext' | 'keyId'> | undefined> {
    const sealed = { publicKey: wallets.publicKey, secretCiphertext: wallets.secretCiphertext, keyId: wallets.keyId };
    const [live] = await this.db.select(sealed).from(wallets).where(eq(wallets.publicKey, publicKey));
    if (live) return live;
    const [archived] = await this.db
      .select({ publicKey: archivedWallets.publicKey, secretCiphertext: archivedWallets.secretCiphertext, keyId: archivedWallets.keyId })
      .from(archivedWallets)
      .where(eq(archivedWallets.publicKey, publicKey))
      .limit(1);
    return archived;
  }

  /** Every wallet the service holds a key for, live or archived (for the audit). */
  async allPublicKeys(): Promise<string[]> {
    const live = await this.db.select({ publicKey: wallets.publicKey }).from(wallets);
    const archived = await this.db.select({ publicKey: archivedWallets.publicKey }).from(archivedWallets);
    return [...new Set([...live, ...archived].map((w) => w.publicKey))];
  }

  /** The most recently archived wallet of a deleted user. */
  async findArchivedByUserId(userId: string): Promise<{ publicKey: string } | undefined> {
    const newestFirst = desc(archivedWallets.archivedAt);
    return first(this.db.select({ publicKey: archivedWallets.publicKey }).from(archivedWallets).where(eq(archivedWallets.userId, userId)).orderBy(newestFirst).limit(1));
  }

  /** Removes the wallet row and returns it, for archiving in the same transaction. */
  async remove(tx: Executor, userId: string): Promise<WalletRow | undefined> {
    return first(tx.delete(wallets).where(eq(wallets.userId, userId)).returning());
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

/** Their activation's envelope applied: the wallets are active (in the transaction that confirms it). */
export async function walletsActivated(tx: Executor, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx
    .update(wallets)
    .set({ status: 'active', activatedAt: new Date() })
    .where(and(inArray(wallets.userId, userIds), eq(wallets.status, 'pending')));
}
