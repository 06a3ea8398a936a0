import { and, eq, lt } from 'drizzle-orm';
import type { Database } from '../client';
import { idempotencyKeys } from '../schema';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims a key for a request: 'claimed' for the first request, or the row already there.
   * The primary key makes the claim atomic across concurrent retries and processes.
   */
  async claim(callerId: string, route: string, key: string, requestHash: string): Promise<'claimed' | IdempotencyRow> {
    const where = and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key));
    // Keys live 24 hours: an expired one is free again.
    await this.db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS))));
    const inserted = await this.db
      .insert(idempotencyKeys)
      .values({ callerId, route, key, requestHash })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return 'claimed';
    const [row] = await this.db.select().from(idempotencyKeys).where(where);
    return row ?? 'claimed';
  }

  async complete(callerId: string, route: string, key: string, response: { status: number; body: string; type: string }): Promise<void> {
    await this.db
      .update(idempotencyKeys)
      .set({ responseStatus: response.status, responseBody: response.body, responseType: response.type })
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key)));
  }

  /** Frees a key whose request failed without moving money (5xx), so a retry can run for real. */
  async release(callerId: string, route: string, key: string): Promise<void> {
    await this.db
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key)));
  }

  async purgeExpired(): Promise<void> {
    await this.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS)));
  }
}
