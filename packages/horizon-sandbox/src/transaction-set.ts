import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { UNCONTESTED_FEES, checkEnvelope, type Envelope, type LedgerFees, type LedgerPosition } from './apply-transaction';
import { compareBids, perOperation, type FeeBid } from './fee-bid';
import { LedgerDelta } from './ledger-delta';
import { BASE_FEE } from './ledger-rules';
import type { LedgerState } from './ledger-state';
import type { TransactionResultModel } from './result-xdr';

/** A transaction waiting for a ledger, as the transaction set is built from it. */
export interface Candidate {
  /** Undefined for one built only when its turn comes (friendbot's): it is taken as valid. */
  envelope: Envelope | undefined;
  bid: FeeBid;
  /** What it takes of the ledger's operation limit: a fee bump counts its inner operations plus one. */
  operations: number;
  /** The account whose sequence it uses: an account's transactions go in in arrival order, none skipped. */
  chain: string | undefined;
}

/** `wait`: valid, but there was no room; it stays queued for a later ledger. */
export type Decision = 'apply' | 'wait' | { refused: TransactionResultModel };

export interface TransactionSetPlan {
  /** One per candidate, in the same order. */
  decisions: Decision[];
  fees: LedgerFees;
}

/**
 * stellar-core's surge pricing for the classic phase. When everything waiting fits under the limit,
 * everything goes in at the base fee and validity is left to application. Otherwise transactions are
 * taken by bid per operation, highest first (ties: first come), each account's in sequence order,
 * skipping invalid ones (they are refused now, as core trims them from the set) and ones too big for
 * the room left; if a valid one was left out for want of room, the ledger was full and every
 * transaction in it pays the lowest bid per operation among them instead of the base fee.
 */
export function planTransactionSet(
  state: LedgerState,
  candidates: readonly Candidate[],
  position: LedgerPosition,
  maxOperations: number,
): TransactionSetPlan {
  const total = candidates.reduce((sum, candidate) => sum + candidate.operations, 0);
  if (maxOperations <= 0 || total <= maxOperations) {
    return { decisions: candidates.map(() => 'apply'), fees: UNCONTESTED_FEES };
  }

  const decisions: Decision[] = candidates.map(() => 'wait');
  // what the ledger will look like once the transactions taken so far are in: their sequence numbers
  // used and their bids reserved, so that an account's next transaction is checked against that
  const tentative = new LedgerDelta(state.accounts, position.ledgerSequence, position.closeTime);
  const context = { accounts: { get: (id: string) => tentative.read(id) }, ...position, baseFee: BASE_FEE };
  const heads = new ChainHeads(candidates);
  let room = maxOperations;
  let full = false;
  let cheapest: bigint | undefined;

  for (let chain = heads.popBest(); chain; chain = heads.popBest()) {
    const index = chain.shift() as number;
    const candidate = candidates[index] as Candidate;
    const refused = candidate.envelope ? safelyChecked(candidate.envelope, context) : undefined;
    if (refused) {
      decisions[index] = { refused };
      heads.push(chain);
      continue;
    }
    if (candidate.operations > room) {
      // it waits, and the rest of its account's transactions with it; smaller ones may still fit
      full = true;
      if (room === 0) break;
      continue;
    }
    decisions[index] = 'apply';
    room -= candidate.operations;
    const rate = perOperation(candidate.bid);
    if (cheapest === undefined || rate < cheapest) cheapest = rate;
    if (candidate.envelope) reserveTentatively(tentative, candidate.envelope, position);
    heads.push(chain);
  }

  const fees =
    full && cheapest !== undefined
      ? { baseFee: BASE_FEE, chargedPerOperation: cheapest > BASE_FEE ? cheapest : BASE_FEE }
      : UNCONTESTED_FEES;
  return { decisions, fees };
}

/**
 * The accounts' queues of candidate indexes (arrival order; one without an account stands alone),
 * ordered by what their next transaction bids per operation, highest last, so the best is popped;
 * among equal bids the one that came first is best. Kept sorted by binary insertion: n log n.
 */
class ChainHeads {
  private readonly sorted: number[][] = [];

  constructor(private readonly candidates: readonly Candidate[]) {
    const byAccount = new Map<string, number[]>();
    candidates.forEach((candidate, index) => {
      const chain = candidate.chain === undefined ? undefined : byAccount.get(candidate.chain);
      if (chain) {
        chain.push(index);
        return;
      }
      const fresh = [index];
      if (candidate.chain !== undefined) byAccount.set(candidate.chain, fresh);
      this.push(fresh);
    });
  }

  popBest(): number[] | undefined {
    return this.sorted.pop();
  }

  /** Puts a chain back by its next transaction; an exhausted one is dropped. */
  push(chain: number[]): void {
    const head = chain[0];
    if (head === undefined) return;
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.worse(this.sorted[mid]?.[0] as number, head)) low = mid + 1;
      else high = mid;
    }
    this.sorted.splice(low, 0, chain);
  }

  /** Does candidate `a` come after `b` in the order transactions are taken? */
  private worse(a: number, b: number): boolean {
    const order = compareBids((this.candidates[a] as Candidate).bid, (this.candidates[b] as Candidate).bid);
    return order < 0 || (order === 0 && a > b);
  }
}

/** A bug in validation refuses that one transaction, not the whole ledger. */
function safelyChecked(envelope: Envelope, context: Parameters<typeof checkEnvelope>[1]): TransactionResultModel | undefined {
  try {
    return checkEnvelope(envelope, context);
  } catch (error) {
    process.emitWarning(`sandbox ledger failed to check a transaction: ${String(error)}`);
    return { code: 'tx_internal_error', feeCharged: 0n };
  }
}

function reserveTentatively(tentative: LedgerDelta, envelope: Envelope, position: LedgerPosition): void {
  const tx = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  const feeSourceId = baseAccountId(envelope instanceof FeeBumpTransaction ? envelope.feeSource : tx.source);
  const source = tentative.write(baseAccountId(tx.source));
  if (source) {
    source.sequence = BigInt(tx.sequence);
    source.sequenceLedger = position.ledgerSequence;
    source.sequenceTime = position.closeTime;
  }
  // the whole bid, as core's queue holds back an account's queued fees
  const payer = tentative.write(feeSourceId);
  if (payer) payer.balance -= BigInt(envelope.fee);
}
