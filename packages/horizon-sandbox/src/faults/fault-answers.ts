import type { Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Envelope } from '../apply-transaction';
import { sendProblem, staleHistory, timeout, transactionFailed } from '../problems';
import { refusalAnswer, sequenceTaken } from '../resubmission';
import { envelopeXdr } from '../transaction-record';
import type { FaultPlan } from './fault-plan';

/** What nginx in front of an API answers when the API's own answer is lost: HTML, not a problem document. */
export const nginxPage = (status: string) => `<html>
<head><title>${status}</title></head>
<body>
<center><h1>${status}</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

export const BAD_GATEWAY_PAGE = nginxPage('502 Bad Gateway');

/**
 * refuse-503, try-again-later and bad-seq answer before the transaction is applied; true if one did.
 * Horizon's synchronous submission takes core's TRY_AGAIN_LATER as "sent" and waits for the
 * transaction to show up in its history, which it never does: the client gets Horizon's 504 timeout.
 * Core's tx_bad_seq comes back at once as Horizon's 400 transaction_failed.
 */
export function refusedBeforeApplying(res: Response, fault: FaultPlan | undefined, envelope: Envelope): boolean {
  if (fault?.mode === 'bad-seq') {
    const refused = refusalAnswer(sequenceTaken(envelope));
    sendProblem(res, transactionFailed({ envelope_xdr: envelopeXdr(envelope), result_xdr: refused.resultXdr, result_codes: refused.resultCodes }));
    return true;
  }
  if (fault?.mode === 'refuse-503') {
    sendProblem(res, staleHistory());
    return true;
  }
  if (fault?.mode === 'try-again-later') {
    sendProblem(res, timeout());
    return true;
  }
  return false;
}

/**
 * Delivers the answer to a submission that core has processed, or what the fault puts in its place.
 * The fault does not look at the outcome: a timeout, a dropped connection or a proxy error hides a
 * rejection as well as a success. `timedOut` is how this API says it gave up waiting (Horizon's
 * own 504 problem by default; RPC never answers 504 itself, so there it is the proxy's page).
 */
export async function answerWithFault(
  res: Response,
  fault: FaultPlan | undefined,
  answer: () => void,
  timedOut: () => void = () => sendProblem(res, timeout()),
): Promise<void> {
  switch (fault?.mode) {
    case 'apply-then-504':
    case 'lag-then-504':
    case 'split-then-504':
      return timedOut();
    case 'apply-then-502':
      res.status(502).type('text/html').send(BAD_GATEWAY_PAGE);
      return;
    case 'apply-then-reset':
      // RST rather than FIN: the client sees ECONNRESET ("socket hang up"), never a response
      res.socket?.resetAndDestroy();
      return;
    case 'slow':
      await sleep(fault.slowMs ?? 0);
      // the client may have given up meanwhile
      if (!res.destroyed) answer();
      return;
    default:
      answer();
  }
}
