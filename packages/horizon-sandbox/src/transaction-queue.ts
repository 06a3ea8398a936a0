import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import type { Envelope } from './apply-transaction';
import { compareBids, feeBidOf, feeToOutbid, replacementShortfall, type FeeBid } from './fee-bid';
import { BASE_FEE } from './ledger-rules';
import type { TransactionResultModel } from './result-xdr';
import { rejection, type PendingSubmission, type Submission, type SubmissionResult } from './sandbox-ledger';
import { checkFeeBumpFee } from './validate-fee-bump';
import { bidsTooLittle, feeToCharge } from './validate-transaction';
import { envelopeHashHex } from './envelope-hash';

export interface Waiter {
  resolve: (result: SubmissionResult) => void;
  reject: (error: unknown) => void;
}

/** A submission waiting in core's queue, with everyone waiting for its result. */
export interface QueuedTransaction extends PendingSubmission {
  /** Undefined for one built only when its ledger closes (friendbot's). */
  hash: string | undefined;
  /** A fee bump's inner transaction: submitted bare, it is the same transaction. */
  innerHash: string | undefined;
  /** Source account and sequence number: what a replacement by fee competes for. */
  slot: string | undefined;
  isFeeBump: boolean;
  arrival: number;
  /** Ledgers closed since it arrived without taking it. */
  age: number;
  waiters: Waiter[];
}

export type Admission =
  /** The same transaction is already waiting: this submission waits for its result too. */
  | { kind: 'joined'; entry: QueuedTransaction }
  /** `dropped`: what it replaced or pushed out; their submitters are owed Horizon's 504. */
  | { kind: 'queued'; entry: QueuedTransaction; dropped: QueuedTransaction[] }
  /** Core refused it before queueing: the answer, at once. */
  | { kind: 'refused'; result: SubmissionResult };

const INT64_MAX = 2n ** 63n - 1n;

/** Friendbot's funding: one operation at the base fee, from root, built when its turn comes. */
const FACTORY_BID: FeeBid = { fee: BASE_FEE, operations: 1n };

/** What the ledger needs to know about a submission before applying it. */
export function pendingSubmission(submission: Submission): PendingSubmission {
  if (typeof submission === 'function') return { submission, bid: FACTORY_BID, operations: 1, chain: undefined };
  const tx = submission instanceof FeeBumpTransaction ? submission.innerTransaction : submission;
  return {
    submission,
    bid: feeBidOf(submission),
    operations: tx.operations.length + (submission instanceof FeeBumpTransaction ? 1 : 0),
    chain: baseAccountId(tx.source),
  };
}

/**
 * stellar-core's transaction queue, as far as a sandbox needs it: who waits for the next ledger, how
 * long, and who gets in when the queue is full. Holds at most `capacityOperations` operations
 * (0: unlimited); core sizes it at a few ledgers' worth.
 */
export class TransactionQueue {
  private entries: QueuedTransaction[] = [];
  private arrivals = 0;

  constructor(private readonly capacityOperations: number) {}

  get size(): number {
    return this.entries.length;
  }

  /** The waiting transactions in arrival order (a copy: the queue changes as a ledger is answered). */
  list(): QueuedTransaction[] {
    return [...this.entries];
  }

  /**
   * Core's tryAdd: the same transaction joins the one waiting; a bid under the base fee, a plain
   * envelope for a sequence number already waiting, or a fee bump that does not bid 10x the
   * waiting one is refused; when full, cheaper transactions of other accounts are pushed out, or
   * the newcomer is refused with the fee that would have got it in.
   */
  admit(submission: Submission): Admission {
    const described = this.describe(submission);
    const same = described.hash === undefined ? undefined : this.entries.find((entry) => isSameTransaction(entry, described));
    if (same) return { kind: 'joined', entry: same };

    const envelope = typeof submission === 'function' ? undefined : submission;
    // friendbot's funding has no envelope to refuse yet: like a transaction pushed out, it gets the 504
    const refuse = (result: TransactionResultModel): Admission => ({
      kind: 'refused',
      result: envelope ? rejection(envelope, result) : { status: 'dropped' },
    });
    const tooLittle = envelope && insufficientFee(envelope);
    if (tooLittle) return refuse(tooLittle);

    const occupant = described.slot === undefined ? undefined : this.entries.find((entry) => entry.slot === described.slot);
    if (occupant) {
      // core lets only a fee bump take a waiting transaction's place; anything else is a used sequence number
      if (!described.isFeeBump) return refuse({ code: 'tx_bad_seq', feeCharged: feeToCharge(described.operations) });
      const shortfall = replacementShortfall(described.bid, occupant.bid);
      if (shortfall !== undefined) return refuse({ code: 'tx_insufficient_fee', feeCharged: shortfall });
    }

    const room = this.makeRoom(described, occupant);
    if ('needed' in room) return refuse({ code: 'tx_insufficient_fee', feeCharged: room.needed });

    // the replaced transaction leaves alone: its account's later ones now follow its replacement
    const dropped = this.remove([...(occupant ? [occupant] : []), ...room.evicted]);
    if (occupant) {
      // the replacement takes the place and the age of the transaction it replaces
      described.arrival = occupant.arrival;
      described.age = occupant.age;
      const at = this.entries.findIndex((entry) => entry.arrival > occupant.arrival);
      this.entries.splice(at === -1 ? this.entries.length : at, 0, described);
    } else {
      this.entries.push(described);
    }
    return { kind: 'queued', entry: described, dropped };
  }

