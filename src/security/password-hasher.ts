import os from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt is CPU-bound for tens of milliseconds per call. Run on the event loop, a burst of
 * logins would stall every other request, so hashing and comparing happen on a small pool of
 * worker threads, one per core.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  compare(password: string, hash: string): Promise<boolean>;
  close(): Promise<void>;
}

// Plain JavaScript evaluated inside each worker: no transpiler is involved, so it runs the same
// under tsx, ts-jest and compiled output.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Below the event loop's priority (on Linux this renices only this thread): hashing takes the CPU
// the event loop leaves, and a burst of logins no longer delays every other request.
try { require('node:os').setPriority(10); } catch {}
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', async ({ id, op, password, hash, cost }) => {
  try {
    const result = op === 'hash' ? await bcrypt.hash(password, cost) : await bcrypt.compare(password, hash);
    parentPort.postMessage({ id, result });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

interface Job {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface PoolWorker {
  worker: Worker;
  pending: number;
}

export function createPasswordHasher(options: { cost: number; threads?: number }): PasswordHasher {
  const size = options.threads ?? Math.max(1, os.availableParallelism());
  const jobs = new Map<number, Job>();
  let nextId = 1;
  let workers: PoolWorker[] | undefined;

  // Started on first use so that commands which never hash (and tests) don't pay for threads.
  function pool(): PoolWorker[] {
    if (workers) return workers;
    workers = Array.from({ length: size }, () => {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptPath: require.resolve('bcryptjs') } });
      worker.unref();
      const entry: PoolWorker = { worker, pending: 0 };
      worker.on('message', (msg: { id: number; result?: unknown; error?: string }) => {
        entry.pending--;
        const job = jobs.get(msg.id);
        jobs.delete(msg.id);
        if (!job) return;
        if (msg.error !== undefined) job.reject(new Error(`password hashing failed: ${msg.error}`));
        else job.resolve(msg.result);
      });
      return entry;
    });
    return workers;
  }

  function run<T>(message: Record<string, unknown>): Promise<T> {
    const all = pool();
    // Least-busy worker: keeps every core working under a burst.
    const target = all.reduce((a, b) => (b.pending < a.pending ? b : a));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      jobs.set(id, { resolve: resolve as (v: unknown) => void, reject });
      target.pending++;
      target.worker.postMessage({ id, ...message });
    });
  }

  return {
    hash: (password) => run<string>({ op: 'hash', password, cost: options.cost }),
    compare: (password, hash) => run<boolean>({ op: 'compare', password, hash }),
    async close() {
      const all = workers ?? [];
      workers = undefined;
      await Promise.all(all.map((w) => w.worker.terminate()));
      for (const job of jobs.values()) job.reject(new Error('password hasher closed'));
      jobs.clear();
    },
  };
}
