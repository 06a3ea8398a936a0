import crypto from 'node:crypto';
import type { Database } from '../db/client';
import { idempotencyKeyBound, type IdempotencyClaim, type IdempotencyRow } from '../db/repositories/idempotency.repository';
import { appendAdminLog } from '../db/repositories/admin-log.repository';
import type { ClaimStatement, EntryRow, JournalRepository, NewEntry } from '../db/repositories/journal.repository';
import type { AdminLogEntry } from '../domain/admin-log';
import type { EntryKind } from './kinds/entry-kind';

/** What committing an entry did: committed, or nothing written because its key or its claim was taken, or a live entry of its kind stands. */
export type Committed =
  | { committed: true; entry: EntryRow }
  | { committed: false; reason: 'key_taken'; key: IdempotencyRow }
  | { committed: false; reason: 'claimed' | 'live' };

export interface EntryCommitDeps {
  db: Database;
  repository: JournalRepository;
  /** How long the committing process owns the new entry before the reconciler may take it. */
  leaseMs: number;
}

/**
 * Commits a new entry of `kind`, leased to this process, in one transaction with what it claims:
 * the request's Idempotency-Key first, then its kind's claim (a payment reference, a reversal, an
 * approval); an admin's write also appends its admin log row there.
 * Each claim is one conditional statement that writes nothing when it loses, so concurrent callers
 * queue on the claimed row and every loser commits nothing: `key_taken` (with the key's row, bound
 * by an earlier request) or `claimed`. `live`: the kind's own unique index already holds a live
 * entry for the same thing (a wallet's activation).
 */
export function commitEntry(deps: EntryCommitDeps, kind: EntryKind, entry: NewEntry, key: IdempotencyClaim | undefined, adminLog?: AdminLogEntry): Promise<Committed> {
  // No key and no log: one statement is atomic, and a transaction around it would only add round
  // trips (issue 37): the insert alone (a transfer sent without a key), or the claim and the
  // insert together (a verified payment's mint).
  if (!key && !adminLog) {
    if (!kind.claim) return commitAlone(deps, entry);
    if (kind.claim.statement) return commitClaimedAlone(deps, kind.claim.statement, entry);
  }
  return deps.db.transaction(async (tx): Promise<Committed> => {
    const id = crypto.randomUUID();
    if (key) {
      const taken = await idempotencyKeyBound(tx, key, id);
      if (taken) return { committed: false, reason: 'key_taken', key: taken };
    }
    if (kind.claim && !(await kind.claim.take(tx, { ...entry, id }))) return { committed: false, reason: 'claimed' };
    const row = await deps.repository.insertEntry(tx, { ...entry, id }, deps.leaseMs);
    if (row) {
      // An admin's write (a mint, an issue) and its admin log row commit together or not at all.
      if (adminLog) await appendAdminLog(tx, { ...adminLog, details: { ...adminLog.details, entryId: row.id } });
      return { committed: true, entry: row };
    }
    // The claim above is what stops a second entry; an index firing behind a won claim is a broken invariant.
    if (kind.claim) throw new Error(`a live ${entry.kind} entry already stands for a claim this caller won`);
    return { committed: false, reason: 'live' };
  });
}

/** An entry with nothing to claim or log: its insert alone, a statement prepared once. */
async function commitAlone(deps: EntryCommitDeps, entry: NewEntry): Promise<Committed> {
  const row = await deps.repository.insertEntryAlone({ ...entry, id: crypto.randomUUID() }, deps.leaseMs);
  return row ? { committed: true, entry: row } : { committed: false, reason: 'live' };
}

/** An entry whose claim is all it commits with: the claim and the insert, one prepared statement. */
async function commitClaimedAlone(deps: EntryCommitDeps, claim: ClaimStatement, entry: NewEntry): Promise<Committed> {
  const row = await deps.repository.insertEntryClaimed(claim, { ...entry, id: crypto.randomUUID() }, deps.leaseMs);
  return row ? { committed: true, entry: row } : { committed: false, reason: 'claimed' };
}
