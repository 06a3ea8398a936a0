import { sql } from 'drizzle-orm';
import { PgBoss, fromDrizzle } from 'pg-boss';
import type { Executor } from '../db/client';
import type { Logger } from '../logger';

/** The queue's one job kind: deliver one event to one endpoint (webhook_deliveries row). */
const QUEUE = 'webhook-delivery';
/** Jobs one worker slot takes per fetch. */
const BATCH = 5;

interface DeliveryJob {
  deliveryId: string;
}

export interface DeliveryQueueOptions {
  /** The database the service uses: the queue keeps its tables there, in schema `pgboss`. */
  url: string;
  /**
   * How long a worker's job may go without its heartbeat before the queue gives it to another
   * process (a process killed mid-delivery). pg-boss takes 10 s at the least.
   */
  heartbeatSeconds: number;
  /** Deliveries one process makes at once. */
  concurrency: number;
  /** How often the queue looks for jobs whose heartbeat stopped (and does its upkeep). */
  monitorSeconds: number;
}

/**
 * The webhook deliveries' job queue: pg-boss (a maintained PostgreSQL queue) in the service's own
 * database, so a delivery is enqueued in the transaction that writes its event (`enqueue` with the
 * caller's transaction) and every process shares the work. A job a process dies holding comes back
 * when its heartbeat stops; the delivery's own row says whether it was made already.
 */
export class DeliveryQueue {
  private readonly boss: PgBoss;
  private ready?: Promise<void>;
  private working = false;

  constructor(
    private readonly options: DeliveryQueueOptions,
    private readonly logger: Logger,
  ) {
    this.boss = new PgBoss({
      connectionString: options.url,
      max: 2,
      application_name: 'wallet-queue',
      supervise: true,
      schedule: false,
      useListenNotify: true,
      monitorIntervalSeconds: options.monitorSeconds,
      superviseIntervalSeconds: options.monitorSeconds,
    });
    // pg-boss reports its own trouble (a lost connection, a maintenance error) here rather than throwing.
    this.boss.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'job queue error'));
  }

  /** Installs or upgrades the queue's tables (once per process) and declares the queue. */
  private start(): Promise<void> {
    this.ready ??= (async () => {
      await this.boss.start();
      const settings = {
        notify: true,
        heartbeatSeconds: this.options.heartbeatSeconds,
        // Retries here are for a worker that died or threw; an endpoint's failures are the
        // delivery's own schedule (webhook-delivery.ts), each a new job.
        retryLimit: 20,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 300,
        expireInSeconds: 300,
      };
      await this.boss.createQueue(QUEUE, settings);
      // create leaves an existing queue as the first process made it: this configuration's
      // settings (a heartbeat changed since) apply from now on.
      await this.boss.updateQueue(QUEUE, settings);
    })().catch((err) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /** Before anything enqueues: the queue's tables exist (an enqueue inside a transaction cannot create them). */
  async prepare(): Promise<void> {
    await this.start();
  }

  /** Jobs for these deliveries, in the caller's transaction: they exist if and only if it commits. */
  async enqueue(tx: Executor, deliveryIds: readonly string[], startAfter?: Date): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.start();
    await this.boss.insert(
      QUEUE,
      deliveryIds.map((deliveryId) => ({ data: { deliveryId } satisfies DeliveryJob, ...(startAfter ? { startAfter } : {}) })),
      { db: fromDrizzle(tx as Parameters<typeof fromDrizzle>[0], sql) },
    );
  }

  /** This process takes deliveries from now on (every process may: the queue hands each job to one). */
  async work(deliver: (deliveryId: string) => Promise<void>): Promise<void> {
    await this.start();
    if (this.working) return;
    this.working = true;
    const batch = Math.min(BATCH, this.options.concurrency);
    await this.boss.work<DeliveryJob>(
      QUEUE,
      {
        // Slots of a few jobs each, together at most `concurrency` deliveries at once. A backlog
        // (a replay, an endpoint back after an outage) is fetched again at once while fetches come back full.
        localConcurrency: Math.max(1, Math.floor(this.options.concurrency / batch)),
        batchSize: batch,
        burstWhenBatchFull: true,
        // NOTIFY wakes a worker for a job due now; a retry's job is due later and is found by the
        // poll: once a second per process (not per delivery), so a retry is at most a second late.
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
      },
      async (jobs) => {
        // A delivery already made is skipped when its job runs again, so a batch that throws
        // (the database, not an endpoint: an endpoint's failures are recorded) runs again whole.
        const results = await Promise.allSettled(jobs.map((job) => deliver(job.data.deliveryId)));
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      },
    );
  }

  async stop(): Promise<void> {
    if (!this.ready) return;
    await this.ready.catch(() => undefined);
    await this.boss.stop({ graceful: true, timeout: 20_000 }).catch(() => undefined);
  }
}
