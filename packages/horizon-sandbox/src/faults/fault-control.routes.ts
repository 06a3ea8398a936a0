import express, { type Router } from 'express';
import { badRequest, sendProblem } from '../problems';
import type { FaultInjector } from './fault-injector';
import { FaultPlanError, parseFaultPlan } from './fault-plan';

/**
 * /_sandbox/faults: the fault switch for a sandbox in another process (the CLI). Sandbox-only, not a
 * Horizon route. Every answer is the current state: { plan, remaining, stats }.
 *   GET     the current plan and the counts of faults drawn per mode
 *   POST    a FaultPlan as JSON: replaces the current plan (400 naming the field if invalid)
 *   DELETE  no more faults; what a lag held back is ingested at once
 */
export function faultControlRouter(faults: FaultInjector): Router {
  const router = express.Router();

  router.get('/', (_req, res) => {
    res.json(faults.describe());
  });

  router.post('/', (req, res) => {
    try {
      faults.set(parseFaultPlan(req.body));
    } catch (error) {
      if (!(error instanceof FaultPlanError)) throw error;
      return sendProblem(res, badRequest(error.field, error.message));
    }
    res.json(faults.describe());
  });

  router.delete('/', (_req, res) => {
    faults.clear();
    res.json(faults.describe());
  });

  return router;
}
