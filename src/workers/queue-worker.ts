import { errorReason } from '../errors/loggable-error';
import type { Logger } from '../logger';
import { BackgroundWorker } from './background-worker';
import type { PeriodicTaskOptions } from './periodic-task';

export interface RetryPolicy {
  /** A claim on an item lasts this long; another process may take it after. */
  leaseMs: number;
  /** First retry delay; doubles per attempt up to maxDelayMs. */
  retryBaseMs: number;
  maxDelayMs: number;
  /** Attempts before an item is set aside as failed. */
  maxAttempts: number;
}

/** A queue in the database whose items are claimed under a lease and count their attempts. */
export interface LeasedQueue<Item> {
  claimDue(limit: number, leaseMs: number): Promise<Item[]>;
  retryLater(id: string, delayMs: number, reason: string): Promise<void>;
  /** Gives up on the item after its last attempt. */
  setAside(id: string, reason: string): Promise<void>;
}

export interface QueueWorkerOptions<Item> extends PeriodicTaskOptions {
  batchSize: number;
  policy: RetryPolicy;
  /** What the logs say of an item (ids and references, never secrets). */
  describe: (item: Item) => Record<string, unknown>;
  logMessages: { retrying: string; setAside: string; notFinal?: string };
}

/**
 * Works through a leased queue (the mail outbox, the webhook inbox) from any number of processes:
 * each pass claims due items in batches until none is left; an item whose `handle` throws is
 * retried later with exponential backoff, and set aside after its last attempt.
 */
export abstract class QueueWorker<Item extends { id: string; attempts: number }> extends BackgroundWorker {
  protected constructor(
    private readonly queue: LeasedQueue<Item>,
    private readonly queueOptions: QueueWorkerOptions<Item>,
    protected readonly logger: Logger,
  ) {
    // Work is queued and then run() is called; a call during a pass that has already looked must
    // get another pass, or the new item waits for the next interval (or forever, without one).
    super(logger, { rerunWhenCalledDuringPass: true, ...queueOptions });
  }

  /**
   * Does the item's work and records it done; throws to have it retried (a failure, logged), or
   * answers `later` when the work is fine but its outcome is not final yet (asked again with the
   * same backoff, logged at debug only: a checkout left open is not a failure).
   */
  protected abstract handle(item: Item): Promise<void | 'later'>;

  protected async pass(): Promise<void> {
    const { batchSize, policy } = this.queueOptions;
    for (;;) {
      const due = await this.queue.claimDue(batchSize, policy.leaseMs);
      if (due.length === 0) return;
      await Promise.all(due.map((item) => this.attempt(item)));
    }
  }

  private async attempt(item: Item): Promise<void> {
    try {
      if ((await this.handle(item)) === 'later') await this.failed(item, 'not final yet', false);
    } catch (err) {
      await this.failed(item, errorReason(err), true);
    }
  }

  private async failed(item: Item, reason: string, isError: boolean): Promise<void> {
    const { policy, describe, logMessages } = this.queueOptions;
    if (item.attempts >= policy.maxAttempts) {
      this.logger.error({ ...describe(item), attempts: item.attempts, reason }, logMessages.setAside);
      await this.queue.setAside(item.id, reason).catch(() => undefined);
      return;
    }
    const delay = Math.min(policy.maxDelayMs, policy.retryBaseMs * 2 ** (item.attempts - 1));
    if (isError) this.logger.warn({ ...describe(item), attempt: item.attempts, reason }, logMessages.retrying);
    else this.logger.debug({ ...describe(item), attempt: item.attempts, delayMs: delay }, logMessages.notFinal ?? 'not final yet, asking again later');
    await this.queue.retryLater(item.id, delay, reason).catch(() => undefined);
  }
}
