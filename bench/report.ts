import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoopDelay } from './event-loop';
import type { LoadFigures } from './load';
import type { Cell, ScenarioResult, Table } from './scenarios/types';

export const RESULTS_DIR = path.join(__dirname, 'results');

export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  totalMemoryGiB: number;
  node: string;
  platform: string;
  release: string;
  arch: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: os.platform(),
    release: os.release(),
    arch: os.arch(),
  };
}

/** The commit measured (read-only git), so a figure can be traced to the code that produced it. */
export function gitCommit(cwd: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** One row of a load table. */
/** One row of a load table; with the service's event loop delay during the run when it was recorded. */
export function loadRow(f: LoadFigures, extra: Record<string, Cell> = {}): Record<string, Cell> {
  const row: Record<string, Cell> = { what: f.label, ...extra, 'req/s': f.rps, p50: f.p50, p90: f.p90, p99: f.p99, max: f.max, ok: f.ok, 'non-2xx': f.non2xx, errors: f.errors + f.timeouts };
  return f.loop ? { ...row, ...loopCells(f.loop) } : row;
}

/** The event loop's delay as table cells (ms): p99, and the bound the longest sample is under. */
export function loopCells(loop: LoopDelay | undefined): Record<string, Cell> {
  return loop ? { 'loop p99': loop.p99, 'loop max<=': loop.max } : {};
}

export function formatTable(table: Table): string {
  if (table.rows.length === 0) return `${table.title}\n  (no rows)`;
  const columns = [...new Set(table.rows.flatMap((r) => Object.keys(r)))];
  const text = (v: Cell | undefined) => (v === undefined ? '' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...table.rows.map((r) => text(r[c]).length)));
  // Numbers right-aligned, text left-aligned, column by column.
  const numeric = columns.map((c) => table.rows.every((r) => r[c] === undefined || typeof r[c] === 'number'));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [table.title, line(columns), line(widths.map((w) => '-'.repeat(w))), ...table.rows.map((r) => line(columns.map((c) => text(r[c]))))].join('\n');
}

export function printResult(result: ScenarioResult): void {
  const out: string[] = ['', `=== ${result.scenario} ===`];
  for (const table of result.tables) out.push(formatTable(table), '');
  for (const t of result.targets) out.push(`  ${t.pass ? 'PASS' : 'MISS'}  ${t.name}: ${t.figure} (target ${t.goal})`);
  for (const n of result.notes) out.push(`  note: ${n}`);
  console.log(out.join('\n'));
}

export interface RunMeta {
  command: string;
  date: string;
  machine: MachineInfo;
  commit: string | undefined;
  /** The repository started (a scratch copy in an A/B run). */
  serviceDir: string;
  smoke: boolean;
  database: string;
  /** Load average before and after the scenario: a busy machine shows here. */
  loadAverage: { before: number[]; after: number[] };
  durationS: number;
}

/** bench/results/<timestamp>-<scenario>.json (ignored by git; BENCHMARKS.md keeps the figures that matter). */
export function writeResult(stamp: string, result: ScenarioResult, meta: RunMeta): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${stamp}-${result.scenario}${meta.smoke ? '-smoke' : ''}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ ...meta, ...result }, null, 2)}\n`);
  return file;
}

export function printSummary(outcomes: { scenario: string; result?: ScenarioResult; error?: string; file?: string }[]): void {
  const lines = ['', '=== summary ==='];
  for (const o of outcomes) {
    if (o.error) {
      lines.push(`  ERROR ${o.scenario}: ${o.error}`);
      continue;
    }
    const targets = o.result?.targets ?? [];
    const misses = targets.filter((t) => !t.pass);
    lines.push(`  ${o.scenario}: ${targets.length - misses.length}/${targets.length} targets met${o.file ? `  -> ${path.relative(process.cwd(), o.file)}` : ''}`);
    for (const m of misses) lines.push(`    MISS ${m.name}: ${m.figure} (target ${m.goal})`);
  }
  console.log(lines.join('\n'));
}

/** Quiet: a 1-minute load average under 1 before a run starts (issue 22). */
export const QUIET_LOAD = 1;

/** "0.42 0.35 0.30", and a warning when the machine was not quiet. */
export function loadLine(load: number[]): string {
  const text = load.map((l) => l.toFixed(2)).join(' ');
  return load[0]! >= QUIET_LOAD ? `${text}  (NOT QUIET: 1-minute load >= ${QUIET_LOAD})` : text;
}

export interface RepeatedRun {
  run: number;
  /** os.loadavg() just before the run started. */
  loadBefore: number[];
  result: ScenarioResult;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * After `--repeat N`: every run's figures of every measured target, each run's load average
 * before it, then the medians judged against the targets' thresholds.
 */
export function printMedians(scenario: string, runs: RepeatedRun[]): void {
  const names = [...new Set(runs.flatMap((r) => r.result.targets.filter((t) => t.measure).map((t) => t.name)))];
  const quiet = runs.filter((r) => r.loadBefore[0]! < QUIET_LOAD).length;
  const out = ['', `=== ${scenario}: medians of ${runs.length} runs ===`];
  out.push(`  load average (1 min) before each run: ${runs.map((r) => `#${r.run} ${r.loadBefore[0]!.toFixed(2)}`).join(', ')}`);
  out.push(quiet === runs.length ? `  every run started on a quiet machine (1-minute load < ${QUIET_LOAD})` : `  NOT QUIET: ${runs.length - quiet} of ${runs.length} runs started with a 1-minute load >= ${QUIET_LOAD}`);
  const rows: Record<string, Cell>[] = [];
  const verdicts: string[] = [];
  for (const name of names) {
    const measured = runs.map((r) => r.result.targets.find((t) => t.name === name)?.measure);
    const values = measured.filter((m) => m !== undefined).map((m) => m.value);
    const m = measured.find((x) => x !== undefined)!;
    const med = Math.round(median(values) * 100) / 100;
    const pass = m.better === 'higher' ? med >= m.threshold : med <= m.threshold;
    const unit = m.unit === undefined ? '' : m.unit;
    const row: Record<string, Cell> = { target: name };
    runs.forEach((r, i) => (row[`#${r.run}`] = measured[i]?.value ?? '-'));
    rows.push({ ...row, median: med, goal: `${m.better === 'higher' ? '>=' : '<='} ${m.threshold}${unit ? ` ${unit}` : ''}` });
    verdicts.push(`  ${pass ? 'PASS' : 'MISS'}  ${name}: median ${med}${unit ? ` ${unit}` : ''} of ${values.length} runs (target ${m.better === 'higher' ? '>=' : '<='} ${m.threshold}${unit ? ` ${unit}` : ''})`);
  }
  out.push(formatTable({ title: 'every run (figures as judged: ratios, or ms)', rows }), '', ...verdicts);
  console.log(out.join('\n'));
}
