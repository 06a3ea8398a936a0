import { request, sleep } from '../http';
import { LedgerWatch } from '../ledger-watch';
import { quantileOf, summarize, type LoadFigures } from '../load';
import { loadRow } from '../report';
import type { SeededUser } from '../seed';
import { ServiceInstance, type BenchEnvironment } from '../service';
import { closedLoop, fundedUsers, transfer } from './transfers';
import type { Scenario, ScenarioContext, ScenarioResult, Table, TargetCheck } from './types';

/** The follower as `npm start` runs it, and off (LEDGER_FOLLOW_INTERVAL_MS=0): the same tree, the same run. */
type Mode = 'on' | 'off';
const FOLLOW_ENV: Record<Mode, string> = { on: '1000', off: '0' };

/** The follower's lag in ledgers, from the service's own gauge; undefined before its first page (or off). */
async function lagOf(svc: ServiceInstance): Promise<number | undefined> {
  const res = await request<string>('GET', `${svc.baseUrl}/metrics`, { timeoutMs: 30_000 }).catch(() => undefined);
  const m = typeof res?.body === 'string' ? /^ledger_follow_lag_ledgers (\d+)$/m.exec(res.body) : null;
  return m ? Number(m[1]) : undefined;
}

/** Samples the gauge every `everyMs` while `work` runs. */
async function sampledLag<T>(svc: ServiceInstance, everyMs: number, work: () => Promise<T>): Promise<{ result: T; lags: number[] }> {
  const lags: number[] = [];
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const lag = await lagOf(svc);
      if (lag !== undefined) lags.push(lag);
      await sleep(everyMs);
    }
  })();
  try {
    return { result: await work(), lags };
  } finally {
    done = true;
    await sampler;
  }
}

/** A user's list read one after another: its latency (ms) and the records each answer held. */
async function listReads(svc: ServiceInstance, user: SeededUser, count: number): Promise<{ figures: LoadFigures; records: number }> {
  const samples = [];
  let records = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await request<unknown[]>('GET', `${svc.baseUrl}/api/ledger/transactions/${user.userId}?limit=100`, { token: user.token, timeoutMs: 30_000 });
    samples.push({ ms: performance.now() - t, status: res.status });
    records = Array.isArray(res.body) ? res.body.length : 0;
  }
  return { figures: summarize(`GET a user's list (100 of its records), one after another`, samples, (performance.now() - started) / 1000), records };
}

/** Instant ledgers, 100 users in a ring: the write path's rate with the follower on or off, its lag meanwhile, and the list after. */
async function instantPart(bench: BenchEnvironment, mode: Mode, s: Settings, ctx: ScenarioContext) {
  const svc = await ServiceInstance.launch(bench, { label: `follow-${mode}`, ledgerCloseMs: 0, bcryptCost: 4, extraEnv: { LEDGER_FOLLOW_INTERVAL_MS: FOLLOW_ENV[mode] } });
  try {
    ctx.log(`follower ${mode}, LEDGER_CLOSE_MS=0: ${s.users} funded users`);
    const users = await fundedUsers(svc, `lf${mode}`, s.users);
    ctx.log(`follower ${mode}: ${s.users} users transferring at once for ${s.durationS} s`);
    const { result, lags } = await sampledLag(svc, 250, () => closedLoop(svc, users, users, s.durationS, ctx.signal));
    const figures = summarize(`follower ${mode}: ${s.users} users at once, each one after another`, result.samples, result.seconds);
    // Once the load stops, how long until the follower has read up to the tip.
    const stopped = performance.now();
    let caughtUpMs: number | undefined;
    if (mode === 'on') {
      for (let i = 0; i < 600 && caughtUpMs === undefined; i++) {
        if ((await lagOf(svc)) === 0) caughtUpMs = performance.now() - stopped;
        else await sleep(100);
      }
    }
    const list = await listReads(svc, users[0]!, s.listReads);
    return { figures, lags, caughtUpMs, list };
  } finally {
    await svc.dispose();
  }
}

/** 1 s ledgers, follower on: 100 transfers at once per round, the lag sampled in ledgers (each a close). */
async function closingPart(bench: BenchEnvironment, s: Settings, ctx: ScenarioContext) {
  const svc = await ServiceInstance.launch(bench, { label: 'follow-close', ledgerCloseMs: s.closeMs, bcryptCost: 4, extraEnv: { LEDGER_FOLLOW_INTERVAL_MS: FOLLOW_ENV.on } });
  let watch: LedgerWatch | undefined;
  try {
    ctx.log(`follower on, LEDGER_CLOSE_MS=${s.closeMs}: ${s.users} funded users`);
    const users = await fundedUsers(svc, 'lfc', s.users);
    watch = await LedgerWatch.start(svc.horizonUrl);
    const { lags } = await sampledLag(svc, 250, async () => {
      for (let round = 0; round < s.rounds && !ctx.signal.aborted; round++) {
        ctx.log(`round ${round + 1}/${s.rounds}: ${s.users} transfers at once`);
        await Promise.all(users.map((u, i) => transfer(svc, u, users[(i + 1) % users.length]!)));
      }
    });
    return { lags };
  } finally {
    await watch?.stop();
    await svc.dispose();
  }
}

