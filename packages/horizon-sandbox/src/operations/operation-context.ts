import type { Asset } from '@stellar/stellar-sdk';
import type { LedgerDelta } from '../ledger-delta';
import type { ActiveSponsorships } from './active-sponsorships';

export interface OperationContext {
  delta: LedgerDelta;
  /** G address of the operation's source (its own source, or the transaction's). */
  source: string;
  /** The sponsorships begun and not yet ended in this transaction. */
  sponsorships: ActiveSponsorships;
}

/** What applying an operation produced: Horizon's code, and the few results that carry a value. */
export interface AppliedOperation {
  code: string;
  /** account_merge: the XLM the merged account held, which its result XDR reports. */
  sourceAccountBalance?: bigint;
  /** A path payment's success: what reached whom (core's SimplePaymentResult `last`). */
  last?: PaymentDelivered;
}

/** core's SimplePaymentResult: the destination (a G account), the asset it received and how much. */
export interface PaymentDelivered {
  destination: string;
  asset: Asset;
  amount: bigint;
}

/** Horizon's code for an operation that did what it was asked. */
export const OP_SUCCESS = 'op_success';
