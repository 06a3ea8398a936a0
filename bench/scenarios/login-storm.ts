import bcrypt from 'bcryptjs';
import { runLoad, round, type LoadFigures } from '../load';
import { runOpenLoop, startOpenLoop } from '../open-loop';
import { loadRow } from '../report';
import { createUsers, USER_PASSWORD } from '../seed';
import { ServiceInstance } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult } from './types';

/** The service's default BCRYPT_COST, which this scenario keeps. */
const SERVICE_BCRYPT_COST = 10;

/**
 * What one thread can do: bcryptjs.compare at the service's cost, sequentially, in this process
 * while the service idles. The service's worker pool should beat it by about the core count.
 */
async function singleThreadCompareRate(iterations: number): Promise<{ perSecond: number; msEach: number; iterations: number }> {
  const hash = await bcrypt.hash(USER_PASSWORD, SERVICE_BCRYPT_COST);
  await bcrypt.compare(USER_PASSWORD, hash); // warm-up, not counted
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    if (!(await bcrypt.compare(USER_PASSWORD, hash))) throw new Error('bcrypt baseline: compare failed');
  }
  const ms = performance.now() - started;
  return { perSecond: round((iterations * 1000) / ms, 2), msEach: round(ms / iterations, 1), iterations };
}

/**
 * A burst of logins (bcrypt at cost 10 on the service's worker threads) while a fixed-rate probe
 * measures GET /healthz: the event loop must stay responsive, and the pool must use the cores.
 */
export const loginStorm: Scenario = {
  name: 'login-storm',
  summary: '200 logins at concurrency 50 with a GET /healthz latency probe beside them',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = ctx.smoke
      ? { logins: 20, concurrency: 5, users: 4, bcryptIterations: 3, probeRate: 50, idleProbeS: 1 }
      : { logins: 200, concurrency: 50, users: 20, bcryptIterations: 20, probeRate: 200, idleProbeS: 5 };
    const svc = await ServiceInstance.launch(ctx.bench, { label: 'login-storm', ledgerCloseMs: 0 });
    try {
      ctx.log(`signing up ${s.users} users at BCRYPT_COST=${SERVICE_BCRYPT_COST}`);
      const users = await createUsers(svc, 'ls', s.users, 2);

      // Measured before and after the storm and averaged: on a shared machine the CPU available
      // drifts, and the ratio should compare like with like.
      ctx.log(`baseline: ${s.bcryptIterations} x bcryptjs.compare, one thread, in the bench process`);
      const bcryptBefore = await singleThreadCompareRate(s.bcryptIterations);

      const probe = { url: `${svc.baseUrl}/healthz`, ratePerS: s.probeRate };
      ctx.log(`baseline: /healthz probe at ${s.probeRate} req/s for ${s.idleProbeS} s with no logins`);
      const idle = await runOpenLoop({ ...probe, label: 'GET /healthz probe, idle (baseline)', durationS: s.idleProbeS, loopOf: svc.baseUrl });

      ctx.log(`storm: ${s.logins} logins, ${s.concurrency} at a time, probe running`);
      const during = startOpenLoop({ ...probe, label: 'GET /healthz probe, during the storm', durationS: 300 });
      // The storm starts once the probe measures: its process start and warm-up must not hide the storm's first seconds.
      await during.measuring;
      let next = 0;
      const storm = await runLoad({
        label: `POST /api/users/login x ${s.logins}`,
        url: `${svc.baseUrl}/api/users/login`,
        connections: s.concurrency,
        amount: s.logins,
        maxSeconds: 180,
        // The storm's own window (the probe runs through it): the loop's delay while passwords are checked.
        loopOf: svc.baseUrl,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            method: 'POST',
            path: '/api/users/login',
            // Round-robin over several accounts: every login is a real lookup and compare.
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ identifier: users[next++ % users.length]!.username, password: USER_PASSWORD }) }),
          },
        ],
      }).finally(() => during.stop());
      const probeDuring = await during.done;
      ctx.log('baseline again after the storm');
      const bcryptAfter = await singleThreadCompareRate(s.bcryptIterations);
      const bcryptRate = {
        perSecond: round((bcryptBefore.perSecond + bcryptAfter.perSecond) / 2, 2),
        msEach: round((bcryptBefore.msEach + bcryptAfter.msEach) / 2, 1),
        iterations: bcryptBefore.iterations + bcryptAfter.iterations,
      };

      const ratio = bcryptRate.perSecond > 0 ? storm.rps / bcryptRate.perSecond : 0;
      const failed = storm.non2xx + storm.errors + storm.timeouts;
      const rows = [idle, probeDuring, storm].map((f: LoadFigures) => loadRow(f));
      return {
        scenario: 'login-storm',
        settings: { ...s, bcryptCost: SERVICE_BCRYPT_COST, database: svc.bench.databaseUrl ? 'postgres' : 'embedded' },
        baseline: { singleThreadBcrypt: bcryptRate, singleThreadBcryptBefore: bcryptBefore, singleThreadBcryptAfter: bcryptAfter, healthzIdle: idle },
        figures: { logins: storm, healthzDuringStorm: probeDuring, loginsPerSecondVsOneThread: round(ratio, 2) },
        tables: [
          { title: `probe: open loop, Poisson arrivals at ${s.probeRate} req/s, each timed from when it was due; storm: ${s.concurrency} connections (latency ms)`, rows },
          {
            title: 'bcrypt',
            rows: [
              { what: `bcryptjs.compare, cost ${SERVICE_BCRYPT_COST}, one thread, before the storm`, 'per s': bcryptBefore.perSecond, 'ms each': bcryptBefore.msEach },
              { what: `bcryptjs.compare, cost ${SERVICE_BCRYPT_COST}, one thread, after the storm`, 'per s': bcryptAfter.perSecond, 'ms each': bcryptAfter.msEach },
              { what: 'one thread, mean (baseline)', 'per s': bcryptRate.perSecond, 'ms each': bcryptRate.msEach },
              { what: 'logins through the service', 'per s': storm.rps, 'ms each': round(storm.seconds * 1000 / Math.max(1, storm.ok), 1) },
            ],
          },
        ],
        targets: [
          { name: 'healthz p99 during the storm', goal: '< 10 ms', figure: `${probeDuring.p99} ms (idle ${idle.p99} ms)`, pass: probeDuring.p99 < 10 && probeDuring.ok > 0 },
          { name: 'login throughput vs one bcrypt thread', goal: '>= 1.6x', figure: `${storm.rps}/s = ${ratio.toFixed(2)}x of ${bcryptRate.perSecond}/s`, pass: ratio >= 1.6 },
          { name: 'failed logins', goal: '0', figure: String(failed), pass: failed === 0 },
        ],
        notes: ['The probe runs at a fixed rate (open loop, its own process, bench/open-loop.ts), so it measures latency, not how much CPU it can take from the logins.'],
      };
    } finally {
      await svc.dispose();
    }
  },
};
