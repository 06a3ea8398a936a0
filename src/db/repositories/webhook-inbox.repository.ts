import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../client';
import { webhookEvents } from '../schema';
import { rowsOf } from './journal.repository';

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
    const rows = await this.db.execute<{ id: string }>(sql`
      update webhook_events set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval, attempts = attempts + 1, updated_at = now()
      where id in (
        select id from webhook_events where status = 'received' and next_attempt_at <= now()
        order by next_attempt_at limit ${limit} for update skip locked)
      returning id`);
    const ids = rowsOf<{ id: string }>(rows).map((r) => r.id);
    if (ids.length === 0) return [];
    return this.db.select().from(webhookEvents).where(sql`${webhookEvents.id} in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`);
  }

  async finish(id: string, status: 'done' | 'failed', outcome: string): Promise<void> {
    await this.db.update(webhookEvents).set({ status, outcome, updatedAt: new Date() }).where(and(eq(webhookEvents.id, id), eq(webhookEvents.status, 'received')));
  }

  async retryLater(id: string, delayMs: number, outcome: string): Promise<void> {
    await this.db
      .update(webhookEvents)
      .set({ outcome, nextAttemptAt: sql`now() + ${`${delayMs} milliseconds`}::interval`, updatedAt: new Date() })
      .where(and(eq(webhookEvents.id, id), eq(webhookEvents.status, 'received')));
  }

  async find(event: string, reference: string): Promise<WebhookEventRow | undefined> {
    const [row] = await this.db.select().from(webhookEvents).where(and(eq(webhookEvents.event, event), eq(webhookEvents.reference, reference)));
    return row;
  }
}
