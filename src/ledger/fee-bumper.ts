import { FeeBumpTransaction, TransactionBuilder, type Keypair, type Transaction } from '@stellar/stellar-sdk';
import type { LedgerRejectedError } from '../clients/ledger-errors';
import type { FeePolicy } from './fee-policy';
import { signEnvelope } from './envelope-signing';

/** The inner transaction of an envelope (itself when it is not a fee bump). */
export function innerOf(envelope: Transaction | FeeBumpTransaction): Transaction {
  return envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
}

/**
 * Wraps every signed transaction of the service in a fee bump paid by one fee source (the
 * distribution account, CAP-15): the accounts whose sequence numbers the transactions use (user
 * wallets, channels, the issuer) never need XLM for fees. Raising the bid of a waiting envelope
 * wraps the same inner transaction again: same inner hash, same sequence number, so at most one
 * of its fee bumps can ever apply.
 */
export class FeeBumper {
  constructor(
    private readonly feeSource: Keypair,
    private readonly policy: FeePolicy,
    private readonly networkPassphrase: string,
  ) {}

  /**
   * A new envelope: the inner transaction at today's bid (at least `floor` per operation), with
   * the ledger Horizon had closed when the bid was made: bumps count the ledgers it waits from it.
   */
  async wrap(inner: Transaction, floor?: bigint): Promise<{ envelope: FeeBumpTransaction; bidLedger: number | undefined }> {
    const bid = await this.policy.bid(floor);
    return { envelope: this.build(inner, bid.perOperation), bidLedger: bid.ledger };
  }

  /**
   * The same inner transaction bidding enough to replace `queued` in core's queue: ten times its
   * bid per operation, at least `named` per operation (what a refusal named); undefined when
   * MAX_FEE_STROOPS does not allow that (see FeePolicy.raise).
   */
  async raise(queued: Transaction | FeeBumpTransaction, named?: bigint): Promise<FeeBumpTransaction | undefined> {
    // rounded up: ten times it is then at least ten times the queued fee over its operations, core's comparison
    const next = await this.policy.raise(perOperationCovering(queued, BigInt(queued.fee)), named);
    return next === undefined ? undefined : this.build(innerOf(queued), next.perOperation);
  }

  private build(inner: Transaction, perOperation: bigint): FeeBumpTransaction {
    const bump = TransactionBuilder.buildFeeBumpTransaction(this.feeSource, perOperation.toString(), inner, this.networkPassphrase);
    signEnvelope(bump, this.feeSource);
    return bump;
  }
}

/** The bid per operation an envelope makes (a fee bump counts itself as one more operation), rounded down as core ranks bids. */
export function bidPerOperation(envelope: Transaction | FeeBumpTransaction): bigint {
  return BigInt(envelope.fee) / operationsOf(envelope);
}

/**
 * The least bid per operation a tx_insufficient_fee refusal of `refused` names: its feeCharged is
 * the least fee core would take for that envelope, spread over its operations and rounded up.
 * Undefined for other refusals, or when the adapter could not read the fee.
 */
export function bidNamedBy(refusal: LedgerRejectedError, refused: Transaction | FeeBumpTransaction): bigint | undefined {
  if (refusal.transactionCode !== 'tx_insufficient_fee' || refusal.feeCharged === undefined) return undefined;
  return perOperationCovering(refused, refusal.feeCharged);
}

/** Operations an envelope bids for: a fee bump counts itself as one more. */
function operationsOf(envelope: Transaction | FeeBumpTransaction): bigint {
  const operations = innerOf(envelope).operations.length + (envelope instanceof FeeBumpTransaction ? 1 : 0);
  return BigInt(Math.max(1, operations));
}

/** The least bid per operation that pays at least `fee` for `envelope`'s operations. */
function perOperationCovering(envelope: Transaction | FeeBumpTransaction, fee: bigint): bigint {
  const operations = operationsOf(envelope);
  return (fee + operations - 1n) / operations;
}
