import type { WebhookEventRow, WebhookInboxRepository } from '../db/repositories/webhook-inbox.repository';
import type { ProviderEvent } from '../http/webhook-event';
import type { Logger } from '../logger';
import { QueueWorker, type RetryPolicy } from '../workers/queue-worker';
import type { PaymentService, SettleOutcome } from './payment.service';

/** Events the service acts on today; others about its payments are kept and set aside for an operator. */
const SETTLES_A_CHARGE = 'charge.success';

/**
 * Settles stored provider events through the same path as verify-payment, with retries, until
 * their outcome is final: a provider or database failure, or a provider that still says "not yet"
 * (a webhook can arrive before verify agrees), is tried again later, so a buyer who closed the
 * browser before the redirect is still credited. An event set aside after its last attempt is
 * counted (metrics) and listed (`npm run payments:reconcile`). Claimed in the database, so any
 * number of processes run it.
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
      describe: (event) => ({ reference: event.reference, event: event.event }),
      logMessages: {
        retrying: 'webhook settlement failed, retrying later',
        setAside: 'webhook event set aside after its last attempt',
        notFinal: 'webhook event not final yet, asking again later',
      },
    }, logger);
  }

  /**
   * Stores a verified event about one of this service's payments, and settles it at once in the
   * background. References this service never issued (the provider account may serve other
   * integrations) are acknowledged and not kept.
   */
  async receive(event: ProviderEvent): Promise<void> {
    if (!(await this.payments.find(event.reference))) return;
    if (await this.inbox.store(event)) void this.run();
  }

  protected async handle(event: WebhookEventRow): Promise<void | 'later'> {
    if (event.event !== SETTLES_A_CHARGE) {
      // Refunds and disputes are recorded here, answered 200 and kept for an operator: the tokens
      // they should take back are not clawed back by the service yet (see the README).
      await this.inbox.setAside(event.id, `${event.event} is kept for an operator: reversals are not acted on automatically yet`);
      this.logger.warn({ reference: event.reference, event: event.event }, 'payment reversal or dispute received: an operator acts on it');
      return;
    }
    const outcome = await this.payments.settle(event.reference);
    if (!isFinal(outcome)) return 'later';
    await this.inbox.finish(event.id, outcome.kind === 'not_paid' ? `not_paid:${outcome.status}` : outcome.kind);
  }
}

/** A charge.success is done once the payment is consumed or decided; "not yet" and "unknown" are asked again. */
function isFinal(outcome: SettleOutcome): boolean {
  if (outcome.kind === 'unknown') return false;
  if (outcome.kind === 'not_paid') return outcome.final;
  return true;
}
