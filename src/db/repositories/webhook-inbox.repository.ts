import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ProviderEvent } from '../../http/webhook-event';
import type { Database } from '../client';
import { webhookEvents } from '../schema';
import { claimDueRows, msFromNow } from './leased-claims';

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/** The provider's verified webhook events, kept until their outcome is final. */
export class WebhookInboxRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stores an event once per provider event (the provider delivers it again until answered 200);
   * true when it is now open for the worker. A redelivery of an event set aside after its last
   * attempt reopens it: the provider still knows about it, so someone should look again.
   *
   * A redelivery of an open event must lock nothing: the worker claims with SKIP LOCKED, so a
   * row locked by a redelivery's statement (ON CONFLICT DO UPDATE locks the row even when its
   * WHERE refuses) would be skipped by the one pass that was woken for it. Hence DO NOTHING, and
   * a reopen that matches (and locks) only a set-aside row.
   */
  async store(event: ProviderEvent): Promise<boolean> {
    const inserted = await this.db
      .insert(webhookEvents)
      .values({ event: event.event, eventKey: event.eventKey, reference: event.reference, payload: event.data })
      .onConflictDoNothing({ target: webhookEvents.eventKey })
      .returning({ id: webhookEvents.id });
    if (inserted.length > 0) return true;
    const reopened = await this.db
      .update(webhookEvents)
      .set({ status: 'received', attempts: 0, nextAttemptAt: sql`now()`, updatedAt: new Date() })
      .where(and(eq(webhookEvents.eventKey, event.eventKey), eq(webhookEvents.status, 'failed')))
      .returning({ id: webhookEvents.id });
    return reopened.length > 0;
  }

  /** Events due for an attempt, leased to the caller (SKIP LOCKED: one process per event at a time). */
  async claimDue(limit: number, leaseMs: number): Promise<WebhookEventRow[]> {
    const claim = { dueAt: webhookEvents.nextAttemptAt, waiting: eq(webhookEvents.status, 'received'), alsoSet: sql`attempts = attempts + 1, updated_at = now()` };
    const ids = await claimDueRows(this.db, webhookEvents, claim, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db.select().from(webhookEvents).where(inArray(webhookEvents.id, ids));
  }

  async finish(id: string, outcome: string): Promise<void> {
    await this.close(id, 'done', outcome);
  }

  async setAside(id: string, reason: string): Promise<void> {
    await this.close(id, 'failed', reason);
  }

  private async close(id: string, status: 'done' | 'failed', outcome: string): Promise<void> {
    await this.db.update(webhookEvents).set({ status, outcome, updatedAt: new Date() }).where(and(eq(webhookEvents.id, id), eq(webhookEvents.status, 'received')));
  }

  async retryLater(id: string, delayMs: number, outcome: string): Promise<void> {
    await this.db
      .update(webhookEvents)
      .set({ outcome, nextAttemptAt: msFromNow(delayMs), updatedAt: new Date() })
      .where(and(eq(webhookEvents.id, id), eq(webhookEvents.status, 'received')));
  }

  /** Whether the provider event with this key was received (in any state). */
  async exists(eventKey: string): Promise<boolean> {
    const rows = await this.db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.eventKey, eventKey)).limit(1);
    return rows.length > 0;
  }

  async listByReference(reference: string): Promise<WebhookEventRow[]> {
    return this.db.select().from(webhookEvents).where(eq(webhookEvents.reference, reference)).orderBy(webhookEvents.createdAt);
  }

  /** Events set aside after their last attempt, newest first: an operator's list. */
  async listSetAside(limit: number): Promise<WebhookEventRow[]> {
    return this.db.select().from(webhookEvents).where(eq(webhookEvents.status, 'failed')).orderBy(desc(webhookEvents.updatedAt)).limit(limit);
  }
}
