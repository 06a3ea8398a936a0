import { emptyFaultStats, parseFaultPlan, type FaultPlan, type FaultStats } from './fault-plan';

/** The switch a test (or the CLI, or POST /_sandbox/faults) turns. */
export interface SandboxFaults {
  /** Replaces the current plan; throws FaultPlanError for an invalid one. */
  set(plan: FaultPlan): void;
  /** No more faults, and ledgers held back by a lag are ingested at once, so the next test starts clean. */
  clear(): void;
  /** Submissions that drew the fault, per mode, since the sandbox started (a copy). */
  readonly stats: FaultStats;
}

export interface FaultState {
  plan: FaultPlan | null;
  /** Submissions left under a `next` plan. */
  remaining: number | null;
  stats: FaultStats;
}

/** Holds the plan and decides, one submission at a time, which submissions draw the fault. */
export class FaultInjector implements SandboxFaults {
  private plan: FaultPlan | undefined;
  private remaining: number | undefined;
  private readonly counts = emptyFaultStats();

  constructor(
    private readonly onClear: () => void,
    private readonly random: () => number = Math.random,
  ) {}

  set(plan: FaultPlan): void {
    this.plan = parseFaultPlan(plan);
    this.remaining = this.plan.next;
  }

  clear(): void {
    this.plan = undefined;
    this.remaining = undefined;
    this.onClear();
  }

  get stats(): FaultStats {
    return { ...this.counts };
  }

  describe(): FaultState {
    return { plan: this.plan ?? null, remaining: this.remaining ?? null, stats: this.stats };
  }

  /** The fault for the submission that just arrived, if it draws one. */
  draw(): FaultPlan | undefined {
    const plan = this.plan;
    if (!plan) return undefined;
    if (this.remaining !== undefined) {
      this.remaining -= 1;
      if (this.remaining === 0) {
        // the plan is spent; what it held back (a lag) still runs its course
        this.plan = undefined;
        this.remaining = undefined;
      }
    } else if (plan.share !== undefined && !(this.random() < plan.share)) {
      return undefined;
    }
    this.counts[plan.mode] += 1;
    return plan;
  }
}
