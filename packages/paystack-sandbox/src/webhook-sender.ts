import { sandboxLogger } from './logger';
import { signPaystackPayload } from './signature';

/** The events the sandbox sends, named as Paystack names them. */
export type WebhookEventName =
  | 'charge.success'
  | 'refund.pending'
  | 'refund.processed'
  | 'charge.dispute.create'
  | 'charge.dispute.remind'
  | 'charge.dispute.resolve'
  | 'transfer.success'
  | 'transfer.failed'
  | 'transfer.reversed';

export interface WebhookEvent {
  event: WebhookEventName;
  data: unknown;
}

export interface WebhookSenderOptions {
  secretKey: string;
  url?: string | undefined;
  /** Attempts per event, including the first. */
  maxAttempts?: number;
  /** Delay before the first retry; it doubles each time (with jitter) up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  requestTimeoutMs?: number;
  /** How long `close()` waits for attempts already on the wire. */
  closeTimeoutMs?: number;
}

type AttemptOutcome = { delivered: true } | { delivered: false; reason: string };

/** Resolves `true` after `ms`, or `false` as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Posts signed events the way Paystack does: JSON body, `x-paystack-signature` = HMAC-SHA512
 * of those exact bytes. Deliveries run in the background so a checkout redirect never waits
 * on the merchant's server, and a failing receiver can never crash the sandbox.
 */
export class WebhookSender {
  private url: string | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Aborted by `close()`: no new retries are scheduled after that. */
  private readonly stopRetrying = new AbortController();
  /** Aborted when `close()` stops waiting: cuts requests still on the wire. */
  private readonly stopRequests = new AbortController();
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly requestTimeoutMs: number;
  private readonly closeTimeoutMs: number;

  constructor(private readonly options: WebhookSenderOptions) {
    this.url = options.url;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 4_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
  }

  setUrl(url: string | undefined): void {
    this.url = url;
  }

  /**
   * Queues the event for background delivery; does nothing when no URL is configured. The body is
   * serialised once, so every retry carries the same bytes and signature: a receiver deduplicates
   * on the event's own identity (`event` with the charge's, refund's or dispute's id) and sees a
   * retry as the same event.
   */
  send(event: WebhookEvent): void {
    const url = this.url;
    if (url === undefined || this.stopRetrying.signal.aborted) return;
    const body = JSON.stringify(event);
    const signature = signPaystackPayload(body, this.options.secretKey);
    const delivery = this.deliver(url, body, signature, event.event).finally(() => {
      this.inFlight.delete(delivery);
    });
    this.inFlight.add(delivery);
  }

  /**
   * Stops scheduling retries and waits (at most `closeTimeoutMs`) for attempts already under
   * way. Events still undelivered are dropped, as a real gateway's outage would drop them:
   * the service must still be able to settle by calling verify.
   */
  async close(): Promise<void> {
    this.stopRetrying.abort();
    const waitLimit = new AbortController();
    const allSettled = Promise.allSettled([...this.inFlight]).then(() => waitLimit.abort());
    const timedOut = await pause(this.closeTimeoutMs, waitLimit.signal);
    if (timedOut) this.stopRequests.abort();
    // After the abort every attempt fails fast, so this no longer waits on the network.
    await allSettled;
  }

  private async deliver(url: string, body: string, signature: string, eventName: string): Promise<void> {
    for (let attempt = 1; attempt <= this.maxAttempts; attempt += 1) {
      const outcome = await this.attempt(url, body, signature);
      if (outcome.delivered) return;
      const log = { url, event: eventName, attempt, reason: outcome.reason };
      if (attempt === this.maxAttempts) {
        sandboxLogger.error(log, 'webhook not delivered, giving up; the receiver must rely on verify');
        return;
      }
      sandboxLogger.warn(log, 'webhook attempt failed, will retry');
      if (!(await pause(this.retryDelayMs(attempt), this.stopRetrying.signal))) {
        sandboxLogger.warn(log, 'sandbox closing, webhook retries abandoned');
        return;
      }
    }
  }

  private async attempt(url: string, body: string, signature: string): Promise<AttemptOutcome> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
        body,
        // A redirect is not an acknowledgement; Paystack does not follow them either.
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(this.requestTimeoutMs), this.stopRequests.signal]),
      });
      await response.body?.cancel();
      return response.ok ? { delivered: true } : { delivered: false, reason: `HTTP ${response.status}` };
    } catch (error) {
      return { delivered: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Exponential backoff with ±20% jitter so many failed events do not retry in lockstep. */
  private retryDelayMs(failedAttempt: number): number {
    const exponential = Math.min(this.baseDelayMs * 2 ** (failedAttempt - 1), this.maxDelayMs);
    return Math.round(exponential * (0.8 + Math.random() * 0.4));
  }
}
