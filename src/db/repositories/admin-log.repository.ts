import { and, asc, desc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { rowHash, GENESIS_HASH, type AdminLogEntry, type ChainedRow } from '../../domain/admin-log';
import type { Database, Executor } from '../client';
import { adminLog } from '../schema';
import { rowsOf } from './rows';

export type AdminLogRow = typeof adminLog.$inferSelect;

/** The admin log: appended in each action's own transaction, read by operators and walked by audit:verify. */
export class AdminLogRepository {
  constructor(private readonly db: Database) {}

  /** Appends in a transaction of its own: for actions that write nothing else (a login, a secret read). */
  append(entry: AdminLogEntry): Promise<AdminLogRow> {
    return this.db.transaction((tx) => appendAdminLog(tx, entry));
  }

  /** A page of rows, newest first, optionally of one admin and one action. */
  async page(filter: { adminId?: string; action?: string; limit: number; offset: number }): Promise<{ rows: AdminLogRow[]; total: number }> {
    const clauses = [filter.adminId ? eq(adminLog.adminId, filter.adminId) : undefined, filter.action ? eq(adminLog.action, filter.action) : undefined].filter(Boolean) as SQL[];
    const where = clauses.length > 0 ? and(...clauses) : undefined;
    const [rows, [counted]] = await Promise.all([
      this.db.select().from(adminLog).where(where).orderBy(desc(adminLog.seq)).limit(filter.limit).offset(filter.offset),
      this.db.select({ n: sql<string>`count(*)` }).from(adminLog).where(where),
    ]);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /** Every row in chain order, `batchSize` at a time (the log only grows: a walk never holds it all). */
  async *inOrder(batchSize = 1000): AsyncGenerator<ChainedRow[]> {
    let after = 0n;
    for (;;) {
      const rows = await this.db.select().from(adminLog).where(gt(adminLog.seq, after)).orderBy(asc(adminLog.seq)).limit(batchSize);
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]!.seq;
    }
  }
}

/**
 * Appends one row in the caller's transaction, so the action and its row commit together or not
 * at all. The log's lock (held to the transaction's end) makes the chain one line across
 * processes: the next `seq` and the previous hash are read under it. The time is the database's,
 * to the millisecond, so what the hash covers is exactly what is stored.
 */
export async function appendAdminLog(tx: Executor, entry: AdminLogEntry): Promise<AdminLogRow> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('admin_log'))`);
  const [last] = await tx.select({ seq: adminLog.seq, hash: adminLog.hash }).from(adminLog).orderBy(desc(adminLog.seq)).limit(1);
  const [clock] = rowsOf<{ at: string | Date }>(await tx.execute(sql`select date_trunc('milliseconds', clock_timestamp()) as at`));
  const content = {
    seq: (last?.seq ?? 0n) + 1n,
    at: new Date(clock!.at),
    adminId: entry.adminId,
    action: entry.action,
    target: entry.target ?? null,
    requestId: entry.requestId ?? null,
    ip: entry.ip ?? null,
    details: entry.details ?? {},
  };
  const prevHash = last?.hash ?? GENESIS_HASH;
  const [row] = await tx.insert(adminLog).values({ ...content, prevHash, hash: rowHash(prevHash, content) }).returning();
  return row!;
}
