import type { Response } from 'express';
import type { Envelope } from './apply-transaction';
import { answerWithFault, refusedBeforeApplying } from './faults/fault-answers';
import type { FaultInjector } from './faults/fault-injector';
import type { ReadSides } from './faults/read-sides';
import { transactionResource } from './horizon-resources';
import { answeringFrom } from './latest-ledger-header';
import type { LedgerClock } from './ledger-clock';
import type { LedgerReadView } from './ledger-read-view';
import { sendProblem, timeout, transactionFailed } from './problems';
import { badSequence, refusalAnswer } from './resubmission';
import type { Submission, SubmissionResult } from './sandbox-ledger';

export interface SubmissionDependencies {
  clock: LedgerClock;
  readSides: ReadSides;
  faults: FaultInjector;
}

/** POST /transactions once the envelope decodes: core applies it, and the fault plan decides what the client hears. */
export async function submitWithFaults(
  { clock, readSides, faults }: SubmissionDependencies,
  res: Response,
  base: string,
  envelope: Envelope,
): Promise<void> {
  const fault = faults.draw();
  if (refusedBeforeApplying(res, fault, envelope)) return;
  const result = await clock.submit(envelope);
  if (result.status === 'included' && !result.resubmitted) readSides.applied(result.record.ledger, fault);
  // Horizon decides its answer when the result comes back, even if the answer is then slow to arrive
  const view = answeringFrom(res, readSides.view());
  await answerWithFault(res, fault, () => sendSubmissionResult(res, base, result, view));
}

/** Friendbot's own submissions: the fault plan is about what clients submit, not about funding them. */
export async function submitWithoutFaults(
  { clock, readSides }: SubmissionDependencies,
  res: Response,
  base: string,
  submission: Submission,
): Promise<void> {
  const result = await clock.submit(submission);
  sendSubmissionResult(res, base, result, answeringFrom(res, readSides.view()));
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
    const refused = refusalAnswer(badSequence(record));
    sendProblem(res, transactionFailed({ envelope_xdr: record.envelopeXdr, result_xdr: refused.resultXdr, result_codes: refused.resultCodes }));
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
