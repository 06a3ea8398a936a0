import type { LedgerDelta } from '../ledger-delta';

export interface OperationContext {
  delta: LedgerDelta;
  /** G address of the operation's source (its own source, or the transaction's). */
  source: string;
}

/** Horizon's code for an operation that did what it was asked. */
export const OP_SUCCESS = 'op_success';
