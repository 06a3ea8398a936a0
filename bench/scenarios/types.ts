import type { BenchEnvironment } from '../service';

export interface ScenarioContext {
  bench: BenchEnvironment;
  /** Tiny counts and 1-2 s loads: proves the harness works (CI), measures nothing. */
  smoke: boolean;
  log(message: string): void;
  /** Aborted on SIGINT; long loops stop at the next check. */
  signal: AbortSignal;
}

/** One target of the issue, judged on this run's figures. */
export interface TargetCheck {
  name: string;
  /** The target as the issue states it. */
  goal: string;
  /** The measured figure, with the baseline it is compared to when there is one. */
  figure: string;
  pass: boolean;
  /**
   * The figure as a number with its threshold, when it has one: `--repeat` judges the median of
   * the runs' values against the threshold (higher or lower is better).
   */
  measure?: { value: number; threshold: number; better: 'higher' | 'lower'; unit?: string };
}

export type Cell = string | number;

export interface Table {
  title: string;
  rows: Record<string, Cell>[];
}

export interface ScenarioResult {
  scenario: string;
  /** Counts, durations, connections, environment of the service instances. */
  settings: Record<string, unknown>;
  /** Figures measured in the same run to compare against. */
  baseline: Record<string, unknown>;
  figures: Record<string, unknown>;
  tables: Table[];
  targets: TargetCheck[];
  notes: string[];
}

export interface Scenario {
  name: string;
  summary: string;
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}
