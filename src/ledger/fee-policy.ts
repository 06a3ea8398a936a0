import type { StellarClient } from '../clients/stellar.client';

/** The network's minimum fee per operation (Stellar's base fee): no bid may be lower. */
export const BASE_FEE_STROOPS = 100n;

export interface FeePolicyOptions {
  /** Which percentile of what recent ledgers charged per operation to bid (Horizon reports p10..p99). */
  percentile: number;
  /** The most the service pays per operation, however busy the network. */
  maxFeeStroops: bigint;
  /** How long one reading of /fee_stats is used before asking again. */
  cacheMs: number;
}

/**
 * What the service bids per operation. Stellar charges the lowest fee that got a transaction
 * into the ledger (the base fee when the ledger is not full), never more than the bid, so the bid
 * is what the service accepts to pay: a percentile of what recent ledgers charged, at least the
 * base fee, at most MAX_FEE_STROOPS. An envelope that still waits is bumped (raise), never rebuilt.
 */
export class FeePolicy {
  private cached: { at: number; bid: bigint } | undefined;

  constructor(
    private readonly client: StellarClient,
    private readonly options: FeePolicyOptions,
  ) {}

  /** The per-operation bid for a new envelope. */
  async bid(): Promise<bigint> {
    return this.capped(await this.networkBid());
  }

  /**
   * The next per-operation bid for an envelope still waiting after `previous`: at least double
   * (one more step of a surge), at least what the network charges now; undefined at the cap.
   */
  async raise(previous: bigint): Promise<bigint | undefined> {
    if (previous >= this.options.maxFeeStroops) return undefined;
    const network = await this.networkBid();
    return this.capped(network > previous * 2n ? network : previous * 2n);
  }

  private capped(bid: bigint): bigint {
    const floor = bid < BASE_FEE_STROOPS ? BASE_FEE_STROOPS : bid;
    return floor > this.options.maxFeeStroops ? this.options.maxFeeStroops : floor;
  }

  /** The chosen percentile of fees charged lately; the last reading (or the base fee) when Horizon cannot say. */
  private async networkBid(): Promise<bigint> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.options.cacheMs) return this.cached.bid;
    try {
      const stats = await this.client.feeStats();
      const charged = stats.feeCharged[`p${this.options.percentile}`] ?? stats.lastLedgerBaseFee;
      const bid = charged > stats.lastLedgerBaseFee ? charged : stats.lastLedgerBaseFee;
      this.cached = { at: now, bid };
      return bid;
    } catch {
      // The submission that needs this bid will meet the same Horizon and report it; a bid is not worth failing for.
      return this.cached?.bid ?? BASE_FEE_STROOPS;
    }
  }
}
