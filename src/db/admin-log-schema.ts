import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The tamper-evident admin log (src/domain/admin-log.ts): one row per admin action, in one chain
 * across processes and restarts (`seq` is assigned under one lock), each row hashing the one
 * before it. Appended in the action's own transaction; never updated or deleted by the service.
 */
export const adminLog = pgTable(
  'admin_log',
  {
    seq: bigint('seq', { mode: 'bigint' }).primaryKey(),
    /** The database's time, to the millisecond (what the hash covers is what is stored). */
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull(),
    adminId: uuid('admin_id'),
    action: text('action').notNull(),
    target: text('target'),
    requestId: text('request_id'),
    ip: text('ip'),
    /** A few facts of the action (ids, addresses, amounts): never a secret. */
    details: jsonb('details').notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [index('admin_log_admin_idx').on(t.adminId, t.seq), index('admin_log_action_idx').on(t.action, t.seq)],
);
