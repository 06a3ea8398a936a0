import { Account, Keypair, StrKey, TimeoutInfinite, TransactionBuilder, xdr, type FeeBumpTransaction } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from '../clients/ledger-errors';
import type { AccountSubmitterOptions } from './submitter-options';
import type { LedgerJob } from './ledger-job';

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

/**
 * Builds a source account's envelopes: the signed inner transaction of a lane's next sequence
 * number, carrying a batch's operations, wrapped in the service's fee bump. Which jobs go together
 * and what becomes of the envelope is the AccountSubmitter's.
 */
export class EnvelopeBuilder {
  private readonly publicKey: string;

  constructor(
    private readonly options: Pick<AccountSubmitterOptions, 'client' | 'bumper' | 'source' | 'txTimeoutLedgers'>,
    /** Channel accounts give the sequence numbers: the source account acts only through its operations. */
    private readonly usesChannels: boolean,
  ) {
    this.publicKey = options.source.publicKey();
  }

  /** The signed inner transaction of the lane's next sequence number, wrapped in the service's fee bump. */
  async build(lane: Lane, jobs: LedgerJob[], bidFloor: bigint | undefined): Promise<{ envelope: FeeBumpTransaction; bidLedger: number | undefined }> {
    const laneKey = lane.keypair.publicKey();
    if (!lane.account) {
      const loaded = await this.options.client.loadAccount(laneKey);
      if (!loaded) throw new LedgerRejectedError('tx_no_source_account', []);
      lane.account = new Account(laneKey, loaded.sequence);
    }
    const { minLedger, maxLedger } = await this.ledgerBoundsFor(lane);
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
    tx.sign(...signers.values());
    return this.options.bumper.wrap(tx, bidFloor);
  }

  /**
   * The ledgers the envelope may enter: from the ledger the API has closed now (read before
   * signing: the envelope cannot enter any ledger up to it) to txTimeoutLedgers after it
   * (maxLedger is exclusive). Ledger numbers, not the process's clock: a process whose clock is
   * wrong can neither expire its envelopes early nor have them judged early. A refused envelope's
   * operations are rebuilt at the same sequence number with an inner fee of 0 whatever the fee
   * bump bids: built within the same ledger it would be the very transaction the journal already
   * holds as failed, so a later maxLedger makes it a new one.
   */
  private async ledgerBoundsFor(lane: Lane): Promise<{ minLedger: number; maxLedger: number }> {
    const minLedger = (await this.options.client.latestLedger()).sequence;
    const sequence = BigInt(lane.account!.sequenceNumber()) + 1n;
    let maxLedger = minLedger + 1 + this.options.txTimeoutLedgers;
    if (lane.lastBuilt?.sequence === sequence && maxLedger <= lane.lastBuilt.maxLedger) maxLedger = lane.lastBuilt.maxLedger + 1;
    lane.lastBuilt = { sequence, maxLedger };
    return { minLedger, maxLedger };
  }
}
