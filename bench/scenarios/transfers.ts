import { withLoopDelay } from '../event-loop';
import { cpuByPartRow, cpuPerRequest, withMachineCpu, type MachineCpu } from '../machine-cpu';
import { request } from '../http';
import { LedgerWatch } from '../ledger-watch';
import { summarize, type LoadFigures, type Sample } from '../load';
import { loadRow } from '../report';
import { adminToken, createUsers, issueSupply, mintTo, type SeededUser } from '../seed';
import { LedgerSandboxProcess, ServiceInstance, type BenchEnvironment } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult, Table, TargetCheck } from './types';

/** Tokens minted to each sender: enough for any run's transfers of one token. */
const STARTING_TOKENS = 100_000;
/** A hard cap per sender on top of the duration, so the loop is bounded in count as well as time. */
const MAX_TRANSFERS_PER_USER = 5_000;

interface Transfer extends Sample {
  /** Ledger of the transfer (from the answer) and the latest closed ledger when it was sent. */
  ledger?: number;
  sentAtLedger?: number;
}

export async function transfer(svc: ServiceInstance, from: SeededUser, to: SeededUser, sentAtLedger?: number): Promise<Transfer> {
  const t = performance.now();
  try {
    const res = await request<{ result?: { ledger: number } }>('POST', `${svc.baseUrl}/api/ledger/transfer`, {
      token: from.token,
      body: { receiverPublicKey: to.publicKey, amount: 1 },
      timeoutMs: 60_000,
    });
    return { ms: performance.now() - t, status: res.status, ledger: res.body.result?.ledger, sentAtLedger };
  } catch {
    return { ms: performance.now() - t, status: 'error', sentAtLedger };
  }
}

/** Users with active wallets and tokens: signup (activation), then one admin mint each. */
export async function fundedUsers(svc: ServiceInstance, prefix: string, count: number): Promise<SeededUser[]> {
  const admin = await adminToken(svc);
  await issueSupply(svc, admin);
  const users = await createUsers(svc, prefix, count, 20);
  await Promise.all(users.map((u) => mintTo(svc, admin, u.userId, STARTING_TOKENS)));
  return users;
}

/** Each sender pays the next one in a ring, one transfer after another, until the time is up. */
export async function closedLoop(svc: ServiceInstance, senders: SeededUser[], ring: SeededUser[], seconds: number, signal: AbortSignal): Promise<{ samples: Transfer[]; seconds: number }> {
  const samples: Transfer[] = [];
  const started = performance.now();
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    senders.map(async (from, i) => {
      const to = ring[(i + 1) % ring.length]!;
      for (let n = 0; n < MAX_TRANSFERS_PER_USER && Date.now() < end && !signal.aborted; n++) samples.push(await transfer(svc, from, to));
    }),
  );
  return { samples, seconds: (performance.now() - started) / 1000 };
}

/** Where the service's ledger is: its sandbox host, as `npm start` runs it, or a standalone sandbox ledger spoken to through Stellar RPC. */
type Setup = 'npm start' | 'standalone sandbox';

/** The service for one part, with a standalone sandbox ledger when the setup asks for one; `dispose` stops both. */
async function launchFor(bench: BenchEnvironment, setup: Setup, label: string, ledgerCloseMs: number): Promise<{ svc: ServiceInstance; dispose(): Promise<void> }> {
  if (setup === 'npm start') {
    const svc = await ServiceInstance.launch(bench, { label, ledgerCloseMs, bcryptCost: 4 });
    return { svc, dispose: () => svc.dispose() };
  }
  const ledger = await LedgerSandboxProcess.launch(bench, ledgerCloseMs);
  try {
    const svc = await ServiceInstance.launch(bench, { label: `${label}-standalone`, ledgerCloseMs, bcryptCost: 4, extraEnv: ledger.envFor('rpc'), ledgerHorizonUrl: ledger.url });
    return {
      svc,
      dispose: async () => {
        await svc.dispose();
        await ledger.dispose();
      },
    };
  } catch (err) {
    await ledger.dispose();
    throw err;
  }
}

