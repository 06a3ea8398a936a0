import { and, asc, eq, gt, lt, sql, type SQL } from 'drizzle-orm';
import { formatKobo, formatStroops } from '../../domain/amounts';
import type { EventDraft } from '../../domain/events';
import type { PaymentEventType } from '../../domain/payment-lifecycle';
import type { WithdrawalEventType } from '../../domain/withdrawal-lifecycle';
import type { Database, Executor } from '../client';
import { events, type payments, type withdrawals } from '../schema';
import { rowsOf } from './rows';

export type EventRow = typeof events.$inferSelect;

/** Where a change puts the events it causes; they are appended in its transaction before it commits. */
export interface EventSink {
  add(...drafts: EventDraft[]): void;
}

/** The events of one transaction, gathered while it runs and appended by one statement at its end. */
export class EventBatch implements EventSink {
  readonly drafts: EventDraft[] = [];
  add(...drafts: EventDraft[]): void {
    this.drafts.push(...drafts);
  }
}

/** Appends events in the caller's transaction, their deliveries enqueued with them (src/events/event-outbox.ts). */
export interface EventAppender {
  /** False only for the benchmark's baseline (EVENT_OUTBOX=off): nothing is written, and no path is taken for events' sake. */
  readonly enabled: boolean;
  append(tx: Executor, drafts: readonly EventDraft[]): Promise<void>;
}

/** Opens a transaction whose events (what `fn` adds) are appended, and their deliveries enqueued, before it commits (src/events/event-outbox.ts). */
export interface EventTransactions {
  run<T>(fn: (tx: Executor, events: EventSink) => Promise<T>): Promise<T>;
}

/** A payment's event, from its row after the move. */
export function paymentEventOf(row: typeof payments.$inferSelect, type: PaymentEventType): EventDraft {
  return {
    userId: row.userId,
    type,
    data: {
      reference: row.reference,
      amountNaira: formatKobo(row.amountKobo),
      tokens: type === 'payment.minted' && row.tokensStroops !== null ? formatStroops(row.tokensStroops) : null,
      reason: row.failureReason,
    },
  };
}

/** A withdrawal's event, from its row after the move. */
export function withdrawalEventOf(row: typeof withdrawals.$inferSelect, type: WithdrawalEventType): EventDraft {
  return {
    userId: row.userId,
    type,
    data: { withdrawalId: row.id, reference: row.reference, amountNaira: formatKobo(row.nairaKobo), tokens: formatStroops(row.amountStroops), status: row.status, reason: row.reason },
  };
}

/** A token movement's two sides: debited for the holder of `from`, credited for the holder of `to` (a key nobody here holds is dropped when appended). */
export function walletEventsOf(movement: WalletMovement): EventDraft[] {
  const common = { transactionId: movement.transactionId, ledgerTransactionId: movement.ledgerTransactionId, from: movement.from, to: movement.to, origin: movement.origin };
  const sent = movement.sent ?? { stroops: movement.stroops, assetCode: movement.assetCode };
  return [
    { walletKey: movement.from, type: 'wallet.debited', data: { ...common, amount: formatStroops(sent.stroops), assetCode: sent.assetCode } },
    { walletKey: movement.to, type: 'wallet.credited', data: { ...common, amount: formatStroops(movement.stroops), assetCode: movement.assetCode } },
  ];
}

/** A movement as its wallet events tell it: what reached `to`, and what left `from` when a path payment sent something else. */
export interface WalletMovement {
  transactionId: string;
  ledgerTransactionId: string;
  from: string;
  to: string;
  stroops: bigint;
  assetCode: string;
  sent?: { stroops: bigint; assetCode: string };
  origin: 'service' | 'ledger';
}

/** The PostgreSQL channel an append notifies, once per user, with `<userId>:<last seq>`: open streams wake on it. */
export const EVENTS_CHANNEL = 'wallet_events';

/** What an append wrote: the deliveries it created, for the job queue, in the same transaction. */
export interface Appended {
  events: number;
  deliveryIds: string[];
}

/** The user holding a wallet key (a live wallet's, or an archived one's): null for a key nobody here holds. */
export function holderOf(key: SQL): SQL {
  return sql`coalesce((select w.user_id from wallets w where w.public_key = ${key}), (select a.user_id from archived_wallets a where a.public_key = ${key} limit 1))`;
}

/**
 * The steps of an append, as the bodies of CTEs over an input of (ord, user_id, type, data): the
 * users' next numbers, the events, the notification. Shared by `append` and by the journal's
 * one-statement confirmation of a transfer (JournalRepository.confirmEnvelopeAlone), so the two
 * write events one way.
 */
