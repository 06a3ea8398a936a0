import { Keypair, Operation } from '@stellar/stellar-sdk';
import { balanceOf } from '../clients/ledger-api';
import type { EntryRow } from '../db/repositories/journal.repository';
import { formatStroops } from '../domain/amounts';
import type { AccountSubmitter } from './account-submitter';
import { channelCreation, channelKeyOf, channelRemoval } from './channel-accounts';
import { activationOperations, clawbackFlagsOperation, clawbackOperation, issueOperations, tokenPayment, type WalletOnLedger } from './entry-operations';
import type { LedgerJournalOptions } from './journal-options';
import type { LedgerJob } from './ledger-job';
import type { LedgerSubmitters, ReadyLedger } from './ledger-submitters';

/** An entry's operations and the submitter (its account's one queue) that signs and sends them. */
export interface EntryJob {
  submitter: AccountSubmitter;
  job: LedgerJob;
}

/**
 * Which account's submitter carries an entry and what it puts on the ledger: for a new entry, and
 * rebuilt from what the journal holds for an entry the reconciler finishes (its previous envelope
 * can never apply, or its process died before signing one).
 */
export class EntryJobs {
  constructor(
    private readonly options: Pick<LedgerJournalOptions, 'client' | 'wallets' | 'cipher'>,
    private readonly submitters: LedgerSubmitters,
  ) {}

  /** The operations of an entry, rebuilt from what the journal holds. */
  async jobFor(ledger: ReadyLedger, entry: EntryRow): Promise<EntryJob> {
    switch (entry.kind) {
      case 'transfer':
        return this.transferJob(ledger, await this.walletKey(entry.fromPublicKey), entry);
      case 'payment_mint':
      case 'admin_mint':
        return this.distributionJob(ledger, entry);
      case 'issue':
        return { submitter: ledger.issuer, job: { ...(await this.issueJob(ledger, entry.amountStroops)), entryId: entry.id } };
      case 'activation': {
        const wallet = await this.walletKey(entry.toPublicKey);
        const sponsor = ledger.keys.distribution.publicKey();
        const state = await this.walletOnLedger(ledger, wallet.publicKey());
        // An activation found done on the ledger still needs an envelope to settle its entry: the trustline is re-asserted.
        const operations = activationOperations(ledger.asset, sponsor, wallet.publicKey(), state === 'ready' ? 'untrusting' : state, formatStroops(entry.amountStroops));
        return { submitter: ledger.distribution, job: { entryId: entry.id, kind: entry.kind, operations, signers: [wallet] } };
      }
      case 'channel_funding':
      case 'channel_merge': {
        const channel = channelKeyOf(ledger.keys.distribution, entry.toPublicKey);
        if (!channel) throw new Error(`${entry.toPublicKey} is not one of the distribution account's channels`);
        const operations = entry.kind === 'channel_funding' ? channelCreation(ledger.keys, channel) : channelRemoval(ledger.keys, channel);
        return { submitter: ledger.distributionDirect, job: { entryId: entry.id, kind: entry.kind, operations, signers: [channel] } };
      }
      case 'clawback':
        return this.clawbackJob(ledger, entry);
      case 'issuer_flags':
        return {
          submitter: ledger.distributionDirect,
          job: { entryId: entry.id, kind: entry.kind, operations: [clawbackFlagsOperation(ledger.keys.issuer.publicKey())], signers: [ledger.keys.issuer] },
        };
      case 'trustline':
        return { submitter: ledger.distributionDirect, job: { entryId: entry.id, kind: entry.kind, operations: [Operation.changeTrust({ asset: ledger.asset })] } };
    }
  }

  /** A transfer goes out through its wallet's own submitter. */
  transferJob(ledger: ReadyLedger, wallet: Keypair, row: EntryRow): EntryJob {
    return {
      submitter: this.submitters.walletSubmitter(ledger, wallet),
      job: { entryId: row.id, kind: row.kind, operations: [tokenPayment(ledger.asset, row.toPublicKey, row.amountStroops)] },
    };
  }

  /** A mint goes out in the distribution account's batches. */
  distributionJob(ledger: ReadyLedger, row: EntryRow): EntryJob {
    return { submitter: ledger.distribution, job: { entryId: row.id, kind: row.kind, operations: [tokenPayment(ledger.asset, row.toPublicKey, row.amountStroops)] } };
  }

  /** A clawback goes out in the issuer's batches: only the issuer may take its token back. */
  clawbackJob(ledger: ReadyLedger, row: EntryRow): EntryJob {
    return { submitter: ledger.issuer, job: { entryId: row.id, kind: row.kind, operations: [clawbackOperation(ledger.asset, row.fromPublicKey, row.amountStroops)] } };
  }

  async issueJob(ledger: ReadyLedger, stroops: bigint): Promise<Omit<LedgerJob, 'entryId'>> {
    const distribution = await this.options.client.loadAccount(ledger.keys.distribution.publicKey(), ledger.asset);
    const trusts = distribution !== undefined && balanceOf(distribution, ledger.asset) !== undefined;
    return { kind: 'issue', ...issueOperations(ledger.asset, ledger.keys.distribution, stroops, trusts) };
  }

  async walletOnLedger(ledger: ReadyLedger, wallet: string): Promise<WalletOnLedger> {
    const account = await this.options.client.loadAccount(wallet, ledger.asset);
    if (!account) return 'missing';
    return balanceOf(account, ledger.asset) ? 'ready' : 'untrusting';
  }

  /** A wallet's key pair, opened from its sealed secret. */
  private async walletKey(publicKey: string): Promise<Keypair> {
    const sealed = await this.options.wallets.findSealedKey(publicKey);
    if (!sealed) throw new Error(`no key for wallet ${publicKey}`);
    return Keypair.fromSecret(this.options.cipher.open({ ciphertext: sealed.secretCiphertext, keyId: sealed.keyId }, sealed.publicKey));
  }
}
