import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../client';
import { idempotencyKeys } from '../schema';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than any request may run: a claim this old with nothing bound or answered was abandoned. */
const ABANDONED_CLAIM_MS = 5 * 60 * 1000;

export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims a key for a request: 'claimed' for the first request, or the row already there.
   * The primary key makes the claim atomic across concurrent retries and processes.
   */
  async claim(callerId: string, route: string, key: string, requestHash: string): Promise<'claimed' | IdempotencyRow> {
    const where = and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key));
    // Keys live 24 hours: an expired one is free again. So is a claim whose process died before it
    // bound an entry or stored an answer (nothing was signed for it).
    await this.db.delete(idempotencyKeys).where(
      and(
        where,
        or(
          lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS)),
          and(isNull(idempotencyKeys.entryId), isNull(idempotencyKeys.responseStatus), lt(idempotencyKeys.createdAt, new Date(Date.now() - ABANDONED_CLAIM_MS))),
        ),
      ),
    );
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

  /**
   * Frees a key whose request failed (5xx) before any journal entry was bound to it: nothing was
   * signed, so a retry can run for real. A key bound to an entry is never freed here.
   */
  async releaseUnbound(callerId: string, route: string, key: string): Promise<void> {
    await this.db
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.entryId)));
  }

  async purgeExpired(): Promise<void> {
    await this.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS)));
  }
}
