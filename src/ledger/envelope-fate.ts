import { TransactionBuilder, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { FoundTransaction, StellarClient } from '../clients/stellar.client';
import { innerOf } from './fee-bumper';

/** What Horizon shows of a signed envelope whose outcome was unknown. */
export type EnvelopeFate =
  /** `appliedHash`: the envelope that applied (which fee bump of the inner transaction). */
  | { kind: 'applied'; ledger: number; feeCharged: bigint; appliedHash: string }
  /** In a ledger, but failed there (fee and sequence consumed, no operation applied). */
  | { kind: 'failed_on_ledger'; ledger: number }
  /** Provably never applies: it may be rebuilt. */
  | { kind: 'never_applies'; reason: string }
  /** Could still apply: keep it, resubmit only these bytes (or a fee bump of the same inner transaction). */
  | { kind: 'open'; latestLedger: number };

export interface EnvelopeFacts {
  /** The inner transaction's hash: Horizon finds whichever fee bump of it applied under this hash. */
  hash: string;
  source: string;
  sequence: bigint;
  /** Unix seconds; 0 = no upper bound (never used by the service). */
  maxTime: bigint;
}

export function factsOf(envelopeXdr: string, networkPassphrase: string): EnvelopeFacts & { tx: Transaction | FeeBumpTransaction } {
  const tx = TransactionBuilder.fromXDR(envelopeXdr, networkPassphrase);
  const inner = innerOf(tx);
  return {
    tx,
    hash: inner.hash().toString('hex'),
    source: inner.source,
    sequence: BigInt(inner.sequence),
    maxTime: BigInt(inner.timeBounds?.maxTime ?? 0),
  };
}

/**
 * Decides an envelope's fate from ledger evidence alone: the dead rule.
 *
 * An envelope is dead (never applies, so its operations may go into a new one) only when the
 * Horizon in use shows (a) a ledger closed after the envelope's maxTime, or (b) the source
 * account's sequence at or past the envelope's, AND the hash is absent from that same Horizon when
 * looked up after it showed (a) or (b). Horizon ingests ledgers in order, so after (a) no later
 * ledger can take the envelope (tx_too_late) and every earlier one is in its history; after (b)
 * the sequence number is spent, by this envelope (then the hash is found) or by another (then this
 * one can never apply).
 *
 * Never the local clock (Horizon and Stellar Core lag behind it, and ingestion stalls are exactly
 * when 504s happen), never a refusal of a resubmission (tx_bad_seq is also what an applied but not
 * yet ingested envelope gets), never a connection error.
 */
export async function envelopeFate(client: StellarClient, facts: EnvelopeFacts): Promise<EnvelopeFate> {
  const found = await client.findTransaction(facts.hash);
  if (found) return foundFate(found);

  // The evidence is read first; the hash is looked up again only after it.
  const latest = await client.latestLedger();
  const expired = facts.maxTime > 0n && latest.closedAt.getTime() > Number(facts.maxTime) * 1000;
  let spent = false;
  if (!expired) {
    const account = await client.loadAccount(facts.source);
    spent = account !== undefined && BigInt(account.sequence) >= facts.sequence;
  }
  if (!expired && !spent) return { kind: 'open', latestLedger: latest.sequence };

  const after = await client.findTransaction(facts.hash);
  if (after) return foundFate(after);
  return {
    kind: 'never_applies',
    reason: expired ? `ledger ${latest.sequence} closed after its maxTime` : `source account sequence passed ${facts.sequence}`,
  };
}

function foundFate(found: FoundTransaction): EnvelopeFate {
  return found.successful
    ? { kind: 'applied', ledger: found.ledger, feeCharged: found.feeCharged, appliedHash: found.hash }
    : { kind: 'failed_on_ledger', ledger: found.ledger };
}
