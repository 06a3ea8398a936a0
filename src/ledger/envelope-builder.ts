import { Account, Keypair, StrKey, TimeoutInfinite, TransactionBuilder, xdr, type FeeBumpTransaction } from '@stellar/stellar-sdk';
import { LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import { reach } from './edge-failure';
import type { LedgerApi } from '../clients/ledger-api';
import type { FeeBumper } from './fee-bumper';
import type { LedgerJob } from './kinds/entry-kind';
import { signEnvelope } from './envelope-signing';

/** The inner transaction bids nothing: its fee bump pays (CAP-15), so its source needs no XLM. */
const INNER_FEE = '0';

/** One sequence of transactions: its own account (source or channel) and cached sequence. */
export interface Lane {
  keypair: Keypair;
  account: Account | undefined;
  busy: boolean;
  /** The last envelope built on this lane: a rebuild at the same sequence number must differ from it. */
  lastBuilt?: { sequence: bigint; maxLedger: number };
}

/** What building a lane's next envelope came to. */
export type Build =
  | { kind: 'built'; envelope: FeeBumpTransaction; bidLedger: number | undefined }
  /** The ledger API could not be read (LedgerUnavailableError): a later round may read it. */
  | { kind: 'unreachable'; error: LedgerUnavailableError }
  /**
   * No round can build it: the lane's account is not on the network (tx_no_source_account), or a
   * read of the ledger API failed otherwise than by being unreachable.
   */
  | { kind: 'unbuildable'; error: Error };

/**
 * Builds a source account's envelopes: the signed inner transaction of a lane's next sequence
 * number, carrying a batch's operations, wrapped in the service's fee bump. Which jobs go together
 * and what becomes of the envelope is the AccountSubmitter's.
 */
export class EnvelopeBuilder {
  private readonly publicKey: string;

  constructor(
    private readonly options: { client: LedgerApi; bumper: FeeBumper; source: Keypair; txTimeoutLedgers: number },
    /** Channel accounts give the sequence numbers: the source account acts only through its operations. */
    private readonly usesChannels: boolean,
  ) {
    this.publicKey = options.source.publicKey();
  }

  /**
   * The signed inner transaction of the lane's next sequence number, wrapped in the service's fee
   * bump. Its reads of the ledger API (the lane's account, the latest ledger) answer their failure
   * as a value; what follows them only computes and signs (the fee bid never fails: FeePolicy).
   */
  async build(lane: Lane, jobs: LedgerJob[], bidFloor: bigint | undefined, windowFactor = 1): Promise<Build> {
    const laneKey = lane.keypair.publicKey();
    if (!lane.account) {
      const loaded = await reach(() => this.options.client.loadAccount(laneKey));
      if (!loaded.reached) return unread(loaded.error);
      if (!loaded.value) return { kind: 'unbuildable', error: new LedgerRejectedError('tx_no_source_account', []) };
      lane.account = new Account(laneKey, loaded.value.sequence);
    }
    const latest = await reach(() => this.options.client.latestLedger());
    if (!latest.reached) return unread(latest.error);
    const { minLedger, maxLedger } = this.ledgerBoundsFor(lane, latest.value.sequence, this.options.txTimeoutLedgers * windowFactor);
    const builder = new TransactionBuilder(lane.account, {
      fee: INNER_FEE,
      networkPassphrase: this.options.client.networkPassphrase,
    })
      .setTimeout(TimeoutInfinite)
      .setLedgerbounds(minLedger, maxLedger);
    // With a channel as the transaction's source, operations without their own source act for the source account.
    const ownSource = this.usesChannels ? xdr.MuxedAccount.keyTypeEd25519(Keypair.fromPublicKey(this.publicKey).rawPublicKey()) : undefined;
    // The source account signs only when one of its operations is in the transaction: Stellar
    // refuses signatures nobody needs (tx_bad_auth_extra), e.g. a batch of trustlines alone.
    let sourceActs = !this.usesChannels;
    for (const job of jobs) {
      for (const op of job.operations) {
        if (ownSource && !op.sourceAccount()) op.sourceAccount(ownSource);
        const opSource = op.sourceAccount();
        if (opSource && StrKey.encodeEd25519PublicKey(opSource.ed25519()) === this.publicKey) sourceActs = true;
        builder.addOperation(op);
      }
    }
    const tx = builder.build();
    const signers = new Map<string, Keypair>([[laneKey, lane.keypair]]);
    if (sourceActs) signers.set(this.publicKey, this.options.source);
    for (const job of jobs) for (const s of job.signers ?? []) signers.set(s.publicKey(), s);
    signEnvelope(tx, ...signers.values());
    return { kind: 'built', ...(await this.options.bumper.wrap(tx, bidFloor)) };
  }

  /**
   * The ledgers the envelope may enter: from `minLedger`, the ledger the API has closed now (read
   * before signing: the envelope cannot enter any ledger up to it), to `windowLedgers` after it
   * (maxLedger is exclusive). Ledger numbers, not the process's clock: a process whose clock is
   * wrong can neither expire its envelopes early nor have them judged early. A refused envelope's
   * operations are rebuilt at the same sequence number with an inner fee of 0 whatever the fee
   * bump bids: built within the same ledger it would be the very transaction the journal already
   * holds as failed, so a later maxLedger makes it a new one.
   */
  private ledgerBoundsFor(lane: Lane, minLedger: number, windowLedgers: number): { minLedger: number; maxLedger: number } {
    const sequence = BigInt(lane.account!.sequenceNumber()) + 1n;
    let maxLedger = minLedger + 1 + windowLedgers;
    if (lane.lastBuilt?.sequence === sequence && maxLedger <= lane.lastBuilt.maxLedger) maxLedger = lane.lastBuilt.maxLedger + 1;
    lane.lastBuilt = { sequence, maxLedger };
    return { minLedger, maxLedger };
  }
}

/** A read of the ledger API that failed: unreachable (a later round may read it) or not. */
function unread(error: Error): Build {
  return error instanceof LedgerUnavailableError ? { kind: 'unreachable', error } : { kind: 'unbuildable', error };
}
