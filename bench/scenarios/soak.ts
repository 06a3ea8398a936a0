import fs from 'node:fs';
import type autocannon from 'autocannon';
import { loopDelayBetween, scrapeLoopDelay } from '../event-loop';
import { expectStatus, request, sleep } from '../http';
import { round, startLoad, type LoadFigures } from '../load';
import { loadRow } from '../report';
import { adminToken, createUsers, issueSupply, mintTo, USER_PASSWORD, type SeededUser } from '../seed';
import { LedgerSandboxProcess, ServiceInstance } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult, TargetCheck } from './types';

/** Tokens minted to each user: at TRANSFER_AMOUNT per transfer no balance runs out in 5 minutes. */
const STARTING_TOKENS = 10_000;
/** Tiny, so the ring of transfers never drains a wallet (no 400s for insufficient balance). */
const TRANSFER_AMOUNT = 0.01;
/** RSS growth allowed from the post-warm-up baseline to the end (the issue's target). */
const MAX_GROWTH = 0.2;

interface RssSample {
  /** Seconds since the load started. */
  atS: number;
  rssMiB: number;
}

/** VmRSS of a process in MiB (Linux: the kernel's resident set, the figure `ps` and `top` show). */
function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return round(Number(kib) / 1024, 1);
}

/**
 * One pass of what a signed-in user does, sent in order on each connection. autocannon clears the
 * per-connection context at the start of every pass, so the first request picks the next user
 * round-robin and the rest of the pass acts as that user: every user sends and receives.
 */
function mixedRequests(users: SeededUser[]): autocannon.Request[] {
  let next = 0;
  const json = { 'content-type': 'application/json' };
  const userOf = (context: Record<string, unknown>) => users[Number(context.user ?? 0)]!;
  const auth = (context: Record<string, unknown>) => ({ authorization: `Bearer ${userOf(context).token}` });
  return [
    {
      method: 'GET',
      path: '/healthz',
      setupRequest: (req, context) => {
        context.user = next++ % users.length;
        return req;
      },
    },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: '/api/users/profile', headers: auth(c) }) },
    // A page of 20: the soak looks for leaks, not for the cost of the 40 KB default page (read-path has that).
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: `/api/ledger/transactions/${userOf(c).userId}?limit=20`, headers: auth(c) }) },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: `/api/ledger/check-balance/${userOf(c).publicKey}`, headers: auth(c) }) },
    {
      method: 'POST',
      path: '/api/users/login',
      setupRequest: (req, c) => ({ ...req, headers: json, body: JSON.stringify({ identifier: userOf(c).username, password: USER_PASSWORD }) }),
    },
    {
      method: 'POST',
      path: '/api/ledger/transfer',
      setupRequest: (req, c) => {
        const to = users[(Number(c.user ?? 0) + 1) % users.length]!;
        return { ...req, headers: { ...json, ...auth(c) }, body: JSON.stringify({ receiverPublicKey: to.publicKey, amount: TRANSFER_AMOUNT }) };
      },
    },
    // 4xx by design, once per pass each: a body that fails validation, and a request with no token.
    { method: 'POST', path: '/api/ledger/transfer', setupRequest: (req, c) => ({ ...req, headers: { ...json, ...auth(c) }, body: JSON.stringify({ amount: -1 }) }) },
    { method: 'GET', path: '/api/users/profile' },
  ];
}

/** Funded users, and one transfer of each kind checked by hand so the load sends valid traffic. */
async function seed(svc: ServiceInstance, count: number): Promise<SeededUser[]> {
  const admin = await adminToken(svc);
  await issueSupply(svc, admin);
  const users = await createUsers(svc, 'sk', count);
  await Promise.all(users.map((u) => mintTo(svc, admin, u.userId, STARTING_TOKENS)));
  await expectStatus(200, 'POST', `${svc.baseUrl}/api/ledger/transfer`, {
    token: users[0]!.token,
    body: { receiverPublicKey: users[1]!.publicKey, amount: TRANSFER_AMOUNT },
    timeoutMs: 60_000,
  });
  return users;
}

