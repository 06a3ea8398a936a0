import { z } from 'zod';

/**
 * The ways real Horizon fails a submission on a bad day. The apply-then-* modes are the dangerous
 * ones for a client: the transaction is in the ledger but the answer says otherwise or nothing.
 * bad-seq is another client using the account's next sequence number first (a wallet's owner holds
 * its key): core refuses the envelope with tx_bad_seq and applies nothing.
 */
export const FAULT_MODES = [
  'apply-then-504',
  'apply-then-reset',
  'apply-then-502',
  'lag',
  'lag-then-504',
  'refuse-503',
  'slow',
  'try-again-later',
  'bad-seq',
  'split',
  'split-then-504',
] as const;

export type FaultMode = (typeof FAULT_MODES)[number];

export interface FaultPlan {
  mode: FaultMode;
  /** A random share (0..1) of submissions gets the fault. */
  share?: number;
  /** The next N submissions get the fault, then the plan ends. Neither share nor next: every submission. */
  next?: number;
  /**
   * lag, lag-then-504: how long after its close a ledger stays invisible to the read routes;
   * split, split-then-504: to the transaction lookups by hash only.
   */
  lagMs?: number;
  /** slow: how long the answer waits after the transaction applied. */
  slowMs?: number;
}

/** Submissions that drew the fault, per mode, since the sandbox started. */
export type FaultStats = Record<FaultMode, number>;

export const emptyFaultStats = (): FaultStats =>
  Object.fromEntries(FAULT_MODES.map((mode) => [mode, 0])) as FaultStats;

const LAG_MODES: readonly FaultMode[] = ['lag', 'lag-then-504', 'split', 'split-then-504'];
const milliseconds = z.number().int().positive();

const faultPlanSchema = z
  .strictObject({
    mode: z.enum(FAULT_MODES),
    share: z.number().min(0).max(1).optional(),
    next: z.number().int().positive().optional(),
    lagMs: milliseconds.optional(),
    slowMs: milliseconds.optional(),
  })
  .superRefine((plan, ctx) => {
    // a duration the mode does not use is most likely a mistake in the test that set it
    const needsLag = LAG_MODES.includes(plan.mode);
    if (needsLag !== (plan.lagMs !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['lagMs'], message: needsLag ? `required for ${plan.mode}` : 'only for lag, lag-then-504, split and split-then-504' });
    }
    const needsSlow = plan.mode === 'slow';
    if (needsSlow !== (plan.slowMs !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['slowMs'], message: needsSlow ? 'required for slow' : 'only for slow' });
    }
    if (plan.share !== undefined && plan.next !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['next'], message: 'give share or next, not both' });
    }
  });

export class FaultPlanError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'FaultPlanError';
  }
}

/** Checks a plan from a test, an HTTP body or the command line; throws FaultPlanError naming the field. */
export function parseFaultPlan(input: unknown): FaultPlan {
  const result = faultPlanSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'plan';
  throw new FaultPlanError(field, `${field}: ${issue?.message ?? 'not a fault plan'}`);
}