export const appendStep = {
  /** How many events each user gets. */
  counts: (input: SQL) => sql`select user_id, count(*) as n from ${input} group by user_id`,
  /** The users' numbers taken: their rows locked until commit, in id order (two appends never wait in a circle). */
  numbers: (counts: SQL) => sql`
    insert into event_sequences as s (user_id, last_seq)
    select user_id, n from ${counts} order by user_id
    on conflict (user_id) do update set last_seq = s.last_seq + excluded.last_seq
    returning user_id, last_seq`,
  /** The events, each user's numbered in input order. */
  inserted: (input: SQL, numbers: SQL, counts: SQL) => sql`
    insert into events (user_id, seq, type, data)
    select o.user_id, n.last_seq - c.n + row_number() over (partition by o.user_id order by o.ord), o.type, o.data
    from ${input} o join ${numbers} n on n.user_id = o.user_id join ${counts} c on c.user_id = o.user_id
    returning id, user_id, seq, type`,
  /** One notification per user with their newest number, sent by PostgreSQL at commit. */
  notified: (inserted: SQL) => sql`select pg_notify(${EVENTS_CHANNEL}, user_id::text || ':' || max(seq)) from ${inserted} group by user_id`,
};

/**
 * The outbox (CONTRACT.md section 13). `append` writes events in the caller's transaction, so a
 * rolled-back change leaves no event and a committed one always has its own.
 */
export class EventRepository {
  constructor(private readonly db: Database) {}

  /**
   * One statement: each draft's user (named, or the holder of its wallet key; a key nobody here
   * holds is no user's event and is dropped), the users' next numbers taken from event_sequences
   * (the row stays locked until the caller commits, so two transactions never take one number and
   * a rollback gives its numbers back), the events, one delivery per live endpoint that hears the
   * type, and a notification per user for the open streams (sent by PostgreSQL at commit only).
   * Users' sequence rows are locked in id order, so two appends never wait on each other in a circle.
   */
  async append(tx: Executor, drafts: readonly EventDraft[]): Promise<Appended> {
    if (drafts.length === 0) return { events: 0, deliveryIds: [] };
    const input = JSON.stringify(
      drafts.map((d, ord) => ({ ord, user_id: 'userId' in d ? d.userId : null, wallet_key: 'walletKey' in d ? d.walletKey : null, type: d.type, data: d.data })),
    );
    const name = (n: string) => sql`${sql.identifier(n)}`;
    const result = await tx.execute(sql`
      with input as (
        select x.ord, x.type, x.data,
               coalesce(x.user_id, ${holderOf(sql`x.wallet_key`)}) as user_id
        from jsonb_to_recordset(${input}::jsonb) as x(ord int, user_id uuid, wallet_key text, type text, data jsonb)
      ),
      owned as (select * from input where user_id is not null),
      counts as (${appendStep.counts(name('owned'))}),
      numbers as (${appendStep.numbers(name('counts'))}),
      inserted as (${appendStep.inserted(name('owned'), name('numbers'), name('counts'))}),
      deliveries as (
        insert into webhook_deliveries (event_id, endpoint_id)
        select i.id, e.id from inserted i
        join webhook_endpoints e on e.deleted_at is null and (e.event_types is null or i.type = any(e.event_types))
        returning id
      ),
      notified as (${appendStep.notified(name('inserted'))})
      select (select count(*) from inserted)::int as events,
             (select count(*) from notified)::int as notified,
             coalesce((select json_agg(id) from deliveries), '[]'::json) as delivery_ids`);
    const [row] = rowsOf<{ events: number; delivery_ids: string[] }>(result);
    return { events: row?.events ?? 0, deliveryIds: row?.delivery_ids ?? [] };
  }

  /** A user's events after `after` (their seq), oldest first: the stream's catch-up and the JSON page. */
  async userPage(userId: string, after: number, limit: number): Promise<EventRow[]> {
    return this.db
      .select()
      .from(events)
      .where(and(eq(events.userId, userId), gt(events.seq, after)))
      .orderBy(asc(events.seq))
      .limit(limit);
  }

  /** Events older than `before` are deleted (EVENT_RETENTION_DAYS); the users' numbers go on from where they were. */
  async deleteOlderThan(before: Date): Promise<number> {
    const deleted = await this.db.delete(events).where(lt(events.createdAt, before)).returning({ id: events.id });
    return deleted.length;
  }

  async all(): Promise<EventRow[]> {
    return this.db.select().from(events).orderBy(asc(events.createdAt), asc(events.userId), asc(events.seq));
  }
}
