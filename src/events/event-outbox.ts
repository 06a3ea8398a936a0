import type { Database, Executor } from '../db/client';
import { EventBatch, type EventAppender, type EventRepository, type EventSink, type EventTransactions } from '../db/repositories/event.repository';
import type { EventDraft } from '../domain/events';
import type { DeliveryQueue } from './delivery-queue';

/**
 * The one way events are written (CONTRACT.md section 13): appended in the transaction of the
 * change they report, with their webhook deliveries enqueued on the job queue in the same
 * transaction. Whatever commits the change commits its events and their deliveries; a rollback
 * leaves none of them.
 */
export class EventOutbox implements EventTransactions, EventAppender {
  constructor(private readonly deps: { db: Database; events: EventRepository; queue: DeliveryQueue; enabled?: boolean }) {}

  /** False is the benchmark's baseline alone (EVENT_OUTBOX=off, refused in production). */
  get enabled(): boolean {
    return this.deps.enabled !== false;
  }

  async append(tx: Executor, drafts: readonly EventDraft[]): Promise<void> {
    if (drafts.length === 0 || !this.enabled) return;
    const { deliveryIds } = await this.deps.events.append(tx, drafts);
    await this.deps.queue.enqueue(tx, deliveryIds);
  }

  /** `fn` in a transaction; the events it adds to its sink are appended before the commit. */
  run<T>(fn: (tx: Executor, events: EventSink) => Promise<T>): Promise<T> {
    return this.deps.db.transaction(async (tx) => {
      const batch = new EventBatch();
      const result = await fn(tx, batch);
      await this.append(tx, batch.drafts);
      return result;
    });
  }
}
