import type { WebhookEventRow, WebhookInboxRepository } from '../db/repositories/webhook-inbox.repository';
import type { Logger } from '../logger';
import { QueueWorker, type RetryPolicy } from '../workers/queue-worker';
import type { PaymentService } from './payment.service';

/**
 * Settles stored charge.success events through the same path as verify-payment, with retries:
 * a provider or database failure is tried again later, so a buyer who closed the browser before
 * the redirect is still credited. Claimed in the database, so any number of processes run it.
 */
export class WebhookInboxService extends QueueWorker<WebhookEventRow> {
  constructor(
    private readonly inbox: WebhookInboxRepository,
    private readonly payments: PaymentService,
    policy: RetryPolicy,
    logger: Logger,
  ) {
    super(inbox, {
      failureMessage: 'webhook inbox deferred',
      batchSize: 50,
      policy,
      describe: (event) => ({ reference: event.reference }),
      logMessages: { retrying: 'webhook settlement failed, retrying later', setAside: 'webhook event set aside after its last attempt' },
    }, logger);
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

  /** Settles one event through the verify path; a failure is retried (QueueWorker). */
  protected async handle(event: WebhookEventRow): Promise<void> {
    const outcome = await this.payments.settle(event.reference);
    await this.inbox.finish(event.id, outcome.kind);
  }
}
