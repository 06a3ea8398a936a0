import { processEnvelope, type Envelope, type LedgerFees, type LedgerPosition } from './apply-transaction';
import type { ClosedLedger, ResultCodes, StoredPayment, StoredTransaction } from './ledger-history';
import { BASE_FEE } from './ledger-rules';
import {
  DEFAULT_MAX_TX_SET_SIZE,
  ledgerHash,
  type AccountEntry,
  type LedgerHeader,
  type LedgerState,
  type PriorImages,
} from './ledger-state';
import { resultCodes, type TransactionResultModel } from './result-xdr';
import { buildPaymentRecords, buildTransactionRecord, envelopeXdr, resultXdr } from './transaction-record';
import { planTransactionSet, type Candidate } from './transaction-set';
import { envelopeHashHex } from './envelope-hash';

const INTERNAL_ERROR: SubmissionResult = {
  status: 'rejected',
  envelopeXdr: '',
  resultXdr: resultXdr({ code: 'tx_internal_error', feeCharged: 0n }),
  resultCodes: { transaction: 'tx_internal_error' },
};

const WAITING: LedgerOutcome = { status: 'waiting' };

/** Builds its envelope when its turn comes in the ledger, e.g. friendbot, which needs root's current sequence. */
export type EnvelopeFactory = (state: LedgerState) => Envelope;
export type Submission = Envelope | EnvelopeFactory;

export type SubmissionResult =
  /** `resubmitted`: the transaction was already in a ledger; this submission changed nothing. */
  | { status: 'included'; record: StoredTransaction; resubmitted?: true }
  | { status: 'rejected'; envelopeXdr: string; resultXdr: string; resultCodes: ResultCodes }
  /** Core let it go without applying it (it waited too many ledgers, or higher bids pushed it out): Horizon's 504. */
  | { status: 'dropped' };

/** `waiting`: valid, but the ledger had no room left for it. */
export type LedgerOutcome = SubmissionResult | { status: 'waiting' };

/** A submission with what the transaction set needs to know about it before it is applied. */
export type PendingSubmission = Omit<Candidate, 'envelope'> & { submission: Submission };

export function rejection(envelope: Envelope, result: TransactionResultModel): SubmissionResult {
  return { status: 'rejected', envelopeXdr: envelopeXdr(envelope), resultXdr: resultXdr(result), resultCodes: resultCodes(result) };
}

/**
 * Closes ledgers: picks from the submissions waiting what goes into the next ledger (all of them,
 * unless they bid for more operations than `maxOperations`: see transaction-set.ts), applies those
 * in arrival order against the state and, if at least one of them made it in, records a new ledger.
 * Submissions that are all rejected leave the ledger sequence where it was, as on the real network,
 * where invalid transactions never reach a ledger.
 */
export class SandboxLedger {
  /** `maxTxSetSize`: the limit the headers record (0: none); the clock decides when it is enforced. */
  constructor(
    readonly state: LedgerState,
    private readonly onLedgerClosed: (closed: ClosedLedger, priorImages: ReadonlyMap<string, AccountEntry | undefined>) => void,
    private readonly maxTxSetSize = DEFAULT_MAX_TX_SET_SIZE,
  ) {}

