import type { WebhookEventRow, WebhookInboxRepository } from '../db/repositories/webhook-inbox.repository';
import type { Logger } from '../logger';
import { BackgroundWorker } from '../workers/background-worker';
import type { PaymentService } from './payment.service';
import { errorReason } from '../errors/loggable-error';

export interface WebhookInboxOptions {
  /** A claim on an event lasts this long (another process may take it after). */
  leaseMs: number;
  /** First retry delay; doubles per attempt up to maxDelayMs. */
  retryBaseMs: number;
  maxDelayMs: number;
  /** Attempts before an event is set aside as failed (each a provider or database failure). */
  maxAttempts: number;
}

/**
 * Settles stored charge.success events through the same path as verify-payment, with retries:
 * a provider or database failure is tried again later, so a buyer who closed the browser before
 * the redirect is still credited. Claimed in the database, so any number of processes run it.
 */
export class WebhookInboxService extends BackgroundWorker {
  constructor(
    private readonly inbox: WebhookInboxRepository,
    private readonly payments: PaymentService,
    private readonly options: WebhookInboxOptions,
    private readonly logger: Logger,
  ) {
    super(logger, { failureMessage: 'webhook inbox deferred' });
  }

  /**
   * Stores a verified charge.success for one of this service's payments, and settles it at once in
   * the background. Other events, and references this service never issued (the provider account
   * may serve other integrations), are acknowledged and not kept.
   */
  async receive(event: string, reference: string): Promise<void> {
    if (event !== 'charge.success' || !(await this.payments.find(reference))) return;
    if (await this.inbox.store(event, reference)) void this.run();
  }

  /** Settles every event due now. */
  protected async pass(): Promise<void> {
    for (;;) {
      const due = await this.inbox.claimDue(50, this.options.leaseMs);
      if (due.length === 0) return;
      await Promise.all(due.map((e) => this.settle(e)));
    }
  }

  private async settle(event: WebhookEventRow): Promise<void> {
    try {
      const outcome = await this.payments.settle(event.reference);
      await this.inbox.finish(event.id, 'done', outcome.kind);
    } catch (err) {
      const reason = errorReason(err);
      if (event.attempts >= this.options.maxAttempts) {
        this.logger.error({ reference: event.reference, attempts: event.attempts, reason }, 'webhook event set aside after its last attempt');
        await this.inbox.finish(event.id, 'failed', reason).catch(() => undefined);
        return;
      }
      const delay = Math.min(this.options.maxDelayMs, this.options.retryBaseMs * 2 ** (event.attempts - 1));
      this.logger.warn({ reference: event.reference, attempt: event.attempts, reason }, 'webhook settlement failed, retrying later');
      await this.inbox.retryLater(event.id, delay, reason).catch(() => undefined);
    }
  }
}
