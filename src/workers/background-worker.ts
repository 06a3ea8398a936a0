import type { Logger } from '../logger';
import { PeriodicTask, type PeriodicTaskOptions } from './periodic-task';

/**
 * A service's background work (the reconciler, the webhook inbox, the mail outbox, the wallet
 * sweep): `pass` runs at start, on an interval and on demand, one at a time (see PeriodicTask).
 */
export abstract class BackgroundWorker {
  private readonly task: PeriodicTask;

  protected constructor(logger: Logger, options: PeriodicTaskOptions) {
    this.task = new PeriodicTask(() => this.pass(), logger, options);
  }

  /** One pass over the work that is due. */
  protected abstract pass(): Promise<unknown>;

  start(intervalMs: number): void {
    this.task.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** A pass now, or the one already running. Never rejects. */
  run(): Promise<void> {
    return this.task.run();
  }
}
