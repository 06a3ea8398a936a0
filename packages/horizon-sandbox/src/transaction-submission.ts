import type { Response } from 'express';
import type { Envelope } from './apply-transaction';
import { answerWithFault, refusedBeforeApplying } from './faults/fault-answers';
import type { FaultInjector } from './faults/fault-injector';
import type { IngestionLag } from './faults/ingestion-lag';
import { transactionResource } from './horizon-resources';
import type { LedgerClock } from './ledger-clock';
import type { ResultCodes, StoredTransaction } from './ledger-history';
import type { LedgerReadView } from './ledger-read-view';
import { sendProblem, timeout, transactionFailed } from './problems';
import { resultCodes, type TransactionResultModel } from './result-xdr';
import type { Submission, SubmissionResult } from './sandbox-ledger';
import { resultXdr } from './transaction-record';
import { feeToCharge } from './validate-transaction';

export interface SubmissionDependencies {
  clock: LedgerClock;
  ingestion: IngestionLag;
  faults: FaultInjector;
}

/** POST /transactions once the envelope decodes: core applies it, and the fault plan decides what the client hears. */
export async function submitWithFaults(
  { clock, ingestion, faults }: SubmissionDependencies,
  res: Response,
  base: string,
  envelope: Envelope,
): Promise<void> {
  const fault = faults.draw();
  if (refusedBeforeApplying(res, fault)) return;
  const result = await clock.submit(envelope);
  if (fault?.lagMs !== undefined && result.status === 'included' && !result.resubmitted) {
    ingestion.holdBack(result.record.ledger, fault.lagMs);
  }
  // Horizon decides its answer when the result comes back, even if the answer is then slow to arrive
  const view = ingestion.view();
  await answerWithFault(res, fault, () => sendSubmissionResult(res, base, result, view));
}

/** Friendbot's own submissions: the fault plan is about what clients submit, not about funding them. */
export async function submitWithoutFaults(
  { clock, ingestion }: SubmissionDependencies,
  res: Response,
  base: string,
  submission: Submission,
): Promise<void> {
  const result = await clock.submit(submission);
  sendSubmissionResult(res, base, result, ingestion.view());
}

/**
 * Success: Horizon's transaction resource. Failure (rejected, or in the ledger with tx_failed): 400
 * problem. Dropped by core without being applied: Horizon's 504, since Horizon only ever learns that
 * the transaction did not show up in time. A resubmission is answered from Horizon's history when it
 * has ingested the transaction; before that it goes to core, which refuses it because its sequence
 * number is used.
 */
function sendSubmissionResult(res: Response, base: string, result: SubmissionResult, view: LedgerReadView): void {
  if (result.status === 'dropped') {
    sendProblem(res, timeout());
    return;
  }
  if (result.status === 'rejected') {
    sendProblem(
      res,
      transactionFailed({ envelope_xdr: result.envelopeXdr, result_xdr: result.resultXdr, result_codes: result.resultCodes }),
    );
    return;
  }
  const { record } = result;
  if (result.resubmitted && !view.transaction(record.hash)) {
    const refused = badSequence(record);
    sendProblem(res, transactionFailed({ envelope_xdr: record.envelopeXdr, ...refused }));
    return;
  }
  if (record.successful) {
    res.json(transactionResource(record, base));
    return;
  }
  sendProblem(
    res,
    transactionFailed({ envelope_xdr: record.envelopeXdr, result_xdr: record.resultXdr, result_codes: record.resultCodes }),
  );
}

/** Core's tx_bad_seq for a transaction already applied; for a fee bump, its inner transaction's. */
function badSequence(record: StoredTransaction): { result_xdr: string; result_codes: ResultCodes } {
  const refused: TransactionResultModel = record.inner
    ? {
        code: 'tx_failed',
        feeCharged: BigInt(record.feeCharged),
        feeBump: {
          code: 'tx_fee_bump_inner_failed',
          innerHash: Buffer.from(record.inner.hash, 'hex'),
          inner: { code: 'tx_bad_seq', feeCharged: 0n },
        },
      }
    : { code: 'tx_bad_seq', feeCharged: feeToCharge(record.operationCount) };
  return { result_xdr: resultXdr(refused), result_codes: resultCodes(refused) };
}
