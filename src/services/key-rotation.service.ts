import { SEALED_TABLES, type SealedTable, type WalletKeyRepository } from '../db/repositories/wallet-key.repository';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import { errorReason } from '../errors/loggable-error';

export interface TableRotation {
  /** Rows re-encrypted under the current key by this run. */
  resealed: number;
  /** Rows that changed between read and write (deleted, archived, re-sealed by another run): left alone. */
  changedMeanwhile: number;
  /** Rows whose key is not configured, or whose ciphertext does not open: left alone, reported. */
  unreadable: number;
}

export interface RotationReport {
  currentKeyId: string;
  tables: Record<SealedTable, TableRotation>;
  /** After the run: rows per table still sealed under a key id other than the current one. */
  remaining: Record<SealedTable, Record<string, number>>;
}

export interface RotationOptions {
  /** Rows read and re-sealed per batch (each update is its own short statement). Default 100. */
  batchSize?: number;
  /** Called after every batch, e.g. to report progress. */
  onBatch?: (table: SealedTable, totals: TableRotation) => void;
}

/** A pass that re-sealed rows may have raced rows written meanwhile under an old key: look again, a few times. */
const MAX_PASSES = 5;

/**
 * Re-encrypts every sealed secret (the secret seeds of user wallets, archived wallets and the
 * system accounts; admins' TOTP secrets) that is under an older key with the current
 * WALLET_ENCRYPTION_KEY.
 *
 * Safe while the service runs: the service must be configured with the same current key and the
 * old one in WALLET_ENCRYPTION_KEY_PREVIOUS, so every row opens before, during and after. Rows
 * are read in small batches and each is replaced by a conditional update (`where key_id = old
 * and ciphertext = old`), so a row a request deletes or archives meanwhile is never resurrected
 * or overwritten. Idempotent: a second run finds nothing to do. The old key may be dropped from
 * the configuration once `remaining` is empty.
 */
export class KeyRotationService {
  constructor(
    private readonly repo: WalletKeyRepository,
    private readonly cipher: WalletCipher,
    private readonly logger?: Logger,
  ) {}

  async rotate(options: RotationOptions = {}): Promise<RotationReport> {
    const batchSize = options.batchSize ?? 100;
    const tables = Object.fromEntries(SEALED_TABLES.map((t) => [t, { resealed: 0, changedMeanwhile: 0, unreadable: 0 }])) as Record<SealedTable, TableRotation>;
    for (const table of SEALED_TABLES) {
      for (let pass = 0; pass < MAX_PASSES; pass++) {
        const before = tables[table].resealed;
        await this.pass(table, batchSize, tables[table], options.onBatch);
        if (tables[table].resealed === before) break;
      }
    }
    return { currentKeyId: this.cipher.currentKeyId, tables, remaining: await this.remaining() };
  }

  /** Rows per table still sealed under a key other than the current one. */
  async remaining(): Promise<Record<SealedTable, Record<string, number>>> {
    const counts = await this.repo.countByKeyId();
    for (const table of SEALED_TABLES) delete counts[table][this.cipher.currentKeyId];
    return counts;
  }

  /** One walk over the table in primary-key order; each old row is visited once. */
  private async pass(table: SealedTable, batchSize: number, totals: TableRotation, onBatch: RotationOptions['onBatch']): Promise<void> {
    let after: string | undefined;
    for (;;) {
      const rows = await this.repo.sealedUnderOtherKeys(table, this.cipher.currentKeyId, after, batchSize);
      if (rows.length === 0) return;
      for (const row of rows) {
        let secret: string;
        try {
          secret = this.cipher.open({ ciphertext: row.secretCiphertext, keyId: row.keyId }, row.boundTo);
        } catch (err) {
          // Never the secret, nor the ciphertext: which row, and why it could not be opened.
          totals.unreadable++;
          this.logger?.warn({ table, id: row.id, keyId: row.keyId, reason: errorReason(err) }, 'sealed secret not readable with the configured keys');
          continue;
        }
        const next = this.cipher.seal(secret, row.boundTo);
        const changed = await this.repo.reseal(table, row.id, row, { secretCiphertext: next.ciphertext, keyId: next.keyId });
        if (changed) totals.resealed++;
        else totals.changedMeanwhile++;
      }
      after = rows[rows.length - 1]!.id;
      onBatch?.(table, { ...totals });
    }
  }
}
