import { z } from 'zod';

/**
 * The ways real Horizon fails a submission on a bad day. The apply-then-* modes are the dangerous
 * ones for a client: the transaction is in the ledger but the answer says otherwise or nothing.
 * bad-seq is another client using the account's next sequence number first (a wallet's owner holds
 * its key): core refuses the envelope with tx_bad_seq and applies nothing. The lag and split modes
 * apply the transaction and answer as usual (or with a 504), but hold its ledger back from some read
 * sides for lagMs (see ReadSides): lag from every read, split from the lookups by hash, split-reads
 * from one of two instances behind a load balancer that the other reads reach in turn.
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
  'split-reads',
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
   * split, split-then-504: to the transaction lookups by hash only;
   * split-reads: to the lagging one of two read sides, which every read but the lookups by hash
   * reaches in turn with the up-to-date one while the ledger is held back.
   */
  lagMs?: number;
  /** slow: how long the answer waits after the transaction applied. */
  slowMs?: number;
}

/** Submissions that drew the fault, per mode, since the sandbox started. */
export type FaultStats = Record<FaultMode, number>;

export const emptyFaultStats = (): FaultStats =>
  Object.fromEntries(FAULT_MODES.map((mode) => [mode, 0])) as FaultStats;

/** The modes that hold the submission's ledger back from some read side for lagMs. */
export const LAG_MODES = ['lag', 'lag-then-504', 'split', 'split-then-504', 'split-reads'] as const satisfies readonly FaultMode[];

export type LagMode = (typeof LAG_MODES)[number];

export const isLagMode = (mode: FaultMode): mode is LagMode => (LAG_MODES as readonly FaultMode[]).includes(mode);

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
    const needsLag = isLagMode(plan.mode);
    if (needsLag !== (plan.lagMs !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['lagMs'], message: needsLag ? `required for ${plan.mode}` : `only for ${LAG_MODES.join(', ')}` });
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
