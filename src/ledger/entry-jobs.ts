import { Keypair, type xdr } from '@stellar/stellar-sdk';
import type { LedgerApi } from '../clients/ledger-api';
import type { EntryRow } from '../db/repositories/journal.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import type { WalletCipher } from '../security/wallet-cipher';
import type { EntryJob, KindContext } from './kinds/entry-kind';
import type { KindRegistry } from './kinds/registry';
import type { JournalAccounts, LedgerAccounts } from './ledger-accounts';

export interface EntryJobsDeps {
  kinds: KindRegistry;
  client: LedgerApi;
  wallets: WalletRepository;
  cipher: WalletCipher;
  accounts: LedgerAccounts;
}

/**
 * What an entry's kind builds its entry and its job with (KindContext), and the job of an entry:
 * the same for a new entry (the journal) and for one the reconciler finishes (its previous
 * envelope can never apply, or its process died before signing one).
 */
export class EntryJobs {
  constructor(private readonly deps: EntryJobsDeps) {}

  context(ledger: JournalAccounts): KindContext {
    return {
      ledger,
      client: this.deps.client,
      walletKey: (publicKey) => this.walletKey(publicKey),
      walletSubmitter: (wallet) => this.deps.accounts.walletSubmitter(ledger, wallet),
    };
  }

  /** The submitter and operations of an entry, as its kind builds them. */
  jobFor(ledger: JournalAccounts, entry: EntryRow, operations?: xdr.Operation[]): Promise<EntryJob> {
    return this.deps.kinds.of(entry.kind).job(entry, this.context(ledger), operations);
  }

  /** A wallet's key pair: the one its submitter holds, else opened from its sealed secret only to sign. */
  private async walletKey(publicKey: string): Promise<Keypair> {
    const held = this.deps.accounts.heldWalletKey(publicKey);
    if (held) return held;
    const sealed = await this.deps.wallets.findSealedKey(publicKey);
    if (!sealed) throw new Error(`no key for wallet ${publicKey}`);
    return Keypair.fromSecret(this.deps.cipher.open({ ciphertext: sealed.secretCiphertext, keyId: sealed.keyId }, sealed.publicKey));
  }
}