/** Samples RSS every intervalS until `stopped()` or the deadline; bounded by the sample count too. */
async function sampleRss(pid: number, t0: number, intervalS: number, untilS: number, stopped: () => boolean): Promise<RssSample[]> {
  const samples: RssSample[] = [];
  const maxSamples = Math.ceil(untilS / intervalS) + 1;
  for (let i = 1; i <= maxSamples && !stopped(); i++) {
    const wait = t0 + i * intervalS * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
    if (stopped()) break;
    samples.push({ atS: round((performance.now() - t0) / 1000, 1), rssMiB: rssMiB(pid) });
  }
  return samples;
}

/**
 * Minutes of mixed traffic on one instance: every route a user touches, a transfer, a login, and
 * requests rejected by design, looking for what short scenarios cannot see: 5xx that appear only
 * after a while, and resident memory that keeps growing once the caches and pools are warm.
 */
export const soak: Scenario = {
  name: 'soak',
  summary: '5 min of mixed traffic at 50 connections: zero 5xx, RSS growth after a 30 s warm-up < 20%',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = ctx.smoke
      ? { users: 4, connections: 10, durationS: 3, warmupS: 1, sampleEveryS: 0.5 }
      : { users: 10, connections: 50, durationS: 300, warmupS: 30, sampleEveryS: 5 };
    // The ledger runs beside the service, as Horizon does in production: the embedded sandbox
    // keeps its whole history in the service's heap, which is ledger state, not a service leak.
    const ledger = await LedgerSandboxProcess.launch(ctx.bench);
    const svc = await ServiceInstance.launch(ctx.bench, { label: 'soak', ledgerCloseMs: 0, bcryptCost: 4, extraEnv: ledger.env }).catch(async (err: unknown) => {
      await ledger.dispose();
      throw err;
    });
    try {
      ctx.log(`${s.users} funded users (${STARTING_TOKENS} tokens each)`);
      const users = await seed(svc, s.users);
      const pid = svc.pid;
      if (pid === undefined) throw new Error('the service is not running');
      const idleMiB = rssMiB(pid);

      ctx.log(`mixed traffic: ${s.connections} connections, ${s.durationS} s; RSS every ${s.sampleEveryS} s (now ${idleMiB} MiB idle)`);
      // The loop's delay over the whole run: scraped before the load starts and once it ends.
      const loopBefore = await scrapeLoopDelay(svc.baseUrl);
      const t0 = performance.now();
      const load = startLoad({ label: 'mixed traffic (8 requests per pass)', url: svc.baseUrl, connections: s.connections, durationS: s.durationS, requests: mixedRequests(users) });
      let finished = false;
      const onAbort = () => load.stop();
      ctx.signal.addEventListener('abort', onAbort);
      const sampling = sampleRss(pid, t0, s.sampleEveryS, s.durationS + 60, () => finished);
      let figures: LoadFigures;
      try {
        figures = await load.done;
        const loop = loopDelayBetween(loopBefore, await scrapeLoopDelay(svc.baseUrl));
        if (loop) figures = { ...figures, loop };
      } finally {
        finished = true;
        ctx.signal.removeEventListener('abort', onAbort);
      }
      const samples = await sampling;
      // The end figure: the load has just stopped, before anything idle could release memory.
      samples.push({ atS: round((performance.now() - t0) / 1000, 1), rssMiB: rssMiB(pid) });
      if (ctx.signal.aborted) throw new Error('aborted');

      const baseline = samples.find((x) => x.atS >= s.warmupS) ?? samples[0]!;
      const end = samples[samples.length - 1]!;
      const after = samples.filter((x) => x.atS >= baseline.atS);
      const maxMiB = Math.max(...after.map((x) => x.rssMiB));
      const growth = (end.rssMiB - baseline.rssMiB) / baseline.rssMiB;

      const byClass: Record<string, number> = {};
      for (const [code, n] of Object.entries(figures.statusCodes)) byClass[`${code[0]}xx`] = (byClass[`${code[0]}xx`] ?? 0) + n;
      const fivexx = byClass['5xx'] ?? 0;
      // A 400 does not say which request failed; the records the transfers left do.
      const records = await Promise.all(
        users.map(async (u) => Number((await request('GET', `${svc.baseUrl}/api/ledger/transactions/${u.userId}?limit=1`, { token: u.token })).headers.get('x-total-count'))),
      );

      const targets: TargetCheck[] = [
        {
          name: 'no 5xx over the whole run',
          goal: '0 (4xx by design allowed)',
          figure: `${fivexx} 5xx of ${figures.requests} (${Object.entries(byClass).map(([c, n]) => `${c} ${n}`).join(', ')}; ${figures.errors} errors, ${figures.timeouts} timeouts)`,
          pass: fivexx === 0 && figures.requests > 0,
        },
        {
          name: 'RSS growth after the warm-up',
          goal: `< ${MAX_GROWTH * 100}%`,
          figure: `${baseline.rssMiB} MiB at ${baseline.atS} s -> ${end.rssMiB} MiB at ${end.atS} s = ${(growth * 100).toFixed(1)}% (max ${maxMiB} MiB, idle before load ${idleMiB} MiB)`,
          pass: growth < MAX_GROWTH,
        },
      ];
      return {
        scenario: 'soak',
        settings: { ...s, transferAmount: TRANSFER_AMOUNT, startingTokens: STARTING_TOKENS, ledgerCloseMs: 0, bcryptCost: 4, database: svc.bench.databaseUrl ? 'postgres' : 'embedded' },
        baseline: { rssIdleMiB: idleMiB, rssBaselineMiB: baseline.rssMiB, rssBaselineAtS: baseline.atS },
        figures: { load: figures, statusClasses: byClass, rssEndMiB: end.rssMiB, rssMaxMiB: maxMiB, rssGrowthPct: round(growth * 100, 1), transactionRecords: records.reduce((a, b) => a + b, 0), rss: samples },
        tables: [
          { title: `autocannon, ${s.connections} connections, ${s.durationS} s, one pass = 8 requests (latency ms)`, rows: [loadRow(figures)] },
          { title: 'status codes', rows: Object.entries(figures.statusCodes).map(([status, n]) => ({ status, responses: n })) },
          { title: `resident memory of the service (VmRSS, MiB), baseline at ${baseline.atS} s`, rows: samples.filter((_, i) => i % Math.max(1, Math.round(30 / s.sampleEveryS)) === 0 || i === samples.length - 1).map((x) => ({ 's': x.atS, MiB: x.rssMiB })) },
        ],
        targets,
        notes: [
          'One pass per connection, in order: GET /healthz, GET /api/users/profile, GET /api/ledger/transactions/:userId?limit=20, GET /api/ledger/check-balance/:publicKey, POST /api/users/login, POST /api/ledger/transfer (0.01 to the next user), then 4xx by design: a transfer with an invalid body (400) and the profile without a token (401).',
          'Both by-design 4xx are sent once per pass, so 400 and 401 counts should match; an excess of 400 would be failed transfers.',
          `LEDGER_CLOSE_MS=0, BCRYPT_COST=4 (logins hash at cost 4). ${records.reduce((a, b) => a + b, 0)} transaction records in the users' lists after the run (X-Total-Count summed): the transfers went through.`,
          'RSS is the service child\'s VmRSS (/proc/<pid>/status): the embedded PostgreSQL server is a separate process, not counted.',
        ],
      };
    } finally {
      await svc.dispose();
      await ledger.dispose();
    }
  },
};
