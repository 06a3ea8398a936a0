import { and, asc, count, eq, gt, ne } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database } from '../client';
import { webhookSecretBinding } from '../../security/webhook-secrets';
import { adminMfa, archivedWallets, mfaSecretBinding, systemAccounts, wallets, webhookEndpoints } from '../schema';

/** The tables that hold secrets sealed by WalletCipher: ledger secret seeds, admins' TOTP secrets, webhook endpoints' signing secrets. */
export const SEALED_TABLES = ['wallets', 'archived_wallets', 'system_accounts', 'admin_mfa', 'webhook_endpoints'] as const;
export type SealedTable = (typeof SEALED_TABLES)[number];

export interface SealedRow {
  /** The row's primary key: user id, archive id, system account name or admin id. */
  id: string;
  /**
   * The sealing's associated data: a ciphertext opens only with what it was bound to (a wallet's
   * public key; for an admin's TOTP secret, mfaSecretBinding of the admin id).
   */
  boundTo: string;
  secretCiphertext: string;
  keyId: string;
}

interface SealedColumns {
  table: PgTable;
  id: PgColumn;
  /** The column the associated data comes from, and how (the column as it is, unless `bind` says). */
  boundTo: PgColumn;
  bind?: (value: string) => string;
  secretCiphertext: PgColumn;
  keyId: PgColumn;
}

const COLUMNS: Record<SealedTable, SealedColumns> = {
  wallets: { table: wallets, id: wallets.userId, boundTo: wallets.publicKey, secretCiphertext: wallets.secretCiphertext, keyId: wallets.keyId },
  archived_wallets: {
    table: archivedWallets,
    id: archivedWallets.id,
    boundTo: archivedWallets.publicKey,
    secretCiphertext: archivedWallets.secretCiphertext,
    keyId: archivedWallets.keyId,
  },
  system_accounts: {
    table: systemAccounts,
    id: systemAccounts.name,
    boundTo: systemAccounts.publicKey,
    secretCiphertext: systemAccounts.secretCiphertext,
    keyId: systemAccounts.keyId,
  },
  admin_mfa: {
    table: adminMfa,
    id: adminMfa.adminId,
    boundTo: adminMfa.adminId,
    bind: mfaSecretBinding,
    secretCiphertext: adminMfa.secretCiphertext,
    keyId: adminMfa.keyId,
  },
  // The current secret; a rotated-out one signs for a day more and is not re-sealed (webhook-secrets.ts).
  webhook_endpoints: {
    table: webhookEndpoints,
    id: webhookEndpoints.id,
    boundTo: webhookEndpoints.id,
    bind: webhookSecretBinding,
    secretCiphertext: webhookEndpoints.secretCiphertext,
    keyId: webhookEndpoints.keyId,
  },
};

/** Reads and re-seals encrypted secrets across the tables that keep them (key rotation). */
export class WalletKeyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Up to `limit` rows of `table` sealed under any key but `currentKeyId`, after `afterId` in
   * primary-key order (keyset paging: each row is visited once per pass, whatever happens to it).
   */
  async sealedUnderOtherKeys(table: SealedTable, currentKeyId: string, afterId: string | undefined, limit: number): Promise<SealedRow[]> {
    const c = COLUMNS[table];
    const otherKey = ne(c.keyId, currentKeyId);
    const rows = await this.db
      .select({ id: c.id, boundTo: c.boundTo, secretCiphertext: c.secretCiphertext, keyId: c.keyId })
      .from(c.table)
      .where(afterId === undefined ? otherKey : and(otherKey, gt(c.id, afterId)))
      .orderBy(asc(c.id))
      .limit(limit);
    const bind = c.bind ?? ((value: string) => value);
    return rows.map((r) => ({ id: String(r.id), boundTo: bind(String(r.boundTo)), secretCiphertext: String(r.secretCiphertext), keyId: String(r.keyId) }));
  }

  /**
   * Replaces a row's sealed secret only if it still holds exactly `expected` (a conditional
   * update: a row deleted, archived or re-sealed meanwhile is left alone). True when it changed.
   */
  async reseal(table: SealedTable, id: string, expected: Pick<SealedRow, 'secretCiphertext' | 'keyId'>, next: Pick<SealedRow, 'secretCiphertext' | 'keyId'>): Promise<boolean> {
    const c = COLUMNS[table];
    const changed = await this.db
      .update(c.table)
      // The sealed tables name these columns alike (secretCiphertext, keyId).
      .set({ secretCiphertext: next.secretCiphertext, keyId: next.keyId } as never)
      .where(and(eq(c.id, id), eq(c.keyId, expected.keyId), eq(c.secretCiphertext, expected.secretCiphertext)))
      .returning({ id: c.id });
    return changed.length > 0;
  }

  /** How many rows of each table are sealed under each key id. */
  async countByKeyId(): Promise<Record<SealedTable, Record<string, number>>> {
    const result = {} as Record<SealedTable, Record<string, number>>;
    for (const table of SEALED_TABLES) {
      const c = COLUMNS[table];
      const rows = await this.db.select({ keyId: c.keyId, n: count() }).from(c.table).groupBy(c.keyId);
      result[table] = Object.fromEntries(rows.map((r) => [String(r.keyId), Number(r.n)]));
    }
    return result;
  }
}
