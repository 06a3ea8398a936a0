import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database } from '../client';
import { rowsOf } from './rows';

/** The database's now() plus `ms`: leases and retry times are read against one clock, the database's. */
export function msFromNow(ms: number): SQL {
  return sql`now() + ${`${ms} milliseconds`}::interval`;
}

export interface LeasedClaim {
  /** When a row is due; a claim moves it `leaseMs` ahead, so no other worker takes it meanwhile. */
  dueAt: PgColumn;
  /** Which rows are waiting for work (besides being due). */
  waiting: SQL;
  /** Anything else the claim sets, e.g. counting the attempt. */
  alsoSet?: SQL;
  /** The row's key, when it is not an `id` column (a payment's reference). */
  key?: PgColumn;
}

/**
 * Claims up to `limit` due rows for the caller, oldest first, in one statement: FOR UPDATE SKIP
 * LOCKED means workers of several processes never take the same row, and the lease (the due time
 * moved ahead) lets another process take it only once the lease has passed (its worker died).
 * Returns the claimed ids.
 */
export async function claimDueRows(db: Database, table: PgTable & { id?: PgColumn }, claim: LeasedClaim, limit: number, leaseMs: number): Promise<string[]> {
  // A SET clause takes bare column names, not the table-qualified ones drizzle renders.
  const key = claim.key ?? table.id;
  if (!key) throw new Error('claimDueRows needs a key column');
  const id = sql.identifier(key.name);
  const dueAt = sql.identifier(claim.dueAt.name);
  const alsoSet = claim.alsoSet ? sql`, ${claim.alsoSet}` : sql``;
  const claimed = await db.execute(sql`
    update ${table} set ${dueAt} = ${msFromNow(leaseMs)}${alsoSet}
    where ${id} in (
      select ${id} from ${table}
      where ${claim.waiting} and ${dueAt} <= now()
      order by ${dueAt} limit ${limit} for update skip locked)
    returning ${id} as id`);
  return rowsOf<{ id: unknown }>(claimed).map((r) => String(r.id));
}
