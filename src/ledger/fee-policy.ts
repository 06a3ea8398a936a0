import type { LedgerApi } from '../clients/ledger-api';

/** The network's minimum fee per operation (Stellar's base fee): no bid may be lower. */
export const BASE_FEE_STROOPS = 100n;

/** stellar-core's FEE_MULTIPLIER: how many times a queued transaction's bid per operation its replacement must bid. */
export const REPLACE_BY_FEE_MULTIPLIER = 10n;

export interface FeePolicyOptions {
  /** Which percentile of what recent ledgers charged per operation to bid (Horizon reports p10..p99). */
  percentile: number;
  /** The most the service pays per operation, however busy the network. */
  maxFeeStroops: bigint;
  /** How long one reading of /fee_stats is used before asking again. */
  cacheMs: number;
}

/** A bid per operation, and the latest ledger Horizon had closed when it was made (undefined if unknown). */
export interface Bid {
  perOperation: bigint;
  ledger: number | undefined;
}

/**
 * What the service bids per operation. Stellar charges the lowest fee that got a transaction
 * into the ledger (the base fee when the ledger is not full), never more than the bid, so the bid
 * is what the service accepts to pay: a percentile of what recent ledgers charged, at least the
 * base fee, at most MAX_FEE_STROOPS. An envelope that still waits is bumped (raise), never rebuilt.
 */
export class FeePolicy {
  private cached: { at: number; bid: bigint; ledger: number } | undefined;

  constructor(
    private readonly client: LedgerApi,
    private readonly options: FeePolicyOptions,
  ) {}

  /**
   * The bid for a new envelope; `floor` when that is higher (a queue that refused a lower bid as
   * tx_insufficient_fee: the network's recent charges lag behind the queue it has now).
   */
  async bid(floor = BASE_FEE_STROOPS): Promise<Bid> {
    const network = await this.networkBid();
    return { perOperation: this.capped(max(network.bid, floor)), ledger: network.ledger };
  }

  /**
   * The bid that may replace an envelope waiting in core's queue at `queued` per operation:
   * stellar-core swaps a queued transaction only for a fee bump bidding at least ten times as much
   * per operation (TransactionQueue's canReplaceByFee), so anything less is refused and changes
   * nothing. At least `named` too (the least bid per operation a tx_insufficient_fee refusal
   * named), and at least what the network charges now. Undefined when MAX_FEE_STROOPS is below
   * ten times `queued` or below `named`: no raise the queue would take is allowed, so the envelope
   * waits until the queue drops it and then expires by its bounds.
   */
  async raise(queued: bigint, named = 0n): Promise<Bid | undefined> {
    const needed = max(queued * REPLACE_BY_FEE_MULTIPLIER, named);
    if (needed > this.options.maxFeeStroops) return undefined;
    const network = await this.networkBid();
    return { perOperation: this.capped(max(network.bid, needed)), ledger: network.ledger };
  }

  private capped(bid: bigint): bigint {
    const floor = max(bid, BASE_FEE_STROOPS);
    return floor > this.options.maxFeeStroops ? this.options.maxFeeStroops : floor;
  }

  /** The chosen percentile of fees charged lately; the last reading (or the base fee) when Horizon cannot say. */
  private async networkBid(): Promise<{ bid: bigint; ledger: number | undefined }> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.options.cacheMs) return this.cached;
    try {
      const stats = await this.client.feeStats();
      const charged = stats.feeCharged[`p${this.options.percentile}`] ?? stats.lastLedgerBaseFee;
      this.cached = { at: now, bid: max(charged, stats.lastLedgerBaseFee), ledger: stats.lastLedger };
      return this.cached;
    } catch {
      // The submission that needs this bid will meet the same Horizon and report it; a bid is not worth failing for.
      return { bid: this.cached?.bid ?? BASE_FEE_STROOPS, ledger: undefined };
    }
  }
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