async function throughputPart(bench: BenchEnvironment, setup: Setup, s: { users: number; durationS: number; baselineS: number }, ctx: ScenarioContext) {
  const { svc, dispose } = await launchFor(bench, setup, 'transfers-0', 0);
  try {
    ctx.log(`LEDGER_CLOSE_MS=0: ${s.users} funded users`);
    const users = await fundedUsers(svc, 'tf', s.users);
    ctx.log(`baseline: one user transferring alone for ${s.baselineS} s`);
    const alone = await withLoopDelay(svc.baseUrl, () => withMachineCpu(() => closedLoop(svc, users.slice(0, 1), users.slice(0, 2), s.baselineS, ctx.signal)));
    ctx.log(`${s.users} users transferring at once for ${s.durationS} s`);
    const all = await withLoopDelay(svc.baseUrl, () => withMachineCpu(() => closedLoop(svc, users, users, s.durationS, ctx.signal)));
    return {
      baseline: { ...summarize('1 user, transfers one after another (baseline)', alone.result.result.samples, alone.result.result.seconds), loop: alone.loop },
      concurrent: { ...summarize(`${s.users} users at once, each one after another`, all.result.result.samples, all.result.result.seconds), loop: all.loop },
      cpu: { baseline: alone.result.cpu, concurrent: all.result.cpu },
    };
  } finally {
    await dispose();
  }
}

async function confirmationPart(bench: BenchEnvironment, setup: Setup, s: { users: number; rounds: number; closeMs: number }, ctx: ScenarioContext) {
  const { svc, dispose } = await launchFor(bench, setup, 'transfers-close', s.closeMs);
  let watch: LedgerWatch | undefined;
  try {
    ctx.log(`LEDGER_CLOSE_MS=${s.closeMs}: ${s.users} funded users`);
    const users = await fundedUsers(svc, 'tc', s.users);
    watch = await LedgerWatch.start(svc.horizonUrl);
    const samples: Transfer[] = [];
    const started = performance.now();
    const { loop } = await withLoopDelay(svc.baseUrl, async () => {
      for (let round = 0; round < s.rounds && !ctx.signal.aborted; round++) {
        ctx.log(`round ${round + 1}/${s.rounds}: ${s.users} transfers at once`);
        const sentAt = watch!.latest();
        samples.push(...(await Promise.all(users.map((u, i) => transfer(svc, u, users[(i + 1) % users.length]!, sentAt)))));
      }
    });
    const seconds = (performance.now() - started) / 1000;
    // Closes a transfer waited: its ledger minus the latest closed when it was sent (the watch is at
    // most one poll behind, which can only add a close), and its latency in close periods.
    const landed = samples.filter((t) => t.ledger !== undefined);
    const closes = landed.map((t) => Math.max(t.ledger! - t.sentAtLedger!, Math.ceil(t.ms / s.closeMs)));
    // The two halves of a transfer's count apart: where it landed (ledgers after the one closed
    // when it was sent) and how long its answer took (in close periods). A transfer in the next
    // ledger answered a period late is the answer's delay, not the ledger's.
    const byLedger = landed.map((t) => t.ledger! - t.sentAtLedger!);
    const byLatency = landed.map((t) => Math.ceil(t.ms / s.closeMs));
    return { figures: { ...summarize(`${s.users} users at once x ${s.rounds} rounds`, samples, seconds), loop }, closes, byLedger, byLatency, sent: samples.length };
  } finally {
    await watch?.stop();
    await dispose();
  }
}

/** The machine's CPU per transfer answered, and the steal beside it (none off Linux). */
function cpuCells(cpu: MachineCpu | undefined, ok: number): Record<string, number> {
  const perTransfer = cpuPerRequest(cpu, ok);
  return perTransfer === undefined || !cpu ? {} : { 'cpu ms/transfer': perTransfer, 'steal ms': cpu.stealMs };
}

