import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import type { Envelope } from './apply-transaction';

/**
 * What a transaction offers to pay, the way stellar-core ranks it: a fee per operation. A fee bump
 * counts one operation more than its inner transaction and bids with its outer fee. Rates are kept
 * as a fraction and compared by cross-multiplication, never divided into a float.
 */
export interface FeeBid {
  fee: bigint;
  /** At least 1, as core's getFee has it (a transaction without operations is invalid anyway). */
  operations: bigint;
}

/** stellar-core's FEE_MULTIPLIER: a replacement for a queued transaction must bid at least this many times more. */
export const REPLACE_BY_FEE_MULTIPLIER = 10n;

export function feeBidOf(envelope: Envelope): FeeBid {
  const operations =
    envelope instanceof FeeBumpTransaction ? envelope.innerTransaction.operations.length + 1 : envelope.operations.length;
  return { fee: BigInt(envelope.fee), operations: BigInt(Math.max(1, operations)) };
}

/** Negative, zero or positive as `a` bids less than, as much as or more than `b` per operation (core's feeRate3WayCompare). */
export function compareBids(a: FeeBid, b: FeeBid): number {
  const left = a.fee * b.operations;
  const right = b.fee * a.operations;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The bid per operation, rounded down as core does since protocol 20: the candidate surge base fee. */
export function perOperation(bid: FeeBid): bigint {
  return bid.fee / bid.operations;
}

/** What a transaction in a ledger pays: the ledger's base fee per operation, never more than it bid. */
export function chargedFee(bid: FeeBid, baseFee: bigint): bigint {
  const atBaseFee = baseFee * bid.operations;
  return atBaseFee < bid.fee ? atBaseFee : bid.fee;
}

/**
 * Core's canReplaceByFee: a new envelope for a queued sequence number must bid at least 10x the
 * queued one per operation. Returns undefined if it does, else the smallest fee that would have.
 */
export function replacementShortfall(replacement: FeeBid, queued: FeeBid): bigint | undefined {
  const needed = REPLACE_BY_FEE_MULTIPLIER * queued.fee * replacement.operations;
  if (replacement.fee * queued.operations >= needed) return undefined;
  return ceilDiv(needed, queued.operations);
}

/** Core's computeBetterFee: the smallest fee with which `bid`'s transaction would outbid `reference` per operation. */
export function feeToOutbid(bid: FeeBid, reference: FeeBid): bigint {
  return (reference.fee * bid.operations) / reference.operations + 1n;
}

const ceilDiv = (numerator: bigint, denominator: bigint): bigint => (numerator + denominator - 1n) / denominator;
