import { STROOPS_PER_UNIT } from './amounts';

/**
 * The token's price in Naira (TOKENS_PER_NAIRA, a decimal text with at most 7 decimals), in
 * integers only: a purchase's tokens and a withdrawal's Naira are computed here and nowhere else.
 */
export class ExchangeRate {
  /** Stroops one Naira buys (TOKENS_PER_NAIRA x 10^7, exact). */
  readonly stroopsPerNaira: bigint;

  constructor(tokensPerNaira: string) {
    const [whole, fraction = ''] = tokensPerNaira.split('.');
    this.stroopsPerNaira = BigInt(whole!) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, '0'));
    if (this.stroopsPerNaira <= 0n) throw new Error('TOKENS_PER_NAIRA must be more than 0');
  }

  /** Tokens a Naira amount in kobo buys: kobo x TOKENS_PER_NAIRA / 100, in stroops, rounded down (the buyer never gets more than paid for). */
  tokensFor(kobo: bigint): bigint {
    return (kobo * this.stroopsPerNaira) / 100n;
  }

  /** Kobo the tokens sell for, or undefined when they are not worth a whole number of kobo (never rounded: money is exact). */
  koboFor(stroops: bigint): bigint | undefined {
    const scaled = stroops * 100n;
    return scaled % this.stroopsPerNaira === 0n ? scaled / this.stroopsPerNaira : undefined;
  }
}
