import type { LedgerRejectedError } from '../clients/ledger-errors';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import type { AdminLogEntry } from '../domain/admin-log';
import type { EntryRow } from '../db/repositories/journal.repository';

/**
 * What a use case asks the journal to write, as data: `kind` names the entry kind that handles it,
 * and each kind's file under kinds/ exports its command and the function that makes one
 * (`transferCommand`...). What a command claims in the transaction that commits it is its kind's
 * (a payment mint consumes its payment reference, a clawback takes its reversal); any command may
 * carry the request's Idempotency-Key (WriteOptions).
 */
export type WriteCommand = KindCommand;

/** What a use case asks the journal to write: `kind` names the entry kind (kinds/registry.ts) that handles it. */
export interface KindCommand {
  readonly kind: string;
}

export interface WriteOptions {
  /** The request's Idempotency-Key, bound to the entry in the transaction that commits it. */
  idempotency?: IdempotencyClaim;
  /** The admin action this write is (a mint, an issue): its admin log row is appended in the transaction that commits the entry. */
  adminLog?: AdminLogEntry;
  /** How long the caller waits for the network's answer (default: LEDGER_ANSWER_WAIT_MS). */
  waitMs?: number;
}

/** What became of an entry: from its envelope's send to the HTTP answer, one type. */
export type EntryOutcome =
  | { status: 'confirmed'; hash: string; ledger: number }
  /** The network refused the entry's operations for good; the entry is failed with this error's code. */
  | { status: 'failed'; error: LedgerRejectedError }
  /** Its envelope is out and its fate not known yet: the reconciler finishes it. */
  | { status: 'pending' }
  /** No envelope could carry it now (never sent, refused, or dead): it waits for a new one. */
  | { status: 'waiting'; error: Error };

/** A written entry's outcome as a write answers it: one nothing can send is dropped or left to the reconciler (pending), never answered `waiting`. */
export type WrittenOutcome = Exclude<EntryOutcome, { status: 'waiting' }>;

/**
 * What a write answers. Written: the entry and its outcome (a retry with a bound key gets the
 * first request's entry, `replayed`). Not written, and why:
 * - `key_reused`: the Idempotency-Key is bound to a different request (409);
 * - `claimed`: another caller consumed the payment reference or took the reversal first;
 * - `live`: a live entry of this kind already stands for the same thing (a wallet's activation);
 * - `nothing_to_do`: the network already has what the command asks for (an active wallet);
 * - `dropped`: nothing could send it and it need not finish, so it was dropped with its key (503).
 */
export type WriteResult =
  | { written: true; entry: EntryRow; outcome: WrittenOutcome; replayed?: boolean }
  | { written: false; reason: 'key_reused' | 'claimed' | 'live' | 'nothing_to_do' }
  | { written: false; reason: 'dropped'; error: Error };