  /**
   * `allowEmpty`: close a ledger even when nothing went in, as the network does every few seconds
   * whether or not anyone submits (time passes on the ledger: envelopes' maxTime can pass).
   * `maxOperations`: the operation limit to enforce (0 or absent: none).
   */
  closeLedger(
    pending: readonly PendingSubmission[],
    nowMs = Date.now(),
    options: { allowEmpty?: boolean; maxOperations?: number } = {},
  ): LedgerOutcome[] {
    const { state } = this;
    const sequence = state.latest.sequence + 1;
    // close times never go backwards, even if the host clock does
    const closeTime = Math.max(Math.floor(nowMs / 1000), state.latest.closedAt);
    const position = { ledgerSequence: sequence, closeTime };
    const transactions: StoredTransaction[] = [];
    const inThisLedger = new Map<string, StoredTransaction>();
    const payments: StoredPayment[] = [];
    let operationCount = 0;
    let txSetOperationCount = 0;
    let feesCharged = 0n;

    const apply = (submission: Submission, fees: LedgerFees): SubmissionResult => {
      const envelope = typeof submission === 'function' ? submission(state) : submission;
      const hash = envelopeHashHex(envelope);
      // Horizon answers a resubmitted transaction with the result it already has
      const known = state.history.transaction(hash) ?? inThisLedger.get(hash);
      if (known) return { status: 'included', record: known, resubmitted: true };

      const outcome = processEnvelope(state, envelope, position, fees);
      if (!outcome.included) return rejection(envelope, outcome.result);
      const placement = { ...position, applicationOrder: transactions.length + 1 };
      const record = buildTransactionRecord(envelope, outcome, placement);
      transactions.push(record);
      inThisLedger.set(hash, record);
      txSetOperationCount += record.operationCount;
      feesCharged += BigInt(record.feeCharged);
      if (record.successful) {
        operationCount += record.operationCount;
        payments.push(...buildPaymentRecords(envelope, placement));
      }
      return { status: 'included', record };
    };
    // what the accounts were before this ledger, for a read side that has not ingested it yet
    const priorImages: PriorImages = new Map();
    state.priorImages = priorImages;
    const plan = this.plan(pending, position, options.maxOperations ?? 0);
    const results = pending.map((entry, index): LedgerOutcome => {
      const decision = plan.decisions[index] ?? 'apply';
      if (decision === 'wait') return WAITING;
      if (decision !== 'apply') return decision;
      try {
        return apply(entry.submission, plan.fees);
      } catch (error) {
        // a bug here must not take the other submissions of the ledger down with it, nor go unnoticed
        process.emitWarning(`sandbox ledger failed to apply a submission: ${String(error)}`);
        return INTERNAL_ERROR;
      }
    });
    state.priorImages = undefined;

    if (transactions.length === 0 && !options.allowEmpty) return results;
    const header: LedgerHeader = {
      sequence,
      hash: ledgerHash(
        state.latest.hash,
        sequence,
        closeTime,
        transactions.map((tx) => tx.hash),
      ),
      previousHash: state.latest.hash,
      closedAt: closeTime,
      successfulTransactionCount: transactions.filter((tx) => tx.successful).length,
      failedTransactionCount: transactions.filter((tx) => !tx.successful).length,
      operationCount,
      txSetOperationCount,
      feePool: (BigInt(state.latest.feePool) + feesCharged).toString(),
      // the network's base fee: a surge price is the transaction set's, not the header's
      baseFee: BASE_FEE.toString(),
      maxTxSetSize: this.maxTxSetSize,
    };
    state.latest = header;
    state.history.addLedger(header, transactions, payments);
    this.onLedgerClosed({ header, transactions, payments }, priorImages);
    return results;
  }

  /**
   * Decides for each pending submission: apply, wait, or an answer now. A transaction already in the
   * history is answered from it and takes no room; the rest compete for the ledger.
   */
  private plan(
    pending: readonly PendingSubmission[],
    position: LedgerPosition,
    maxOperations: number,
  ): { decisions: ('apply' | 'wait' | SubmissionResult)[]; fees: LedgerFees } {
    const decisions: ('apply' | 'wait' | SubmissionResult)[] = pending.map(() => 'apply');
    const competing: number[] = [];
    const candidates: Candidate[] = [];
    pending.forEach((entry, index) => {
      const envelope = typeof entry.submission === 'function' ? undefined : entry.submission;
      if (envelope && this.state.history.transaction(envelopeHashHex(envelope))) return;
      competing.push(index);
      candidates.push({ envelope, bid: entry.bid, operations: entry.operations, chain: entry.chain });
    });
    const plan = planTransactionSet(this.state, candidates, position, maxOperations);
    plan.decisions.forEach((decision, at) => {
      const index = competing[at] as number;
      const envelope = candidates[at]?.envelope;
      if (decision === 'apply' || decision === 'wait') decisions[index] = decision;
      else decisions[index] = envelope ? rejection(envelope, decision.refused) : INTERNAL_ERROR;
    });
    return { decisions, fees: plan.fees };
  }
}
