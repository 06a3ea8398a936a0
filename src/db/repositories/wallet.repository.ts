import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { archivedWallets, ledgerEntries, wallets } from '../schema';
import { heldStroopsOf } from './reversal.repository';
import { first } from './rows';

export type WalletRow = typeof wallets.$inferSelect;
export type NewWallet = Pick<WalletRow, 'userId' | 'publicKey' | 'secretCiphertext' | 'keyId'>;

/** What a transfer reads before it is written: both wallets when the service holds them, and the sender's held tokens. */
export interface TransferParties {
  sender: WalletRow | undefined;
  /** The receiver's wallet when it is one of the service's (undefined: an outside account, or none). */
  receiver: WalletRow | undefined;
  /** The sender's tokens under an open chargeback (reversal.repository.ts). */
  heldStroops: bigint;
}

export class WalletRepository {
  // Every transfer makes this read: one statement, built once and prepared on each connection, not
  // three built by drizzle and parsed by PostgreSQL per call (issue 37).
  private readonly parties;
  /** A user's wallet: every mint of a verified payment reads it. */
  private readonly byUser;

  constructor(private readonly db: Database) {
    const userId = sql.placeholder('userId');
    this.parties = db
      .select({ wallet: wallets, held: heldStroopsOf(userId) })
      .from(wallets)
      .where(or(eq(wallets.userId, userId), eq(wallets.publicKey, sql.placeholder('receiver'))))
      .prepare('wallet_transfer_parties');
    this.byUser = db.select().from(wallets).where(eq(wallets.userId, userId)).prepare('wallet_by_user');
  }

  /** A transfer's parties in one round trip: at most two rows (one when the receiver is the sender's own wallet). */
  async transferParties(userId: string, receiverPublicKey: string): Promise<TransferParties> {
    const rows = await this.parties.execute({ userId, receiver: receiverPublicKey });
    const sender = rows.find((r) => r.wallet.userId === userId);
    return {
      sender: sender?.wallet,
      receiver: rows.find((r) => r.wallet.publicKey === receiverPublicKey)?.wallet,
      // Every row carries the same sum; with no row the sender has no wallet and the transfer stops there.
      heldStroops: BigInt(rows[0]?.held ?? '0'),
    };
  }

  async insert(tx: Executor, wallet: NewWallet): Promise<void> {
    await tx.insert(wallets).values(wallet);
  }

  async findByUserId(userId: string): Promise<WalletRow | undefined> {
    const [row] = await this.byUser.execute({ userId });
    return row;
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
