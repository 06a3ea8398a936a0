import type { Pool } from 'pg';
import type { Database } from '../client';
import { ledgerEntries as transactions } from '../schema';

/** A transaction record of the service's own is a journal entry of a token-moving kind (see ledgerEntries). */
export type TransactionRow = typeof transactions.$inferSelect;

/** Who wrote a record: `service`, a journal entry; `ledger`, a movement made elsewhere that the follower saw (ledger_movements). */
export type RecordOrigin = 'service' | 'ledger';
/** A record seen from a user's side: `out` when the user's wallet is its `from`. */
export type RecordDirection = 'in' | 'out';

/**
 * One record of a list page as PostgreSQL hands it over in array mode, in this column order:
 * id, ledger_transaction_id, from_public_key, to_public_key, amount_stroops (int8 as text),
 * asset_code, user_id, created_at (already `toISOString()`'s text, formatted by PostgreSQL),
 * status, origin. No row object, no Date, no BigInt: src/routes/transaction-record.ts shapes it.
 * A ledger movement fills the same columns (its status is always `confirmed`).
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
  origin: RecordOrigin,
];

/** A record of a user's list: the record's columns, then its direction from that user's side. */
export type UserRecordTuple = [...RecordTuple, direction: RecordDirection];

/** A record of a user's page as its statement answers it: the record, then the user's total of records. */
export type CountedRecordTuple = [...UserRecordTuple, total: number];
/** Where a counted row's total sits: after the record's columns (typed to the tuple's length, so the two cannot drift apart). */
const RECORD_WIDTH: UserRecordTuple['length'] = 11;

/** A record of the admin list: the record's columns, then its owner's username and e-mail (null once the owner is deleted). */
export type OwnedRecordTuple = [...RecordTuple, username: string | null, email: string | null];

/**
 * A page's columns in RecordTuple's order, from a branch's rows (`r`, which carry created_at as
 * the timestamp they are ordered by). created_at as `Date.prototype.toISOString()` writes it (UTC,
 * milliseconds, 'Z'): `MS` truncates the microseconds as JavaScript's Date parsing of the full
 * text did. Formatted after the merge, for the rows the page reads.
 */
const RECORD_COLUMNS = `r.id, r.ledger_transaction_id, r.from_public_key, r.to_public_key, r.amount_stroops::text, r.asset_code, r.user_id,
  to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), r.status, r.origin`;

/** A branch's columns: an entry (`e`) or a movement (`m`) as the page's rows, with its origin; the direction is the branch's. */
const ENTRY_BRANCH = `e.id, e.ledger_transaction_id, e.from_public_key, e.to_public_key, e.amount_stroops, e.asset_code, e.user_id, e.created_at, e.status, 'service'::text as origin`;
const MOVEMENT_BRANCH = `m.id, m.ledger_transaction_id, m.from_public_key, m.to_public_key, m.amount_stroops, m.asset_code, m.user_id, m.created_at, 'confirmed'::text as status, 'ledger'::text as origin`;

/**
 * The pages' SQL, as named prepared statements (parsed and planned once per connection). The
 * record kinds (the registry's, src/ledger/kinds/registry.ts) are written into the text as
 * literals: the partial indexes' predicate, so the indexes serve (a parameter would not prove it).
 *
 * A user's list is every movement of their wallet (CONTRACT 12), from four sources, each once:
 * the journal entries they own (what they sent, were minted, withdrew, got back, were clawed
 * back), the entries another user (or nobody) owns that reached their wallet (a transfer sent to
 * them), and the ledger's movements from and to them (a payment to themselves with the first). Each
 * branch reads its own index backwards, newest first, and stops at limit + offset rows;
 * PostgreSQL merges the four (Merge Append) and cuts the page from the merge: nothing is sorted,
 * and each branch reads only as far as the page needs. The total is the sum of the four counts
 * (index-only scans, but for the movements to the user: their filter reads the rows).
 */
