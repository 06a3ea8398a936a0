import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseDatabaseUrl } from './database';
import { sleep } from './http';
import { gitCommit, loadLine, machineInfo, printMedians, printResult, printSummary, QUIET_LOAD, writeResult, type RepeatedRun } from './report';
import { SCENARIOS } from './scenarios';
import type { ScenarioResult } from './scenarios/types';
import { cleanUpAfterInterrupt, stopAllChildren } from './service';

const USAGE = `usage: npm run bench [-- [--smoke] [--scenario NAME[,NAME]] [--database-url postgres://postgres@127.0.0.1:5432/bench]
                                 [--service-dir DIR] [--keep-temp] [--cpu-prof DIR] [--repeat N] [--settle S]]
scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}
  --smoke          tiny counts, 1-2 s loads: proves the harness works; exits 0 whatever the figures
  --database-url   run on a PostgreSQL server (loopback only); the database is dropped and recreated per instance
  --service-dir    the repository to start (default: this one), e.g. a scratch copy with a proposed fix
  --keep-temp      keep each instance's DATA_DIR and service.log under the OS temp directory
  --cpu-prof DIR   start the services with node --cpu-prof, profiles written to DIR (open in Chrome DevTools)
  --repeat N       run each scenario N times (its service and same-run baselines alternate within every run),
                   the 1-minute load average printed before each; then the median of every figure, judged
  --settle S       before each run, wait up to S seconds for a quiet machine (1-minute load < 1); default 180
                   with --repeat (a run leaves the load average high for the next one), else 0`;

function parse() {
  const { values } = parseArgs({
    options: {
      smoke: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      'database-url': { type: 'string' },
      'service-dir': { type: 'string' },
      'keep-temp': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      repeat: { type: 'string', default: '1' },
      settle: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const names = (values.scenario ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}\n${USAGE}`);
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 50) throw new Error(`--repeat must be a whole number from 1 to 50, got ${values.repeat}\n${USAGE}`);
  const settleS = Number(values.settle ?? (repeat > 1 ? 180 : 0));
  if (!Number.isFinite(settleS) || settleS < 0) throw new Error(`--settle must be a number of seconds, got ${values.settle}\n${USAGE}`);
  const databaseUrl = values['database-url'];
  if (databaseUrl) parseDatabaseUrl(databaseUrl);
  return {
    smoke: values.smoke,
    scenarios: names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name)),
    databaseUrl,
    serviceDir: path.resolve(values['service-dir'] ?? path.join(__dirname, '..')),
    keepTemp: values['keep-temp'],
    repeat,
    settleS,
    serviceNodeArgs: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [],
  };
}

/** Waits up to `maxS` seconds for a 1-minute load average under QUIET_LOAD; the seconds waited. */
async function waitForQuiet(maxS: number, signal: AbortSignal): Promise<number> {
  const started = Date.now();
  while (os.loadavg()[0]! >= QUIET_LOAD && Date.now() - started < maxS * 1000 && !signal.aborted) await sleep(2_000);
  return Math.round((Date.now() - started) / 1000);
}

async function main(): Promise<number> {
  const options = parse();
  const abort = new AbortController();
  let interrupted = 0;
  // Ctrl-C: stop every service the bench started before leaving; a second one kills at once.
  process.on('SIGINT', () => {
    interrupted++;
    abort.abort();
    console.error(interrupted === 1 ? '\ninterrupted: stopping the services...' : '\nkilling the services');
    void cleanUpAfterInterrupt(interrupted === 1 ? 10_000 : 0).finally(() => process.exit(130));
  });
  process.on('SIGTERM', () => {
    abort.abort();
    void cleanUpAfterInterrupt(5_000).finally(() => process.exit(143));
  });

  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  const machine = machineInfo();
  const database = options.databaseUrl ? `postgres (${new URL(options.databaseUrl).host})` : 'embedded PostgreSQL';
  console.log(`wallet-service bench${options.smoke ? ' (smoke)' : ''}: ${machine.cpuCount} x ${machine.cpuModel}, ${machine.totalMemoryGiB} GiB, node ${machine.node}, ${database}`);
  console.log(`load average now: ${loadLine(os.loadavg())} (the lead runs the full bench on a quiet machine)`);

  const outcomes: { scenario: string; result?: ScenarioResult; error?: string; file?: string }[] = [];
  for (const scenario of options.scenarios) {
    const runs: RepeatedRun[] = [];
    for (let run = 1; run <= options.repeat; run++) {
      if (abort.signal.aborted) break;
      const waited = await waitForQuiet(options.settleS, abort.signal);
      if (waited > 0) console.log(`\n  waited ${waited} s for the machine to settle (1-minute load ${os.loadavg()[0]!.toFixed(2)})`);
      const t0 = Date.now();
      const before = os.loadavg();
      const name = options.repeat > 1 ? `${scenario.name} #${run}/${options.repeat}` : scenario.name;
      console.log(`\n--- ${name}: ${scenario.summary}`);
      console.log(`  load average before: ${loadLine(before)}`);
      try {
        const result = await scenario.run({
          bench: { serviceDir: options.serviceDir, databaseUrl: options.databaseUrl, keepTemp: options.keepTemp, serviceNodeArgs: options.serviceNodeArgs },
          smoke: options.smoke,
          signal: abort.signal,
          log: (m) => console.log(`  [${name} +${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`),
        });
        printResult(result);
        const file = writeResult(options.repeat > 1 ? `${stamp}-run${run}` : stamp, result, {
          command,
          date: new Date().toISOString(),
          machine,
          commit: gitCommit(options.serviceDir),
          serviceDir: options.serviceDir,
          smoke: options.smoke,
          database,
          loadAverage: { before, after: os.loadavg() },
          durationS: Math.round((Date.now() - t0) / 100) / 10,
        });
        outcomes.push({ scenario: name, result, file });
        runs.push({ run, loadBefore: before, result });
      } catch (err) {
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        console.error(`  ${name} failed: ${message}`);
        outcomes.push({ scenario: name, error: err instanceof Error ? err.message.split('\n')[0] : String(err) });
        await stopAllChildren();
      }
    }
    if (options.repeat > 1 && runs.length > 0) printMedians(scenario.name, runs);
  }
  printSummary(outcomes);
  console.log(`\ntotal ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);
  // A missed target is a finding, not a harness failure (the list above names them); an error is.
  return outcomes.some((o) => o.error) ? 1 : 0;
}

main()
  .then((code) => process.exit(code))
  .catch(async (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    await stopAllChildren();
    process.exit(1);
  });
