import type { Response } from 'express';
import { answerWithFault, nginxPage } from '../faults/fault-answers';
import type { FaultPlan } from '../faults/fault-plan';

/**
 * Delivers RPC's answer, or what a proxy in front of it puts in its place. stellar-rpc itself only
 * ever answers 200; the 5xx pages and the reset are the load balancer's. refuse-503 reaches no
 * instance (nothing applied); the others happen after core took the transaction, as on Horizon.
 */
export async function deliverWithFault(res: Response, fault: FaultPlan | undefined, body: unknown): Promise<void> {
  if (fault?.mode === 'refuse-503') {
    res.status(503).type('text/html').send(nginxPage('503 Service Temporarily Unavailable'));
    return;
  }
  await answerWithFault(
    res,
    fault,
    () => res.json(body),
    () => res.status(504).type('text/html').send(nginxPage('504 Gateway Time-out')),
  );
}
