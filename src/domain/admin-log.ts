import crypto from 'node:crypto';

/**
 * The admin log's chain rule, in one place: every row carries the SHA-256 of the row before it
 * and of its own canonical content, so an edit, a deletion, an insertion or a swap anywhere shows
 * at the first row that no longer fits (src/cli/audit-verify.ts walks it). The chain is unkeyed,
 * as Formance's and Blnk's are: whoever can write the table can also rewrite everything after a
 * row, so `audit:verify` prints the head's hash for operators to keep elsewhere; a rewritten
 * history then no longer ends at a head anyone recorded.
 */

/** Who acted, and through which request: what the routes know of an admin action. */
export interface AdminActor {
  /** Null for what no admin account did (a failed login for an unknown address, the key rotation CLI). */
  adminId: string | null;
  requestId?: string;
  ip?: string;
}

/** One admin action, as appended: never a secret in `details` (ids, e-mail addresses, amounts, counts). */
export interface AdminLogEntry extends AdminActor {
  action: string;
  target?: string;
  details?: Record<string, string | number | boolean | null | string[]>;
}

/** A stored row's content: what its hash covers, besides the previous row's hash. */
export interface AdminLogContent {
  seq: bigint;
  at: Date;
  adminId: string | null;
  action: string;
  target: string | null;
  requestId: string | null;
  ip: string | null;
  details: unknown;
}

/** The previous hash of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** The row's hash: SHA-256 over the previous row's hash and the row's canonical content. */
export function rowHash(prevHash: string, content: AdminLogContent): string {
  return crypto.createHash('sha256').update(prevHash).update('\n').update(canonicalJson(contentValue(content))).digest('hex');
}

function contentValue(content: AdminLogContent): Record<string, unknown> {
  return {
    seq: content.seq.toString(),
    at: content.at.toISOString(),
    adminId: content.adminId,
    action: content.action,
    target: content.target,
    requestId: content.requestId,
    ip: content.ip,
    details: content.details ?? {},
  };
}

/** JSON with object keys sorted at every depth: the same content always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export interface ChainedRow extends AdminLogContent {
  prevHash: string;
  hash: string;
}

/** What walking the chain found: every row fits, or the first that does not, and why. */
export type ChainVerdict = { ok: true; rows: number; head: string } | { ok: false; rows: number; seq: bigint; problem: string };

/**
 * Walks rows in `seq` order from the first (fed in batches: `next` keeps the walk's place). A row
 * fits when its seq follows the previous one by one, its prev_hash is the previous row's hash, and
 * its hash is that of its own content.
 */
export class ChainWalk {
  private prev = GENESIS_HASH;
  private expectedSeq = 1n;
  private count = 0;
  private broken: ChainVerdict | undefined;

  next(rows: ChainedRow[]): void {
    for (const row of rows) {
      if (this.broken) return;
      this.count += 1;
      const problem =
        row.seq !== this.expectedSeq
          ? `seq ${row.seq} where ${this.expectedSeq} was expected (a row is missing or was inserted)`
          : row.prevHash !== this.prev
            ? "its prev_hash is not the previous row's hash (the row before it was changed, removed or swapped)"
            : row.hash !== rowHash(row.prevHash, row)
              ? 'its hash does not match its content (the row was changed)'
              : undefined;
      if (problem) {
        this.broken = { ok: false, rows: this.count, seq: row.seq, problem };
        return;
      }
      this.prev = row.hash;
      this.expectedSeq += 1n;
    }
  }

  verdict(): ChainVerdict {
    return this.broken ?? { ok: true, rows: this.count, head: this.prev };
  }
}
