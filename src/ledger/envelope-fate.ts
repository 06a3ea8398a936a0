import { TransactionBuilder, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { FoundTransaction, LedgerApi, TransactionLookup } from '../clients/ledger-api';
import { innerOf } from './fee-bumper';

/** What the ledger API shows of a signed envelope whose outcome was unknown. */
export type EnvelopeFate =
  /** `appliedHash`: the envelope that applied (which fee bump of the inner transaction). */
  | { kind: 'applied'; ledger: number; feeCharged: bigint; appliedHash: string }
  /** In a ledger, but failed there (fee and sequence consumed, no operation applied). */
  | { kind: 'failed_on_ledger'; ledger: number }
  /** Provably never applies: it may be rebuilt. */
  | { kind: 'never_applies'; reason: string }
  /**
   * Could still apply, or nothing can prove it never did: keep it, resubmit only these bytes (or a
   * fee bump of the same inner transaction). `beyondRetention`: the API no longer holds the
   * ledgers it could have entered, so absence will never prove anything: an operator decides.
   */
  | { kind: 'open'; latestLedger: number; beyondRetention: boolean };

export interface EnvelopeFacts {
  /** The inner transaction's hash: every fee bump of it shares it, and the journal tracks it. */
  hash: string;
  source: string;
  sequence: bigint;
  /** The first ledger it can enter (ledgerBounds.minLedger: a ledger the API had closed before it was signed). */
  firstLedger: number;
  /** The last ledger it can enter (ledgerBounds.maxLedger is exclusive); undefined when unbounded. */
  lastLedger: number | undefined;
  /** Hashes of fee bumps of it the journal stored before the one in hand (the reconciler reads them from the row). */
  priorOuterHashes?: readonly string[];
}

export function factsOf(envelopeXdr: string, networkPassphrase: string): EnvelopeFacts & { tx: Transaction | FeeBumpTransaction } {
  const tx = TransactionBuilder.fromXDR(envelopeXdr, networkPassphrase);
  return { tx, ...factsOfTransaction(tx) };
}

export function factsOfTransaction(tx: Transaction | FeeBumpTransaction): EnvelopeFacts {
  const inner = innerOf(tx);
  const bounds = inner.ledgerBounds;
  return {
    hash: inner.hash().toString('hex'),
    source: inner.source,
    sequence: BigInt(inner.sequence),
    firstLedger: bounds?.minLedger ?? 0,
    lastLedger: bounds && bounds.maxLedger > 0 ? bounds.maxLedger - 1 : undefined,
  };
}

/**
 * Decides an envelope's fate from ledger evidence alone: the dead rule.
 *
 * An envelope never applies only when, for its inner hash and for the hash of every fee bump of it
 * the journal ever stored, ONE answer shows both that the hash is absent and that the instance
 * which answered has ingested every ledger the envelope could have entered: its own latestLedger
 * past the envelope's last ledger (no later ledger can take it: tx_too_late) and its own
 * oldestLedger at or before the envelope's first. What two answers said is never combined: behind
 * one URL, instances stand at different ledgers, and an account read from one that has ingested a
 * transaction beside a lookup from one that has not would prove a falsehood. Each hash's absence
 * is a fact about a closed stretch of history that no later answer can change, so several hashes,
 * each proven by its own answer, are all absent.
 *
 * Never the local clock, never a sequence number read beside the lookup, never a refusal of a
 * resubmission (tx_bad_seq is also what an applied but not yet ingested envelope gets), never a
 * connection error. Once its ledgers leave the API's history window, absence proves nothing: the
 * envelope stays open for an operator (ledger:audit lists it).
 */
export async function envelopeFate(client: LedgerApi, facts: EnvelopeFacts, outerHashes: readonly string[] = []): Promise<EnvelopeFate> {
  let proven = 0;
  let latestLedger = 0;
  let beyondRetention = false;
  const hashes = [facts.hash, ...outerHashes.filter((h) => h !== facts.hash)];
  for (const hash of hashes) {
    const lookup: TransactionLookup = await client.lookupTransaction(hash);
    if (lookup.kind === 'found') return foundFate(lookup.transaction);
    latestLedger = Math.max(latestLedger, lookup.latestLedger);
    const pastItsLastLedger = facts.lastLedger !== undefined && lookup.latestLedger > facts.lastLedger;
    const holdsItsFirstLedger = facts.firstLedger > 0 && lookup.oldestLedger <= facts.firstLedger;
    if (pastItsLastLedger && holdsItsFirstLedger) proven++;
    // Its first ledger has left the window (or it has no bounds at all): no answer will ever prove it absent.
    beyondRetention ||= !holdsItsFirstLedger || facts.lastLedger === undefined;
  }
  if (proven === hashes.length) {
    return { kind: 'never_applies', reason: `absent from ledgers ${facts.firstLedger}..${latestLedger}, past its last ledger ${facts.lastLedger}` };
  }
  return { kind: 'open', latestLedger, beyondRetention };
}

function foundFate(found: FoundTransaction): EnvelopeFate {
  return found.successful
    ? { kind: 'applied', ledger: found.ledger, feeCharged: found.feeCharged, appliedHash: found.hash }
    : { kind: 'failed_on_ledger', ledger: found.ledger };
}
