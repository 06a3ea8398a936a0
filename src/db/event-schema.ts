import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { EVENT_TYPES } from '../domain/events';
import { createdAt, id, updatedAt } from './columns';

// The outbox of CONTRACT.md section 13: events written with the changes they report, the
// endpoints admins register and each event's delivery to each endpoint.

/**
 * One event, written in the transaction of the change it reports (src/db/repositories/event.repository.ts).
 * `seq` numbers a user's events 1, 2, 3... without a gap: it is taken from event_sequences in
 * the same transaction, so a rolled-back change takes no number. No foreign key to users: a
 * history outlives the account.
 */
export const events = pgTable(
  'events',
  {
    id: id(),
    userId: uuid('user_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    data: jsonb('data').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('events_user_seq_key').on(t.userId, t.seq), index('events_created_at_idx').on(t.createdAt)],
);

/** Each user's last event number: the row is locked by the transaction that takes the next one. */
export const eventSequences = pgTable('event_sequences', {
  userId: uuid('user_id').primaryKey(),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
});

/** An operator's back end that hears events (POST /api/admin/webhook-endpoints). */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    url: text('url').notNull(),
    /** The types it hears; null: every type. */
    eventTypes: text('event_types').array(),
    /** The `whsec_` signing secret, sealed like a wallet's seed (src/security/wallet-cipher.ts), bound to the endpoint's id. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    keyId: text('key_id').notNull(),
    /** The secret before the last rotation: deliveries carry its signature too until `previousUntil`. */
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousKeyId: text('previous_key_id'),
    previousUntil: timestamp('previous_until', { withTimezone: true }),
    createdBy: uuid('created_by'),
    /** Set when a delivery failed for good (every retry spent); cleared by the next success. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    createdAt: createdAt(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('webhook_endpoints_live_idx').on(t.createdAt).where(sql`deleted_at is null`)],
);

/** One event's delivery to one endpoint: enqueued on the job queue in the event's transaction. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    eventId: uuid('event_id').notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** The endpoint's last HTTP status; null: no answer (timeout, refused connection, refused address). */
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_endpoint_key').on(t.eventId, t.endpointId),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt, t.id),
    // The backlog the metrics read: the few not delivered, not the many that were.
    index('webhook_deliveries_backlog_idx').on(t.status, t.createdAt).where(sql`status <> 'delivered'`),
  ],
);
