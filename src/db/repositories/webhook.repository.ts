import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { EventType } from '../../domain/events';
import type { Database, Executor } from '../client';
import { events, webhookDeliveries, webhookEndpoints } from '../schema';
import type { EventRow } from './event.repository';
import { rowsOf } from './rows';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A secret as stored: sealed by the wallet cipher, bound to its endpoint's id. */
export interface SealedEndpointSecret {
  secretCiphertext: string;
  keyId: string;
}

/** A delivery with what it sends and where: the event is gone once past retention. */
export interface DeliveryTarget {
  delivery: DeliveryRow;
  endpoint: EndpointRow;
  event: EventRow | undefined;
}

/** One attempt's outcome, as recorded. */
export type AttemptRecord =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string | null; nextAttemptAt: Date }
  | { kind: 'failed'; status: number | null; error: string | null };

/**
 * Webhook endpoints and their deliveries (CONTRACT.md section 13). A delivery's attempts are
 * counted by a conditional update (`attempts` as the caller read it), so of two jobs racing on one
 * delivery (a retry and a replay) one records its attempt and schedules the next.
 */
export class WebhookRepository {
  constructor(private readonly db: Database) {}

  async createEndpoint(tx: Executor, row: { id: string; url: string; eventTypes: EventType[] | null; createdBy: string | null } & SealedEndpointSecret): Promise<EndpointRow> {
    const [created] = await tx.insert(webhookEndpoints).values(row).returning();
    return created!;
  }

  async liveEndpoints(): Promise<EndpointRow[]> {
    return this.db.select().from(webhookEndpoints).where(isNull(webhookEndpoints.deletedAt)).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  }

  async findLive(id: string): Promise<EndpointRow | undefined> {
    const [row] = await this.db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt)));
    return row;
  }

  /** Deleted endpoints keep their row (the deliveries name it) and receive nothing more. */
  async delete(tx: Executor, id: string): Promise<boolean> {
    const rows = await tx.update(webhookEndpoints).set({ deletedAt: new Date() }).where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt))).returning({ id: webhookEndpoints.id });
    return rows.length > 0;
  }

  /** The new secret signs from now on; the old one signs beside it until `previousUntil`, so receivers can switch. */
  async rotate(tx: Executor, id: string, next: SealedEndpointSecret, previousUntil: Date): Promise<EndpointRow | undefined> {
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        previousSecretCiphertext: sql`${webhookEndpoints.secretCiphertext}`,
        previousKeyId: sql`${webhookEndpoints.keyId}`,
        previousUntil,
        secretCiphertext: next.secretCiphertext,
        keyId: next.keyId,
      })
      .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt)))
      .returning();
    return row;
  }

  /**
   * A replay: the endpoint's delivery of every event of its types created since `since`, pending
   * again (attempts go on counting; a new schedule starts), in the caller's transaction. Returns
   * the deliveries to enqueue.
   */
  async replay(tx: Executor, endpoint: EndpointRow, since: Date): Promise<string[]> {
    const types = endpoint.eventTypes;
    const result = await tx.execute(sql`
      insert into webhook_deliveries (event_id, endpoint_id)
      select e.id, ${endpoint.id}::uuid from events e
      where e.created_at >= ${since.toISOString()}::timestamptz
        ${types ? sql`and e.type in (${sql.join(types.map((t) => sql`${t}`), sql`, `)})` : sql``}
      order by e.created_at, e.id
      on conflict (event_id, endpoint_id) do update
        set status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
      returning id`);
    return rowsOf<{ id: string }>(result).map((r) => r.id);
  }

  async target(deliveryId: string): Promise<DeliveryTarget | undefined> {
    const [row] = await this.db
      .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: events })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .leftJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(eq(webhookDeliveries.id, deliveryId));
    return row ? { delivery: row.delivery, endpoint: row.endpoint, event: row.event ?? undefined } : undefined;
  }

  /**
   * Records an attempt made on the delivery as it was read (`seenAttempts`, still pending), and
   * what it means for its endpoint: a success clears the endpoint's failing mark, a delivery out
   * of retries sets it. False when another job recorded an attempt first (nothing changed).
   */
  async recordAttempt(tx: Executor, delivery: DeliveryRow, record: AttemptRecord): Promise<boolean> {
    const status = record.kind === 'delivered' ? 'delivered' : record.kind === 'retry' ? 'pending' : 'failed';
    const rows = await tx
      .update(webhookDeliveries)
      .set({
        status,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        lastStatus: record.status,
        lastError: record.kind === 'delivered' ? null : record.error,
        nextAttemptAt: record.kind === 'retry' ? record.nextAttemptAt : null,
        deliveredAt: record.kind === 'delivered' ? new Date() : null,
        updatedAt: new Date(),
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, delivery.attempts)))
      .returning({ id: webhookDeliveries.id });
    if (rows.length === 0) return false;
    if (record.kind === 'delivered') await tx.update(webhookEndpoints).set({ failingSince: null }).where(eq(webhookEndpoints.id, delivery.endpointId));
    if (record.kind === 'failed') {
      await tx.update(webhookEndpoints).set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())` }).where(eq(webhookEndpoints.id, delivery.endpointId));
    }
    return true;
  }

  /** A delivery that can never be made (its endpoint deleted, its event past retention). */
  async abandon(deliveryId: string, reason: string): Promise<void> {
    await this.db
      .update(webhookDeliveries)
      .set({ status: 'failed', lastError: reason, nextAttemptAt: null, updatedAt: new Date() })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending')));
  }

  /** An endpoint's deliveries, newest first, with their event's type. */
  async deliveriesPage(endpointId: string, limit: number, offset: number): Promise<{ rows: (DeliveryRow & { eventType: EventType | null })[]; total: number }> {
    const where = eq(webhookDeliveries.endpointId, endpointId);
    const [rows, [counted]] = await Promise.all([
      this.db
        .select({ delivery: webhookDeliveries, eventType: events.type })
        .from(webhookDeliveries)
        .leftJoin(events, eq(events.id, webhookDeliveries.eventId))
        .where(where)
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(webhookDeliveries).where(where),
    ]);
    return { rows: rows.map((r) => ({ ...r.delivery, eventType: r.eventType })), total: counted?.n ?? 0 };
  }

  /** Deliveries not delivered, for the metrics: pending and failed counts, and the oldest pending's age by the database's clock. */
  async backlog(): Promise<{ pending: number; failed: number; oldestPendingSeconds: number }> {
    const [row] = rowsOf<{ pending: number; failed: number; oldest: number | string | null }>(
      await this.db.execute(sql`
        select count(*) filter (where status = 'pending')::int as pending,
               count(*) filter (where status = 'failed')::int as failed,
               extract(epoch from now() - min(created_at) filter (where status = 'pending'))::float8 as oldest
        from webhook_deliveries where status <> 'delivered'`),
    );
    return { pending: row?.pending ?? 0, failed: row?.failed ?? 0, oldestPendingSeconds: Number(row?.oldest ?? 0) };
  }

}