interface Settings {
  users: number;
  durationS: number;
  rounds: number;
  closeMs: number;
  listReads: number;
}

function lagCells(lags: number[]): Record<string, number | string> {
  const sorted = [...lags].sort((a, b) => a - b);
  return sorted.length === 0 ? { 'lag samples': 0 } : { 'lag samples': sorted.length, 'lag p50 ledgers': quantileOf(sorted, 0.5), 'lag p99 ledgers': quantileOf(sorted, 0.99), 'lag max ledgers': sorted.at(-1)! };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length === 0 ? NaN : Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
};

/**
 * The ledger follower's cost (issue 48, CONTRACT 12 "Cost"): the same tree with the follower off
 * and on, alternating within the run, so the machine's drift falls on both.
 */
export const ledgerFollow: Scenario = {
  name: 'ledger-follow',
  summary: "the ledger follower on and off in one run: 100 users transferring on instant ledgers (transfers/s, p99, the follower's lag, a user's list), then its lag at 1 s ledgers",
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s: Settings = ctx.smoke ? { users: 5, durationS: 1, rounds: 1, closeMs: 200, listReads: 10 } : { users: 100, durationS: 10, rounds: 3, closeMs: 1000, listReads: 300 };
    const order: Mode[] = ctx.smoke ? ['off', 'on'] : ['off', 'on', 'off', 'on'];
    const parts: ({ mode: Mode } & Awaited<ReturnType<typeof instantPart>>)[] = [];
    for (const mode of order) parts.push({ mode, ...(await instantPart(ctx.bench, mode, s, ctx)) });
    const closing = await closingPart(ctx.bench, s, ctx);

    const rate = (mode: Mode) => median(parts.filter((p) => p.mode === mode).map((p) => p.figures.rps));
    const listP50 = (mode: Mode) => median(parts.filter((p) => p.mode === mode).map((p) => p.list.figures.p50));
    const onLags = parts.filter((p) => p.mode === 'on').flatMap((p) => p.lags);
    const closingMax = closing.lags.length ? Math.max(...closing.lags) : Infinity;
    const drop = 1 - rate('on') / rate('off');
    const tables: Table[] = [
      {
        title: 'LEDGER_CLOSE_MS=0: transfers (latency ms), the follower off and on in turn; lag sampled every 250 ms from ledger_follow_lag_ledgers (each instant ledger is one transaction or one batch)',
        rows: parts.map((p) => loadRow(p.figures, { ...lagCells(p.lags), ...(p.caughtUpMs !== undefined ? { 'caught up after the load, ms': Math.round(p.caughtUpMs) } : {}) })),
      },
      { title: "A user's list after the load (latency ms)", rows: parts.map((p) => loadRow({ ...p.list.figures, label: `follower ${p.mode}: ${p.list.figures.label}` }, { records: p.list.records })) },
      { title: `LEDGER_CLOSE_MS=${s.closeMs}, follower on: ${s.users} transfers at once x ${s.rounds} rounds`, rows: [lagCells(closing.lags)] },
    ];
    const targets: TargetCheck[] = [
      {
        name: 'transfers/s with the follower on',
        goal: 'drops by at most a tenth against the follower off (medians of the alternating parts)',
        figure: `${rate('on').toFixed(1)}/s on, ${rate('off').toFixed(1)}/s off (${(drop * 100).toFixed(1)}% drop)`,
        pass: drop <= 0.1,
        measure: { value: drop * 100, threshold: 10, better: 'lower', unit: '%' },
      },
      {
        name: 'follower lag at 1 s ledgers',
        goal: 'within one close of the tip (max sampled lag <= 1 ledger)',
        figure: `max ${closingMax} ledgers over ${closing.lags.length} samples`,
        pass: closingMax <= 1,
        measure: { value: closingMax, threshold: 1, better: 'lower', unit: 'ledgers' },
      },
      {
        name: "a user's list",
        goal: 'no slower with the follower on (p50 within 10% of off)',
        figure: `p50 ${listP50('on').toFixed(2)} ms on, ${listP50('off').toFixed(2)} ms off`,
        pass: listP50('on') <= listP50('off') * 1.1,
        measure: { value: listP50('on') / listP50('off'), threshold: 1.1, better: 'lower' },
      },
    ];
    return {
      scenario: 'ledger-follow',
      settings: { ...s, order, followIntervalMs: FOLLOW_ENV.on, database: ctx.bench.databaseUrl ? 'postgres' : 'embedded' },
      baseline: { followerOff: parts.filter((p) => p.mode === 'off').map((p) => p.figures) },
      figures: { followerOn: parts.filter((p) => p.mode === 'on').map((p) => p.figures), lagsOnInstant: lagCells(onLags), lagsAtCloses: lagCells(closing.lags) },
      tables,
      targets,
      notes: [
        'The same service tree started as npm start does (embedded database, sandbox host, Stellar RPC), with LEDGER_FOLLOW_INTERVAL_MS=1000 (on, the default) or 0 (off).',
        'On instant ledgers each transaction or fee-bumped batch closes a ledger of its own, so the lag in ledgers there counts transactions the follower has not read yet; at 1 s ledgers it counts closes.',
      ],
    };
  },
};
