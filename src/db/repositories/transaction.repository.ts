import { count, inArray, type SQL } from 'drizzle-orm';
import type { Pool } from 'pg';
import type { Database } from '../client';
import { ledgerEntries as transactions } from '../schema';

/** A transaction record is a journal entry of a token-moving kind (see ledgerEntries). */
export type TransactionRow = typeof transactions.$inferSelect;

/**
 * One record of a list page as PostgreSQL hands it over in array mode, in this column order:
 * id, ledger_transaction_id, from_public_key, to_public_key, amount_stroops (int8 as text),
 * asset_code, user_id, created_at (already `toISOString()`'s text, formatted by PostgreSQL),
 * status. No row object, no Date, no BigInt: src/routes/transaction-record.ts shapes it.
 */
export type RecordTuple = [
  id: string,
  ledgerTransactionId: string,
  fromPublicKey: string,
  toPublicKey: string,
  amountStroops: string,
  assetCode: string,
  userId: string | null,
  createdAt: string,
  status: TransactionRow['status'],
];

/** A record of a user's page as its statement answers it: the record, then the user's total of records. */
export type CountedRecordTuple = [...RecordTuple, total: number];
/** Where a counted row's total sits: after the record's columns (typed to the tuple's length, so the two cannot drift apart). */
const RECORD_WIDTH: RecordTuple['length'] = 9;

/** A record of the admin list: the record's columns, then its owner's username and e-mail (null once the owner is deleted). */
export type OwnedRecordTuple = [...RecordTuple, username: string | null, email: string | null];

/**
 * The record columns of a page, in RecordTuple's order. created_at as `Date.prototype.toISOString()`
 * writes it (UTC, milliseconds, 'Z'): `MS` truncates the microseconds as JavaScript's Date parsing
 * of the full text did.
 */
const RECORD_COLUMNS = `e.id, e.ledger_transaction_id, e.from_public_key, e.to_public_key, e.amount_stroops::text, e.asset_code, e.user_id,
  to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.status`;

/**
 * The pages' SQL, as named prepared statements (parsed and planned once per connection). The
 * record kinds (the registry's, src/ledger/kinds/registry.ts) are written into the text as
 * literals: the partial indexes' predicate, so the indexes serve (a parameter would not prove it).
 */
export function pageStatements(recordKinds: readonly string[]) {
  const kinds = recordKinds.map(sqlLiteral).join(', ');
  const user = {
    name: 'user_record_page_counted',
    // The count first and the page joined to it, so an empty page still says the total. One round
    // trip: the count used to be a query of its own, on a second connection of the pool.
    text: `select p.*, c.total
  from (select count(*)::int as total from ledger_entries where user_id = $1 and kind in (${kinds})) c
  left join (
    select ${RECORD_COLUMNS}
    from ledger_entries e
    where e.user_id = $1 and e.kind in (${kinds})
    order by e.created_at desc, e.id desc
    limit $2 offset $3
  ) p on true`,
    rowMode: 'array',
  } as const;
  const admin = {
    name: 'admin_record_page',
    text: `select ${RECORD_COLUMNS}, u.username, u.email
  from ledger_entries e left join users u on u.id = e.user_id
  where e.kind in (${kinds})
  order by e.created_at desc, e.id desc
  limit $1 offset $2`,
    rowMode: 'array',
  } as const;
  return { user, admin };
}

/** A kind's name as an SQL string literal: kind names are lower-case words, anything else is a bug. */
function sqlLiteral(kind: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(kind)) throw new Error(`an entry kind's name must be a lower-case word: ${kind}`);
  return `'${kind}'`;
}

/** How long the total of all records may be served from memory before it is counted again. */
const TOTAL_TTL_MS = 10_000;

export class TransactionRepository {
  /**
   * count(*) over every record reads the whole table (or index): ~120 ms at a million rows. The
   * admin list's X-Total-Count is served from here: new records are counted within TOTAL_TTL_MS; refreshed in the background, one count at a time.
   */
  private total: { value: number; countedAt: number; refreshing?: Promise<number> } | undefined;

  /** The pool under Drizzle: the pages run on it directly, in array mode. */
  private readonly pool: Pool;

  private readonly statements: ReturnType<typeof pageStatements>;
  private readonly isRecord: SQL;

  /** `recordKinds`: the kinds listed as transaction records (KindRegistry.recordKinds). */
  constructor(
    private readonly db: Database,
    recordKinds: readonly string[],
  ) {
    this.pool = (db as unknown as { $client: Pool }).$client;
    this.statements = pageStatements(recordKinds);
    // Matches the partial indexes' predicate, so they serve the count.
    this.isRecord = inArray(transactions.kind, recordKinds as TransactionRow['kind'][]);
  }

  /**
   * One page of a user's records, newest first, as the list route answers it (and the bench's
   * route ceiling reads it): rows in array mode, timestamps and int8 as PostgreSQL's text, shaped
   * by transactionRecordOf (src/routes/transaction-record.ts) with no row object in between:
   * Drizzle's row mapping of every journal column (three timestamps among them) was the largest
   * single cost of the page, 30% of the route's CPU under load (`--cpu-prof`, BENCHMARKS.md). The
   * (user_id, created_at, id) index, read backwards, serves it without a sort.
   */
  async userPage(userId: string, limit: number, offset: number): Promise<{ rows: CountedRecordTuple[]; total: number }> {
    const { rows } = await this.pool.query<CountedRecordTuple>({ ...this.statements.user, values: [userId, limit, offset] });
    // Each row ends with the total; a page past the end is one row of nulls and the total. The rows
    // are handed on as they are: a record is read by position, and the total after it is not read.
    const total = rows[0]?.[RECORD_WIDTH] ?? 0;
    return { rows: rows[0]?.[0] === null ? [] : rows, total };
  }

  /** One page of every user's records with the owner's username and e-mail, newest first (the admin list). */
  async adminPage(limit: number, offset: number): Promise<OwnedRecordTuple[]> {
    return (await this.pool.query<OwnedRecordTuple>({ ...this.statements.admin, values: [limit, offset] })).rows;
  }

  async countAll(): Promise<number> {
    const cached = this.total;
    if (cached && Date.now() - cached.countedAt < TOTAL_TTL_MS) return cached.value;
    if (cached) {
      // Never left to reject unhandled: a failed refresh keeps the last value until the next try.
      cached.refreshing ??= this.countAllNow()
        .catch(() => cached.value)
        .finally(() => (cached.refreshing = undefined));
      return cached.value; // stale by at most one TTL while the new count runs
    }
    return this.countAllNow();
  }

  private async countAllNow(): Promise<number> {
    const countedAt = Date.now();
    const [row] = await this.db.select({ n: count() }).from(transactions).where(this.isRecord);
    const value = row?.n ?? 0;
    this.total = { value, countedAt };
    return value;
  }
}