/**
 * Users' own transfers: each wallet is its own source account with its own submitter, so 100
 * users should run in parallel; with real ledger timing each transfer lands in the next close.
 */
export const transfers: Scenario = {
  name: 'transfers',
  summary: '100 users transferring at once: throughput and p99 (LEDGER_CLOSE_MS=0), confirmation within 2 closes (LEDGER_CLOSE_MS=1000); as npm start runs it, then against a standalone sandbox ledger',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = ctx.smoke
      ? { users: 5, durationS: 1, baselineS: 1, rounds: 1, closeMs: 200 }
      : { users: 100, durationS: 10, baselineS: 5, rounds: 3, closeMs: 1000 };
    const setups: Setup[] = ['npm start', 'standalone sandbox'];
    const measured = [];
    for (const setup of setups) measured.push(await measureSetup(ctx, setup, s));
    const [npmStart, standalone] = measured;
    const tables = measured.flatMap((m) => m.tables);
    const targets = measured.flatMap((m) => m.targets);
    return {
      scenario: 'transfers',
      settings: { ...s, amountPerTransfer: 1, startingTokens: STARTING_TOKENS, bcryptCost: 4, database: ctx.bench.databaseUrl ? 'postgres' : 'embedded' },
      baseline: { oneUser: npmStart!.throughput.baseline },
      figures: { ...npmStart!.figures, standaloneSandbox: standalone?.figures },
      tables,
      targets,
      notes: [
        'npm start: the service with its embedded database and its sandbox host (ledger through Stellar RPC); standalone sandbox: the same service pointed with STELLAR_RPC_URL at the sandbox ledger run on its own (npm run sandbox:ledger).',
        'Sender i pays sender i+1 (a ring), so every wallet sends and receives; each sender waits for its answer before the next transfer (closed loop).',
        'A transfer\'s closes = max(its ledger - the latest closed ledger when sent, ceil(latency / LEDGER_CLOSE_MS)).',
      ],
    };
  },
};

