import { processEnvelope, type Envelope } from './apply-transaction';
import type { ClosedLedger, ResultCodes, StoredPayment, StoredTransaction } from './ledger-history';
import { ledgerHash, type AccountEntry, type LedgerHeader, type LedgerState, type PriorImages } from './ledger-state';
import { buildPaymentRecords, buildTransactionRecord, envelopeXdr, resultXdr } from './transaction-record';
import { resultCodes } from './result-xdr';

const INTERNAL_ERROR: SubmissionResult = {
  status: 'rejected',
  envelopeXdr: '',
  resultXdr: resultXdr({ code: 'tx_internal_error', feeCharged: 0n }),
  resultCodes: { transaction: 'tx_internal_error' },
};

/** Builds its envelope when its turn comes in the ledger, e.g. friendbot, which needs root's current sequence. */
export type EnvelopeFactory = (state: LedgerState) => Envelope;
export type Submission = Envelope | EnvelopeFactory;

export type SubmissionResult =
  /** `resubmitted`: the transaction was already in a ledger; this submission changed nothing. */
  | { status: 'included'; record: StoredTransaction; resubmitted?: true }
  | { status: 'rejected'; envelopeXdr: string; resultXdr: string; resultCodes: ResultCodes };

/**
 * Closes ledgers: applies a batch of submissions in arrival order against the state and, if at least
 * one of them made it in, records a new ledger. Submissions that are all rejected leave the ledger
 * sequence where it was, as on the real network, where invalid transactions never reach a ledger.
 */
export class SandboxLedger {
  constructor(
    readonly state: LedgerState,
    private readonly onLedgerClosed: (closed: ClosedLedger, priorImages: ReadonlyMap<string, AccountEntry | undefined>) => void,
  ) {}

  /**
   * `allowEmpty`: close a ledger even when nothing went in, as the network does every few seconds
   * whether or not anyone submits (time passes on the ledger: envelopes' maxTime can pass).
   */
  closeLedger(submissions: readonly Submission[], nowMs = Date.now(), options: { allowEmpty?: boolean } = {}): SubmissionResult[] {
    const { state } = this;
    const sequence = state.latest.sequence + 1;
    // close times never go backwards, even if the host clock does
    const closeTime = Math.max(Math.floor(nowMs / 1000), state.latest.closedAt);
    const transactions: StoredTransaction[] = [];
    const inThisLedger = new Map<string, StoredTransaction>();
    const payments: StoredPayment[] = [];
    let operationCount = 0;
    let txSetOperationCount = 0;
    let feesCharged = 0n;

    const apply = (submission: Submission): SubmissionResult => {
      const envelope = typeof submission === 'function' ? submission(state) : submission;
      const hash = envelope.hash().toString('hex');
      // Horizon answers a resubmitted transaction with the result it already has
      const known = state.history.transaction(hash) ?? inThisLedger.get(hash);
      if (known) return { status: 'included', record: known, resubmitted: true };

      const outcome = processEnvelope(state, envelope, { ledgerSequence: sequence, closeTime });
      if (!outcome.included) {
        return {
          status: 'rejected',
          envelopeXdr: envelopeXdr(envelope),
          resultXdr: resultXdr(outcome.result),
          resultCodes: resultCodes(outcome.result),
        };
      }
      const placement = { ledgerSequence: sequence, closeTime, applicationOrder: transactions.length + 1 };
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
    const results = submissions.map((submission): SubmissionResult => {
      try {
        return apply(submission);
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
    };
    state.latest = header;
    state.history.addLedger(header, transactions, payments);
    this.onLedgerClosed({ header, transactions, payments }, priorImages);
    return results;
  }
}
