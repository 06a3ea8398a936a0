import { FeeBumpTransaction, TransactionBuilder, type Keypair, type Transaction } from '@stellar/stellar-sdk';
import type { FeePolicy } from './fee-policy';

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

  /** The same inner transaction at a higher bid; undefined when the bid is already at the cap. */
  async raise(current: Transaction | FeeBumpTransaction): Promise<FeeBumpTransaction | undefined> {
    const next = await this.policy.raise(bidPerOperation(current));
    return next === undefined ? undefined : this.build(innerOf(current), next.perOperation);
  }

  private build(inner: Transaction, perOperation: bigint): FeeBumpTransaction {
    const bump = TransactionBuilder.buildFeeBumpTransaction(this.feeSource, perOperation.toString(), inner, this.networkPassphrase);
    bump.sign(this.feeSource);
    return bump;
  }
}

/** The bid per operation an envelope makes (a fee bump counts itself as one more operation). */
export function bidPerOperation(envelope: Transaction | FeeBumpTransaction): bigint {
  const operations = BigInt(innerOf(envelope).operations.length + (envelope instanceof FeeBumpTransaction ? 1 : 0));
  return BigInt(envelope.fee) / operations;
}
