import type { Keypair, xdr } from '@stellar/stellar-sdk';

/** One journal entry's operations, to be carried by the next envelope of this account. */
export interface LedgerJob {
  /** The committed journal entry these operations are. */
  entryId: string;
  /** Its entry's kind (kinds/registry.ts): what a refusal of its operations means. */
  kind: string;
  operations: xdr.Operation[];
  /** Keys besides the source account's that must sign (e.g. a new wallet for its change_trust). */
  signers?: Keypair[];
}