export function pageStatements(recordKinds: readonly string[]) {
  const kinds = recordKinds.map(sqlLiteral).join(', ');
  // The user's wallet; a deleted user's archived one, so their history still shows what they received.
  const wallet = `(select key from w)`;
  const reach = `$2::int8 + $3::int8`;
  const user = {
    name: 'user_record_page_counted',
    // The counts first and the page joined to them, so an empty page still says the total. One
    // round trip: the count used to be a query of its own, on a second connection of the pool.
    text: `with w as (
    select coalesce((select public_key from wallets where user_id = $1),
                    (select public_key from archived_wallets where user_id = $1 order by archived_at desc limit 1)) as key
  )
  select p.*, c.total
  from (select ((select count(*) from ledger_entries where user_id = $1 and kind in (${kinds}))
    + (select count(*) from ledger_entries where to_public_key = ${wallet} and kind in (${kinds}) and user_id is distinct from $1)
    + (select count(*) from ledger_movements where from_user_id = $1)
    + (select count(*) from ledger_movements where to_user_id = $1 and from_user_id is distinct from $1))::int as total) c
  left join (
    select ${RECORD_COLUMNS}, r.direction
    from (
      (select ${ENTRY_BRANCH}, case when e.from_public_key = ${wallet} then 'out' else 'in' end as direction
        from ledger_entries e where e.user_id = $1 and e.kind in (${kinds})
        order by e.created_at desc, e.id desc limit ${reach})
      union all
      (select ${ENTRY_BRANCH}, 'in'
        from ledger_entries e where e.to_public_key = ${wallet} and e.kind in (${kinds}) and e.user_id is distinct from $1
        order by e.created_at desc, e.id desc limit ${reach})
      union all
      (select ${MOVEMENT_BRANCH}, 'out'
        from ledger_movements m where m.from_user_id = $1
        order by m.created_at desc, m.id desc limit ${reach})
      union all
      (select ${MOVEMENT_BRANCH}, 'in'
        from ledger_movements m where m.to_user_id = $1 and m.from_user_id is distinct from $1
        order by m.created_at desc, m.id desc limit ${reach})
    ) r
    order by r.created_at desc, r.id desc
    limit $2 offset $3
  ) p on true`,
    rowMode: 'array',
  } as const;
  const admin = {
    name: 'admin_record_page',
    // Each movement once: the journal's records and the ledger's movements, merged as a user's page
    // is; the owners joined to the page's rows only.
    text: `select ${RECORD_COLUMNS}, u.username, u.email
  from (
    select * from (
      (select ${ENTRY_BRANCH} from ledger_entries e where e.kind in (${kinds})
        order by e.created_at desc, e.id desc limit $1::int8 + $2::int8)
      union all
      (select ${MOVEMENT_BRANCH} from ledger_movements m
        order by m.created_at desc, m.id desc limit $1::int8 + $2::int8)
    ) merged
    order by merged.created_at desc, merged.id desc
    limit $1 offset $2
  ) r left join users u on u.id = r.user_id
  order by r.created_at desc, r.id desc`,
    rowMode: 'array',
  } as const;
  const total = {
    name: 'admin_record_total',
    text: `select ((select count(*) from ledger_entries where kind in (${kinds})) + (select count(*) from ledger_movements))::int8::text`,
    rowMode: 'array',
  } as const;
  return { user, admin, total };
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
   * count(*) over every record (the journal's records and the ledger's movements) reads the whole
   * of both (or their indexes): ~120 ms at a million rows. The admin list's X-Total-Count is served
   * from here: new records are counted within TOTAL_TTL_MS; refreshed in the background, one count at a time.
   */
  private total: { value: number; countedAt: number; refreshing?: Promise<number> } | undefined;

  /** The pool under Drizzle: the pages run on it directly, in array mode. */
  private readonly pool: Pool;

  private readonly statements: ReturnType<typeof pageStatements>;

  /** `recordKinds`: the kinds listed as transaction records (KindRegistry.recordKinds). */
  constructor(db: Database, recordKinds: readonly string[]) {
    this.pool = (db as unknown as { $client: Pool }).$client;
    this.statements = pageStatements(recordKinds);
  }

  /**
   * One page of a user's records (every movement of their wallet: pageStatements), newest first,
   * with each record's direction from the user's side, as the list route answers it (and the bench's
   * route ceiling reads it): rows in array mode, timestamps and int8 as PostgreSQL's text, shaped
   * by transactionRecordOf (src/routes/transaction-record.ts) with no row object in between:
   * Drizzle's row mapping of every journal column (three timestamps among them) was the largest
   * single cost of the page, 30% of the route's CPU under load (`--cpu-prof`, BENCHMARKS.md). Each
   * source's index, read backwards, serves it without a sort.
   */
  async userPage(userId: string, limit: number, offset: number): Promise<{ rows: CountedRecordTuple[]; total: number }> {
    const { rows } = await this.pool.query<CountedRecordTuple>({ ...this.statements.user, values: [userId, limit, offset] });
    // Each row ends with the total; a page past the end is one row of nulls and the total. The rows
    // are handed on as they are: a record is read by position, and the total after it is not read.
    const total = rows[0]?.[RECORD_WIDTH] ?? 0;
    return { rows: rows[0]?.[0] === null ? [] : rows, total };
  }

  /**
   * One page of every record (the journal's and the ledger's, each movement once) with the owner's
   * username and e-mail, newest first (the admin list). No direction: a movement between two users
   * has two sides, and the admin sees both keys.
   */
  async adminPage(limit: number, offset: number): Promise<OwnedRecordTuple[]> {
    return (await this.pool.query<OwnedRecordTuple>({ ...this.statements.admin, values: [limit, offset] })).rows;
  }

  /** Every record the admin list shows: the journal's records and the ledger's movements. */
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
    const { rows } = await this.pool.query<[string]>({ ...this.statements.total });
    const value = Number(rows[0]?.[0] ?? 0);
    this.total = { value, countedAt };
    return value;
  }
}
