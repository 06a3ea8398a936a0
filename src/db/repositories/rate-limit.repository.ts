import { eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { rateLimitCounters } from '../schema';
import { rowsOf } from './rows';

/** Fixed-window hit counters in PostgreSQL, so every process counts against one budget. */
export class RateLimitRepository {
  constructor(private readonly db: Database) {}

  /**
   * Counts one hit for the key in the current window and returns the window's count. One upsert:
   * the window comes from the database clock (processes' clocks may differ), and a counter left
   * from an earlier window starts again at 1. Given a transaction, the hit is undone with it.
   */
  async hit(key: string, windowMs: number, tx: Executor = this.db): Promise<{ hits: number; windowStart: Date }> {
    const result = await tx.execute<{ hits: number; window_start: string | Date }>(sql`
      insert into rate_limit_counters as c (key, window_start, hits)
      values (${key}, to_timestamp(floor(extract(epoch from clock_timestamp()) * 1000 / ${windowMs}::bigint) * ${windowMs}::bigint / 1000.0), 1)
      on conflict (key) do update set
        hits = case when c.window_start >= excluded.window_start then c.hits + 1 else 1 end,
        window_start = greatest(c.window_start, excluded.window_start)
      returning hits, window_start`);
    const row = rowsOf<{ hits: number; window_start: string | Date }>(result)[0]!;
    return { hits: Number(row.hits), windowStart: new Date(row.window_start) };
  }

  async unhit(key: string): Promise<void> {
    await this.db.update(rateLimitCounters).set({ hits: sql`greatest(${rateLimitCounters.hits} - 1, 0)` }).where(eq(rateLimitCounters.key, key));
  }

  async reset(key: string): Promise<void> {
    await this.db.delete(rateLimitCounters).where(eq(rateLimitCounters.key, key));
  }

  /** Drops counters of windows long past (the service runs this hourly). */
  async purgeBefore(cutoff: Date): Promise<void> {
    await this.db.delete(rateLimitCounters).where(sql`${rateLimitCounters.windowStart} < ${cutoff.toISOString()}::timestamptz`);
  }
}
