import { bigint, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, sealedSecret, updatedAt } from './columns';

// Admin MFA's two tables: an admin's TOTP secret (RFC 6238) and the one-time recovery codes.
// `admin_id` names admins.id without a foreign key, as withdrawals name users: this file is
// re-exported by schema.ts, which defines `admins`, so importing it back would be a cycle; and no
// route or tool deletes an admin.

/**
 * What an admin's sealed TOTP secret is bound to: the cipher's associated data
 * (src/security/wallet-cipher.ts), so a ciphertext copied onto another admin's row does not open.
 * Key rotation (src/db/repositories/wallet-key.repository.ts) binds it the same way.
 */
export const mfaSecretBinding = (adminId: string): string => `admin-mfa:${adminId}`;

/**
 * One row per admin who started enrolling. The secret is sealed like a wallet key (AES-256-GCM
 * under WALLET_ENCRYPTION_KEY, rotated with them). `enabledAt` is null while the enrolment waits
 * for its first code (POST /api/admin/mfa/confirm); a second setup before that replaces the
 * secret. `lastUsedStep` is the last TOTP time step (unix time / 30 s) a code was accepted for:
 * a code is accepted only for a later step, by one conditional update, so a code works once.
 */
export const adminMfa = pgTable('admin_mfa', {
  adminId: uuid('admin_id').primaryKey(),
  ...sealedSecret(),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * An enrolled admin's recovery codes, ten, handed out once by the confirm answer. Stored as the
 * SHA-256 of the code, not bcrypt: a code carries 80 random bits (src/security/recovery-codes.ts),
 * so a fast hash is as far from a brute force as a slow one, and a fixed hash can be looked up by
 * an index and spent by one conditional update (`used_at is null`), where bcrypt's salt would make
 * every login try all ten hashes at about 50 ms each. Each code works once.
 */
export const adminRecoveryCodes = pgTable(
  'admin_recovery_codes',
  {
    id: id(),
    adminId: uuid('admin_id').notNull(),
    /** Hex SHA-256 of the code as normalised (upper case, no dashes); never the code. */
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('admin_recovery_codes_hash_key').on(t.adminId, t.codeHash)],
);
