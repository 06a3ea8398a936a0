import type { Executor } from '../db/client';
import type { WalletRepository, WalletRow } from '../db/repositories/wallet.repository';
import type { WalletCipher } from '../security/wallet-cipher';
import { newWalletKeys } from '../ledger/token-reads';

/**
 * The seam where a new wallet is put on the ledger (create_account plus the token trustline).
 * Signup calls it after the user is saved; what it does, and how long signup waits for it, is the
 * ledger's business. It must never throw: a wallet it cannot activate stays pending.
 */
export interface WalletActivator {
  activate(wallet: { userId: string; publicKey: string }): Promise<void>;
}

export class WalletService {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly cipher: WalletCipher,
  ) {}

  /** Generates a key pair and stores it, the secret sealed, in the caller's transaction. */
  async createFor(tx: Executor, userId: string): Promise<{ publicKey: string }> {
    const keys = newWalletKeys();
    const sealed = this.cipher.seal(keys.secret, keys.publicKey);
    await this.wallets.insert(tx, { userId, publicKey: keys.publicKey, secretCiphertext: sealed.ciphertext, keyId: sealed.keyId });
    return { publicKey: keys.publicKey };
  }

  async findByUserId(userId: string): Promise<WalletRow | undefined> {
    return this.wallets.findByUserId(userId);
  }

  /** The secret seed, opened only for the two responses that show it and for signing. */
  revealSecret(wallet: Pick<WalletRow, 'publicKey' | 'secretCiphertext' | 'keyId'>): string {
    return this.cipher.open({ ciphertext: wallet.secretCiphertext, keyId: wallet.keyId }, wallet.publicKey);
  }

  async keysOf(userId: string): Promise<{ ledgerPublicKey: string; ledgerSecretKey: string } | undefined> {
    const wallet = await this.wallets.findByUserId(userId);
    if (!wallet) return undefined;
    return { ledgerPublicKey: wallet.publicKey, ledgerSecretKey: this.revealSecret(wallet) };
  }
}
