import { errorReason } from '../errors/loggable-error';
import type { Logger } from '../logger';

/**
 * Background work run at start and on an interval, one pass at a time: a call while a pass runs
 * shares it. A failed pass is logged (reason only) and the next interval tries again. The timer
 * never keeps the process alive; stop() waits for the pass in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly logger: Logger,
    /** Logged when a pass fails, e.g. 'reconciliation deferred'. */
    private readonly failureMessage: string,
  ) {}

  start(intervalMs: number): void {
    void this.run();
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass now (or the one already running). Never rejects. */
  run(): Promise<void> {
    this.running ??= this.pass()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn({ reason: errorReason(err) }, this.failureMessage))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