  /** Takes a transaction out once it has its answer. */
  settle(entry: QueuedTransaction): void {
    this.entries = this.entries.filter((queued) => queued !== entry);
  }

  /**
   * A ledger closed without these transactions: each one is a ledger older, and those that have
   * waited `depth` ledgers leave, with the later transactions of their accounts, which cannot go in
   * without them. Returns the ones that left.
   */
  ageOneLedger(depth: number): QueuedTransaction[] {
    for (const entry of this.entries) entry.age += 1;
    return this.remove(this.withFollowers(this.entries.filter((entry) => entry.age >= depth)));
  }

  /** Empties the queue, for a ledger that stops. */
  clear(): QueuedTransaction[] {
    const all = this.entries;
    this.entries = [];
    return all;
  }

  private describe(submission: Submission): QueuedTransaction {
    const pending = pendingSubmission(submission);
    const envelope = typeof submission === 'function' ? undefined : submission;
    const inner = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
    return {
      ...pending,
      hash: envelope ? envelopeHashHex(envelope) : undefined,
      innerHash: envelope instanceof FeeBumpTransaction ? envelopeHashHex(envelope.innerTransaction) : undefined,
      slot: inner ? `${baseAccountId(inner.source)}:${inner.sequence}` : undefined,
      isFeeBump: envelope instanceof FeeBumpTransaction,
      arrival: ++this.arrivals,
      age: 0,
      waiters: [],
    };
  }

  /**
   * Core's TxQueueLimiter: if the newcomer does not fit, the cheapest waiting transactions make
   * room, as long as each bids less per operation than the newcomer. An account's own earlier
   * transactions are never pushed out for its later one (that would leave a gap in its sequence).
   */
  private makeRoom(
    newcomer: QueuedTransaction,
    replaced: QueuedTransaction | undefined,
  ): { evicted: QueuedTransaction[] } | { needed: bigint } {
    if (this.capacityOperations <= 0) return { evicted: [] };
    const queued = this.entries.reduce((sum, entry) => sum + entry.operations, 0) - (replaced?.operations ?? 0);
    let excess = queued + newcomer.operations - this.capacityOperations;
    if (excess <= 0) return { evicted: [] };

    const evicted: QueuedTransaction[] = [];
    for (const entry of this.cheapestFirst(replaced)) {
      if (evicted.includes(entry)) continue;
      if (compareBids(entry.bid, newcomer.bid) >= 0) return { needed: feeToOutbid(newcomer.bid, entry.bid) };
      if (entry.chain !== undefined && entry.chain === newcomer.chain) continue;
      for (const leaving of this.withFollowers([entry])) {
        if (evicted.includes(leaving)) continue;
        evicted.push(leaving);
        excess -= leaving.operations;
      }
      if (excess <= 0) return { evicted };
    }
    // bigger than the whole queue could ever hold: core's answer when no fee is enough
    return { needed: INT64_MAX };
  }

  /** Lowest bid first; among equal bids the latest arrival first, so the earliest keeps its place. */
  private cheapestFirst(except: QueuedTransaction | undefined): QueuedTransaction[] {
    return this.entries
      .filter((entry) => entry !== except)
      .sort((a, b) => compareBids(a.bid, b.bid) || b.arrival - a.arrival);
  }

  /** These and their accounts' later transactions, which cannot go in without them. */
  private withFollowers(leaving: readonly QueuedTransaction[]): QueuedTransaction[] {
    const all = new Set(leaving);
    for (const entry of leaving) {
      if (entry.chain === undefined) continue;
      for (const other of this.entries) if (other.chain === entry.chain && other.arrival > entry.arrival) all.add(other);
    }
    return [...all];
  }

  private remove(leaving: readonly QueuedTransaction[]): QueuedTransaction[] {
    const removed = new Set(leaving);
    this.entries = this.entries.filter((entry) => !removed.has(entry));
    return [...removed];
  }
}

/** The same envelope, or a bare transaction that a waiting fee bump wraps (core's isDuplicateTx). */
function isSameTransaction(queued: QueuedTransaction, newcomer: QueuedTransaction): boolean {
  return queued.hash === newcomer.hash || (queued.innerHash !== undefined && queued.innerHash === newcomer.hash);
}

/** Core's minimum fee check before queueing: a bid below the base fee per operation never waits. */
function insufficientFee(envelope: Envelope): TransactionResultModel | undefined {
  if (envelope instanceof FeeBumpTransaction) return checkFeeBumpFee(envelope, BASE_FEE);
  // a transaction without operations is refused for that when its ledger closes
  if (envelope.operations.length > 0 && bidsTooLittle(envelope, BASE_FEE)) {
    return { code: 'tx_insufficient_fee', feeCharged: feeToCharge(envelope.operations.length) };
  }
  return undefined;
}
