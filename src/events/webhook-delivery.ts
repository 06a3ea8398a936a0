import type { WebhookSender } from '../clients/webhook-sender';
import type { Database } from '../db/client';
import type { AttemptRecord, WebhookRepository } from '../db/repositories/webhook.repository';
import { clientEventOf } from '../domain/events';
import type { Logger } from '../logger';
import type { WebhookSecrets } from '../security/webhook-secrets';
import type { DeliveryQueue } from './delivery-queue';

export interface WebhookDeliveryDeps {
  db: Database;
  webhooks: WebhookRepository;
  queue: DeliveryQueue;
  sender: WebhookSender;
  secrets: WebhookSecrets;
  /** The waits before each retry after a failed attempt (WEBHOOK_RETRY_SCHEDULE); spent, the delivery is `failed`. */
  retryScheduleMs: readonly number[];
  logger: Logger;
}

/**
 * One attempt at one delivery: the job the queue runs (src/events/delivery-queue.ts). The event
 * is signed per Standard Webhooks with `webhook-id` = the event's id (the same on every retry
 * and replay), posted, and the outcome recorded with the next attempt's job in one transaction:
 * a failed attempt always has its retry, or the delivery is `failed` and its endpoint marked. A
 * process killed after the post and before the record leaves the job to the queue, which runs it
 * again: the receiver may see a `webhook-id` twice (at least once), never none.
 */
export class WebhookDelivery {
  constructor(private readonly deps: WebhookDeliveryDeps) {}

  async deliver(deliveryId: string): Promise<void> {
    const { webhooks, logger } = this.deps;
    const target = await webhooks.target(deliveryId);
    if (!target || target.delivery.status !== 'pending') return;
    if (target.endpoint.deletedAt) return webhooks.abandon(deliveryId, 'the endpoint was deleted');
    if (!target.event) return webhooks.abandon(deliveryId, 'the event is past its retention');
    const event = clientEventOf(target.event);
    const body = JSON.stringify(event);
    const timestamp = new Date();
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': Math.floor(timestamp.getTime() / 1000).toString(),
      'webhook-signature': this.deps.secrets.signature(target.endpoint, event.id, timestamp, body),
    };
    const outcome = await this.deps.sender.post(target.endpoint.url, headers, body);
    const record = this.recordOf(outcome, target.delivery.attempts + 1);
    const recorded = await this.deps.db.transaction(async (tx) => {
      if (!(await webhooks.recordAttempt(tx, target.delivery, record))) return false;
      if (record.kind === 'retry') await this.deps.queue.enqueue(tx, [deliveryId], record.nextAttemptAt);
      return true;
    });
    if (!recorded) return;
    const fields = { delivery: deliveryId, endpoint: target.endpoint.id, event: event.id, type: event.type, attempt: target.delivery.attempts + 1, status: record.status };
    if (record.kind === 'delivered') logger.info(fields, 'webhook delivered');
    else if (record.kind === 'retry') logger.warn({ ...fields, error: record.error, nextAttemptAt: record.nextAttemptAt }, 'webhook attempt failed: retried later');
    else logger.error({ ...fields, error: record.error }, 'webhook delivery failed for good: the endpoint is marked failing (replay re-sends)');
  }

  private recordOf(outcome: { status: number } | { error: string }, attempt: number): AttemptRecord {
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) return { kind: 'delivered', status: outcome.status };
    const status = 'status' in outcome ? outcome.status : null;
    const error = 'error' in outcome ? outcome.error : `answered ${outcome.status}`;
    const wait = this.deps.retryScheduleMs[attempt - 1];
    if (wait === undefined) return { kind: 'failed', status, error };
    return { kind: 'retry', status, error, nextAttemptAt: new Date(Date.now() + wait) };
  }
}
