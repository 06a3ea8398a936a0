import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger';
import { isStartFailure } from './start-failure';

/** First pause before a dead worker's replacement; doubles with each death in a row, up to the cap. */
const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A death this long after the one before starts the backoff again from its base. */
const CALM_AFTER_MS = 60_000;
/**
 * Replacements in a row that die before they listen: whatever stops them (the database gone, a
 * disk full) is not going away by itself, so the primary stops and says why instead of forking
 * forever. An orchestrator restarting the whole service sees the failure.
 */
const START_FAILURES_LIMIT = 5;
/** How long workers have to finish after the signal (each has its own grace period within it) before they are killed. */
const STOP_GRACE_MS = 30_000;

interface Member {
  worker: Worker;
  listening: boolean;
  /** What the worker said before exiting because it could not start. */
  startFailure?: string;
}

/**
 * The cluster primary of WEB_CONCURRENCY=N (N > 1): it serves no request. It starts one worker
 * first, alone, so that a fresh database is migrated and the embedded server started by one
 * process (drizzle's migrator takes no lock: two at once on an empty database fail), then the
 * others; the port is shared through node:cluster (connections handed out in turn). It replaces
 * a worker that dies, with a backoff; it stops, exiting 1 with the reason, when the first workers
 * cannot start or replacements keep dying before they listen; on SIGTERM or SIGINT it passes
 * the signal on, each worker shuts down gracefully, and it exits once they all have.
 */
export function runPrimary(size: number, logger: Logger): void {
  const log = logger.child({ role: 'cluster primary' });
  const members = new Map<number, Member>();
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  let restartDelayMs = RESTART_BASE_MS;
  let lastDeathAt = 0;
  let startFailuresInARow = 0;
  const restarts = new Set<NodeJS.Timeout>();
  let exitCode = 0;

  const fork = (): void => {
    const worker = cluster.fork();
    members.set(worker.id, { worker, listening: false });
    log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
    worker.on('message', (message: unknown) => {
      const member = members.get(worker.id);
      if (member && isStartFailure(message)) member.startFailure = message.reason;
    });
  };

  // The log is buffered: its last lines (why the cluster stopped) are written before the exit.
  const exit = (code: number): void => {
    const now = () => process.exit(code);
    setTimeout(now, 2_000).unref();
    log.flush(now);
  };

  const stop = (signal: NodeJS.Signals, code: number): void => {
    if (phase === 'stopping') return;
    phase = 'stopping';
    exitCode = code;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    if (members.size === 0) {
      log.info({ exitCode }, 'no worker running: cluster primary exiting');
      exit(exitCode);
      return;
    }
    log.info({ signal, workers: members.size }, 'stopping: passing the signal on to every worker');
    for (const { worker } of members.values()) worker.process.kill(signal);
    const late = setTimeout(() => {
      log.error({ workers: members.size }, 'workers still running after the grace period: killing them');
      exitCode = 1;
      for (const { worker } of members.values()) worker.process.kill('SIGKILL');
    }, STOP_GRACE_MS);
    late.unref();
  };

  cluster.on('listening', (worker) => {
    const member = members.get(worker.id);
    if (!member || member.listening) return;
    member.listening = true;
    log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker listening');
    if (phase === 'starting') {
      const listening = [...members.values()].filter((m) => m.listening).length;
      // The first one has migrated the database and started what is shared: the rest start together.
      if (members.size === 1) for (let i = 1; i < size; i++) fork();
      if (listening === size) {
        phase = 'running';
        log.info({ workers: size }, `every worker listening: ${size} service processes`);
      }
    } else if (phase === 'running') {
      startFailuresInARow = 0;
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const member = members.get(worker.id);
    members.delete(worker.id);
    const how = { worker: worker.id, workerPid: worker.process.pid, code, signal, reason: member?.startFailure };
    if (phase === 'stopping') {
      // Killed by the signal passed on before it could install its own handler: stopped as asked.
      const clean = code === 0 || signal === 'SIGTERM' || signal === 'SIGINT';
      if (!clean) exitCode = 1;
      log[clean ? 'info' : 'error'](how, 'worker stopped');
      if (members.size === 0) {
        log.info({ exitCode }, 'every worker stopped: cluster primary exiting');
        exit(exitCode);
      }
      return;
    }
    if (phase === 'starting') {
      log.error(how, 'a worker could not start: stopping the cluster');
      stop('SIGTERM', 1);
      return;
    }
    if (!member?.listening) startFailuresInARow++;
    if (startFailuresInARow >= START_FAILURES_LIMIT) {
      log.error({ ...how, startFailuresInARow }, 'replacement workers keep dying before they listen: stopping the cluster');
      stop('SIGTERM', 1);
      return;
    }
    const now = Date.now();
    restartDelayMs = now - lastDeathAt > CALM_AFTER_MS ? RESTART_BASE_MS : Math.min(restartDelayMs * 2, RESTART_MAX_MS);
    lastDeathAt = now;
    log.warn({ ...how, restartInMs: restartDelayMs }, 'worker died: starting a replacement');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (phase === 'running') fork();
    }, restartDelayMs);
    restarts.add(timer);
  });

  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));

  log.info({ workers: size }, `starting ${size} service processes on one port`);
  fork();
}
