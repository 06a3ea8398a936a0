import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../client';
import { webhookEvents } from '../schema';
import { claimDueRows, msFromNow } from './leased-claims';
import { first } from './rows';

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/** The provider's verified webhook events, kept until they are settled. */
export class WebhookInboxRepository {
  constructor(private readonly db: Database) {}

  /** Stores an event once (the provider may deliver it again); true when it was new. */
  async store(event: string, reference: string): Promise<boolean> {
    const rows = await this.db.insert(webhookEvents).values({ event, reference }).onConflictDoNothing().returning({ id: webhookEvents.id });
    return rows.length > 0;
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

  async find(event: string, reference: string): Promise<WebhookEventRow | undefined> {
    return first(this.db.select().from(webhookEvents).where(and(eq(webhookEvents.event, event), eq(webhookEvents.reference, reference))));
  }
}
