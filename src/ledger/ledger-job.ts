import type { Keypair, xdr } from '@stellar/stellar-sdk';
import type { LedgerRejectedError } from '../clients/ledger-errors';
import type { EntryKind } from '../db/schema';

/** One journal entry's operations, to be carried by the next envelope of this account. */
export interface LedgerJob {
  /** The committed journal entry these operations are. */
  entryId: string;
  kind: EntryKind;
  operations: xdr.Operation[];
  /** Keys besides the source account's that must sign (e.g. a new wallet for its change_trust). */
  signers?: Keypair[];
}

/** What became of a job, as the journal now records it. */
export type JobOutcome =
  | { status: 'confirmed'; hash: string; ledger: number }
  /** The ledger refused its operations for good; the entry is failed with this error's code. */
  | { status: 'failed'; error: LedgerRejectedError }
  /** Its envelope is open with an unknown outcome; the reconciler settles it. */
  | { status: 'unknown'; hash: string }
  /** No envelope of it can apply (never sent, refused, or dead); the entry waits for a new one. */
  | { status: 'waiting'; error: Error };
