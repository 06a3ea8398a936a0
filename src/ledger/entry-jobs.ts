import { AuthClawbackEnabledFlag, AuthRevocableFlag, Keypair, Operation, type Asset, type AuthFlag, type xdr } from '@stellar/stellar-sdk';
import { balanceOf } from '../clients/ledger-api';
import type { EntryRow } from '../db/repositories/journal.repository';
import { formatStroops } from '../domain/amounts';
import type { AccountSubmitter } from './account-submitter';
import { channelCreation, channelKeyOf, channelRemoval } from './channel-accounts';
import type { LedgerOptions } from './journal-options';
import { sponsored } from './sponsorship';
import type { LedgerJob } from './ledger-job';
import type { LedgerAccounts, JournalAccounts } from './ledger-accounts';

/** An entry's operations and the submitter (its account's one queue) that signs and sends them. */
export interface EntryJob {
  submitter: AccountSubmitter;
  job: LedgerJob;
}

/** What the journal already decided for a new entry, so it is not asked of the network again: an activation's operations. */
export interface KnownForJob {
  operations?: xdr.Operation[];
}

/**
 * Which account's submitter carries an entry and what it puts on the network, built from the
 * entry alone: the same for a new entry and for one the reconciler finishes (its previous envelope
 * can never apply, or its process died before signing one).
 */
export class EntryJobs {
  constructor(
    private readonly options: Pick<LedgerOptions, 'client' | 'wallets' | 'cipher'>,
    private readonly accounts: LedgerAccounts,
  ) {}

  /** The submitter and operations of an entry. */
  async jobFor(ledger: JournalAccounts, entry: EntryRow, known: KnownForJob = {}): Promise<EntryJob> {
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
        if (known.operations) return { submitter: ledger.distribution, job: { entryId: entry.id, kind: entry.kind, operations: known.operations, signers: [wallet] } };
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
  private transferJob(ledger: JournalAccounts, wallet: Keypair, row: EntryRow): EntryJob {
    return {
      submitter: this.accounts.walletSubmitter(ledger, wallet),
      job: { entryId: row.id, kind: row.kind, operations: [tokenPayment(ledger.asset, row.toPublicKey, row.amountStroops)] },
    };
  }

  /** A mint goes out in the distribution account's batches. */
  private distributionJob(ledger: JournalAccounts, row: EntryRow): EntryJob {
    return { submitter: ledger.distribution, job: { entryId: row.id, kind: row.kind, operations: [tokenPayment(ledger.asset, row.toPublicKey, row.amountStroops)] } };
  }

  /** A clawback goes out in the issuer's batches: only the issuer may take its token back. */
  private clawbackJob(ledger: JournalAccounts, row: EntryRow): EntryJob {
    return { submitter: ledger.issuer, job: { entryId: row.id, kind: row.kind, operations: [clawbackOperation(ledger.asset, row.fromPublicKey, row.amountStroops)] } };
  }

  private async issueJob(ledger: JournalAccounts, stroops: bigint): Promise<Omit<LedgerJob, 'entryId'>> {
    const distribution = await this.options.client.loadAccount(ledger.keys.distribution.publicKey(), ledger.asset);
    const trusts = distribution !== undefined && balanceOf(distribution, ledger.asset) !== undefined;
    return { kind: 'issue', ...issueOperations(ledger.asset, ledger.keys.distribution, stroops, trusts) };
  }

  async walletOnLedger(ledger: JournalAccounts, wallet: string): Promise<WalletOnLedger> {
    const account = await this.options.client.loadAccount(wallet, ledger.asset);
    if (!account) return 'missing';
    return balanceOf(account, ledger.asset) ? 'ready' : 'untrusting';
  }

  /** A wallet's key pair, opened from its sealed secret only to sign: no use case holds a wallet's secret. */
  private async walletKey(publicKey: string): Promise<Keypair> {
    const sealed = await this.options.wallets.findSealedKey(publicKey);
    if (!sealed) throw new Error(`no key for wallet ${publicKey}`);
    return Keypair.fromSecret(this.options.cipher.open({ ciphertext: sealed.secretCiphertext, keyId: sealed.keyId }, sealed.publicKey));
  }
}

// What each kind of entry puts on the network. Built the same way for the first envelope and for
// any later one (the reconciler's, through EntryJobs.jobFor), so an entry means the same
// operations whichever envelope carries it.

/** A token payment (transfer or mint): from the envelope's acting account to `to`. */
export function tokenPayment(asset: Asset, to: string, stroops: bigint): xdr.Operation {
  return Operation.payment({ destination: to, asset, amount: formatStroops(stroops) });
}

/** The issuer takes tokens back from a wallet (CAP-35): they are burnt, not moved. */
export function clawbackOperation(asset: Asset, from: string, stroops: bigint): xdr.Operation {
  return Operation.clawback({ asset, from, amount: formatStroops(stroops) });
}

/**
 * The issuer's flags that let it take its token back: AUTH_REVOCABLE (which clawback requires)
 * and AUTH_CLAWBACK_ENABLED. Only trustlines created after them can be clawed back.
 */
export function clawbackFlagsOperation(issuer: string): xdr.Operation {
  return Operation.setOptions({ setFlags: (AuthRevocableFlag | AuthClawbackEnabledFlag) as AuthFlag, source: issuer });
}

/** New tokens from the issuer to the distribution account, which first trusts the token if it does not yet. */
export function issueOperations(asset: Asset, distribution: Keypair, stroops: bigint, trusts: boolean): { operations: xdr.Operation[]; signers: Keypair[] } {
  const distributionKey = distribution.publicKey();
  const operations = trusts ? [] : [Operation.changeTrust({ asset, source: distributionKey })];
  operations.push(Operation.payment({ destination: distributionKey, asset, amount: formatStroops(stroops) }));
  return { operations, signers: trusts ? [] : [distribution] };
}

/** Where a wallet stands on the ledger, as far as its activation is concerned. */
export type WalletOnLedger = 'missing' | 'untrusting' | 'ready';

/**
 * A wallet's account and its token trustline, their reserves sponsored by `sponsor` (the
 * distribution account): the wallet holds only `startingXlm` (0 by default), nothing a scripted
 * signup could withdraw, and never pays a fee (its transfers are fee-bumped).
 */
export function activationOperations(asset: Asset, sponsor: string, wallet: string, state: WalletOnLedger, startingXlm: string): xdr.Operation[] {
  const trust = Operation.changeTrust({ asset, source: wallet });
  if (state === 'missing') {
    const create = Operation.createAccount({ destination: wallet, startingBalance: startingXlm, source: sponsor });
    return sponsored(sponsor, wallet, [create, trust]);
  }
  return state === 'untrusting' ? sponsored(sponsor, wallet, [trust]) : [];
}