/** One setup's two parts, as tables and targets named after it. */
async function measureSetup(ctx: ScenarioContext, setup: Setup, s: { users: number; durationS: number; baselineS: number; rounds: number; closeMs: number }) {
  const throughput = await throughputPart(ctx.bench, setup, s, ctx);
  const confirmation = await confirmationPart(ctx.bench, setup, s, ctx);

  const byCloses = new Map<number, number>();
  for (const c of confirmation.closes) byCloses.set(c, (byCloses.get(c) ?? 0) + 1);
  const histogram = Object.fromEntries([...byCloses].sort(([a], [b]) => a - b).map(([c, n]) => [`${c} close${c === 1 ? '' : 's'}`, n]));
  const worst = confirmation.closes.length ? Math.max(...confirmation.closes) : Infinity;
  const sorted = [...confirmation.closes].sort((a, b) => a - b);
  const p50Closes = sorted.length ? sorted[Math.ceil(sorted.length / 2) - 1]! : Infinity;
  const failed = (f: LoadFigures) => f.non2xx + f.errors;
  const tables: Table[] = [
    {
      title: `${setup}: LEDGER_CLOSE_MS=0, closed loop per user (latency ms; cpu ms/transfer: the machine's CPU over the phase, every process, per transfer answered; steal: the hypervisor's)`,
      rows: [loadRow(throughput.baseline, cpuCells(throughput.cpu.baseline, throughput.baseline.ok)), loadRow(throughput.concurrent, cpuCells(throughput.cpu.concurrent, throughput.concurrent.ok))],
    },
    {
      title: `${setup}: where the machine's CPU went, ms per transfer answered, by part (processes alive through the phase; PostgreSQL: every backend)`,
      rows: [
        cpuByPartRow(throughput.baseline.label, throughput.cpu.baseline, throughput.baseline.ok),
        cpuByPartRow(throughput.concurrent.label, throughput.cpu.concurrent, throughput.concurrent.ok),
      ],
    },
    { title: `${setup}: LEDGER_CLOSE_MS=${s.closeMs} (latency ms)`, rows: [loadRow(confirmation.figures, { 'worst closes': worst })] },
    {
      title: `${setup}: closes each transfer waited (judged: the larger of its ledgers after the one closed when sent, and its latency in close periods)`,
      rows: [...new Set([...confirmation.closes, ...confirmation.byLedger, ...confirmation.byLatency])]
        .sort((a, b) => a - b)
        .map((n) => ({ closes: `${n} close${n === 1 ? '' : 's'}`, transfers: countOf(confirmation.closes, n), 'by ledger': countOf(confirmation.byLedger, n), 'by latency': countOf(confirmation.byLatency, n) })),
    },
  ];
  const targets: TargetCheck[] = [
    {
      name: `${setup}: ${s.users} users at once (LEDGER_CLOSE_MS=0): every transfer succeeds`,
      goal: '0 failed',
      figure: `${throughput.concurrent.rps} transfers/s, p99 ${throughput.concurrent.p99} ms, ${failed(throughput.concurrent)} failed (1 user alone: ${throughput.baseline.rps}/s, p99 ${throughput.baseline.p99} ms)`,
      pass: failed(throughput.concurrent) === 0 && throughput.concurrent.ok > 0,
    },
    {
      name: `${setup}: every transfer confirms (LEDGER_CLOSE_MS=${s.closeMs})`,
      goal: '<= 2 closes',
      figure: `worst ${worst} closes over ${confirmation.closes.length}/${confirmation.sent} confirmed, p99 ${confirmation.figures.p99} ms`,
      pass: worst <= 2 && confirmation.closes.length === confirmation.sent,
      measure: { value: worst, threshold: 2, better: 'lower', unit: 'closes' },
    },
    // The goals of issue 37, judged on medians with --repeat.
    {
      name: `${setup}: ${s.users} users at once (LEDGER_CLOSE_MS=0): transfers/s`,
      goal: '>= 150/s',
      figure: `${throughput.concurrent.rps}/s`,
      pass: throughput.concurrent.rps >= 150,
      measure: { value: throughput.concurrent.rps, threshold: 150, better: 'higher', unit: '/s' },
    },
    {
      name: `${setup}: ${s.users} users at once (LEDGER_CLOSE_MS=0): p99`,
      goal: '<= 1500 ms',
      figure: `${throughput.concurrent.p99} ms`,
      pass: throughput.concurrent.p99 <= 1500,
      measure: { value: throughput.concurrent.p99, threshold: 1500, better: 'lower', unit: 'ms' },
    },
    {
      name: `${setup}: ${s.users} transfers at once (LEDGER_CLOSE_MS=${s.closeMs}): p50 closes`,
      goal: '<= 1 close',
      figure: `${p50Closes} closes`,
      pass: p50Closes <= 1,
      measure: { value: p50Closes, threshold: 1, better: 'lower', unit: 'closes' },
    },
  ];
  const figures = {
    concurrent: throughput.concurrent,
    cpuMsPerTransfer: { baseline: cpuPerRequest(throughput.cpu.baseline, throughput.baseline.ok), concurrent: cpuPerRequest(throughput.cpu.concurrent, throughput.concurrent.ok) },
    cpuMsByPart: { baseline: throughput.cpu.baseline?.byPart, concurrent: throughput.cpu.concurrent?.byPart },
    confirmation: confirmation.figures,
    closesHistogram: histogram,
    worstCloses: worst,
  };
  return { tables, targets, throughput, figures };
}

function countOf(values: number[], n: number): number {
  return values.filter((v) => v === n).length;
}
