import os from 'node:os';
import { runLoad, type LoadFigures } from '../load';
import { loadRow } from '../report';
import { childProcesses } from '../service';
import { launchSeeded, readPathSizes, warmUp } from './read-path';
import type { Scenario, ScenarioContext, ScenarioResult, TargetCheck } from './types';

const PROCESS_COUNTS = [1, 2] as const;

interface CoresRun {
  processes: number;
  /** What the service's process had started (cluster workers, a sandbox host, tsx's esbuild), from /proc. */
  children: string[];
  /** Processes answering requests: the cluster's workers (children running src/server.ts), else the service's process itself. */
  serving: number;
  figures: Record<string, LoadFigures>;
}

/**
 * Issue 22 item 4's benchmark: the read-path routes under the same closed-loop load against the
 * service started with WEB_CONCURRENCY=1 and then =2 (node:cluster workers on one port), one
 * after the other in the same run, each on its own fresh database. The event loop delay is
 * recorded for the one-process service only: with two, /metrics is answered by whichever worker
 * the connection reaches, and two scrapes may read two different loops.
 */
export const readPathCores: Scenario = {
  name: 'read-path-cores',
  summary: 'GET /healthz, /api/users/profile and the transaction list with WEB_CONCURRENCY=1 vs WEB_CONCURRENCY=2, same run',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = readPathSizes(ctx.smoke);
    const runs: CoresRun[] = [];
    for (const processes of PROCESS_COUNTS) {
      if (ctx.signal.aborted) throw new Error('aborted');
      const { svc, routes } = await launchSeeded(ctx, s, `cores-${processes}`, { WEB_CONCURRENCY: String(processes) });
      try {
        const children = svc.pid ? childProcesses(svc.pid) : [];
        ctx.log(`WEB_CONCURRENCY=${processes}: the service's process has ${children.length} child process(es)${children.length ? `: ${children.map((c) => c.slice(0, 80)).join(' | ')}` : ''}`);
        const figures: Record<string, LoadFigures> = {};
        for (const route of routes) {
          if (ctx.signal.aborted) throw new Error('aborted');
          const url = `${svc.baseUrl}${route.path}`;
          await warmUp(s, url, route.headers);
          ctx.log(`WEB_CONCURRENCY=${processes}: autocannon ${route.path}: ${s.connections} connections, ${s.durationS} s`);
          figures[route.key] = await runLoad({
            label: `WEB_CONCURRENCY=${processes}: ${route.label}`,
            url,
            connections: s.connections,
            durationS: s.durationS,
            headers: route.headers,
            loopOf: processes === 1 ? svc.baseUrl : undefined,
          });
        }
        runs.push({ processes, children, serving: Math.max(1, children.filter((c) => c.includes('src/server.ts')).length), figures });
      } finally {
        await svc.dispose();
      }
    }
    const [one, two] = runs as [CoresRun, CoresRun];
    const keys = Object.keys(one.figures);
    const bad = (f: LoadFigures) => f.non2xx + f.errors + f.timeouts;
    const targets: TargetCheck[] = runs.flatMap((r) =>
      Object.values(r.figures).map((f) => ({ name: `${f.label}: non-2xx and errors`, goal: '0', figure: `${bad(f)}`, pass: bad(f) === 0, measure: { value: bad(f), threshold: 0, better: 'lower' as const, unit: '' } })),
    );
    return {
      scenario: 'read-path-cores',
      settings: { ...s, processCounts: PROCESS_COUNTS, cpus: os.availableParallelism() },
      baseline: { oneProcess: one.figures },
      figures: { twoProcesses: two.figures, serving: Object.fromEntries(runs.map((r) => [r.processes, r.serving])), children: Object.fromEntries(runs.map((r) => [r.processes, r.children])) },
      tables: [
        {
          title: `autocannon, ${s.connections} connections, ${s.durationS} s each (latency ms; loop: the one-process service's event loop delay)`,
          rows: runs.flatMap((r) => Object.values(r.figures).map((f) => loadRow(f, { serving: r.serving }))),
        },
        {
          title: 'two processes vs one (req/s)',
          rows: keys.map((k) => ({ what: one.figures[k]!.label.replace('WEB_CONCURRENCY=1: ', ''), '1 process': one.figures[k]!.rps, '2 processes': two.figures[k]!.rps, ratio: Math.round((two.figures[k]!.rps / Math.max(1, one.figures[k]!.rps)) * 100) / 100 })),
        },
      ],
      targets,
      notes: [
        `Processes serving (from /proc: the cluster's workers are the service's children running src/server.ts): WEB_CONCURRENCY=1: ${one.serving}, WEB_CONCURRENCY=2: ${two.serving}.`,
        'On 2 cores the load generator (autocannon) and PostgreSQL share the CPUs with the workers: the ratio is what this machine allows, not what the cluster could do alone.',
      ],
    };
  },
};
