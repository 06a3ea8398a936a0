import type { Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { BAD_GATEWAY_PAGE } from '../faults/fault-answers';
import type { FaultPlan } from '../faults/fault-plan';

const nginxPage = (status: string) => `<html>
<head><title>${status}</title></head>
<body>
<center><h1>${status}</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

/**
 * Delivers RPC's answer, or what a proxy in front of it puts in its place. stellar-rpc itself only
 * ever answers 200; the 5xx pages and the reset are the load balancer's. refuse-503 reaches no
 * instance (nothing applied); the others happen after core took the transaction.
 */
export async function deliverWithFault(res: Response, fault: FaultPlan | undefined, body: unknown): Promise<void> {
  switch (fault?.mode) {
    case 'apply-then-504':
    case 'lag-then-504':
    case 'split-then-504':
      res.status(504).type('text/html').send(nginxPage('504 Gateway Time-out'));
      return;
    case 'apply-then-502':
      res.status(502).type('text/html').send(BAD_GATEWAY_PAGE);
      return;
    case 'refuse-503':
      res.status(503).type('text/html').send(nginxPage('503 Service Temporarily Unavailable'));
      return;
    case 'apply-then-reset':
      res.socket?.resetAndDestroy();
      return;
    case 'slow':
      await sleep(fault.slowMs ?? 0);
      if (!res.destroyed) res.json(body);
      return;
    default:
      res.json(body);
  }
}
