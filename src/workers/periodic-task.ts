import { errorReason } from '../errors/loggable-error';
import type { Logger } from '../logger';

export interface PeriodicTaskOptions {
  /** Logged when a pass fails, e.g. 'reconciliation deferred'. */
  failureMessage: string;
  /**
   * A call while a pass runs makes one more pass when it is done (new work may have arrived after
   * the running pass looked, e.g. a mail queued a moment ago). Otherwise the call shares the pass.
   */
  rerunWhenCalledDuringPass?: boolean;
}

/**
 * Background work run at start and on an interval, one pass at a time. A failed pass is logged
 * (reason only) and the next interval tries again. The timer never keeps the process alive;
 * stop() waits for the pass in progress, and no pass starts after it.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly logger: Logger,
    private readonly options: PeriodicTaskOptions,
  ) {}

  start(intervalMs: number): void {
    this.stopped = false;
    void this.run();
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopped = true;
    this.again = false;
    await this.running;
  }

  /** One pass now (or the one already running). Never rejects. */
  run(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      if (this.options.rerunWhenCalledDuringPass && !this.stopped) this.again = true;
      return this.running;
    }
    this.running = this.pass()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn({ reason: errorReason(err) }, this.options.failureMessage))
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          void this.run();
        }
      });
    return this.running;
  }
}
