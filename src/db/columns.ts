import { text, timestamp, uuid } from 'drizzle-orm/pg-core';

// Columns several tables have, each a function: a column builder belongs to one table.

export const id = () => uuid('id').primaryKey().defaultRandom();
export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** An account's credentials (users, admins). */
export const credentials = () => ({
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  /**
   * The last credential change (password reset, or an admin changing a user's e-mail); equal to
   * created_at until then. Access tokens issued in or before its second are refused
   * (src/security/sessions.ts).
   */
  passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A ledger secret key at rest (wallets, archived wallets, system accounts). */
export const sealedSecret = () => ({
  /** AES-256-GCM ciphertext of the secret seed; never the seed itself. */
  secretCiphertext: text('secret_ciphertext').notNull(),
  /** Which key sealed it (src/security/wallet-cipher.ts; rotated by `npm run wallet:rotate-key`). */
  keyId: text('key_id').notNull(),
});

export const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();
