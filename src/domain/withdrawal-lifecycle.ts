import type { EventType } from './events';

/**
 * A withdrawal's life (tokens out of the wallet, Naira to the user's bank account), in one place.
 * Every stored state and every move is named here; the repository makes each move one conditional
 * statement (`where status in (from)`), so of any number of racing callers (the request, the
 * sweep, the webhook inbox, an admin, other processes) exactly one makes a given move.
 *
 *   requested --debitStarted--> debiting --debitConfirmed--> debited
 *       |                           '--debitRefused--> debit_failed (nothing taken, nothing paid)
 *       '--cancelled--> cancelled (an admin, before the tokens left: nothing to give back)
 *
 *   debited / sending --transferStarted--> sending (a POST /transfer is about to go)
 *   sending --floatShort--> waiting_float (the provider's balance is not enough: nothing created;
 *                           its retries, floatRetried, stay in waiting_float until the provider answers otherwise)
 *   sending ... --transferPending--> processing   (pending, received: the sweep and webhooks ask again)
 *           ... --transferNeedsOtp--> awaiting_otp (an admin finalizes it with the OTP)
 *           ... --transferSucceeded--> paid
 *           ... --transferFailed--> refund_due (failed, abandoned, blocked, rejected; or refused outright)
 *   paid (and any state a transfer may exist in) --transferReversed--> refund_due
 *   debited / waiting_float --cancelledAfterDebit--> refund_due (an admin, only while no transfer can exist)
 *   refund_due --refundStarted--> refunding --refundConfirmed--> refunded
 *                                      '--refundRefused--> refund_due (rides again later)
 *
 * The order is the rule: the tokens leave the wallet on the ledger first (`debiting`, a journal
 * entry), and the provider is asked to pay only from `debited` on. The transfer's reference is
 * fixed when the withdrawal is created, so every call, retry and verify is about one transfer; an
 * unclear answer keeps the withdrawal in `sending` until `GET /transfer/verify` says what happened.
 * Tokens come back only on the provider's final word that no Naira went out (or went back), by one
 * journal entry the withdrawal claims (`refund_due` -> `refunding`).
 */
export const WITHDRAWAL_STATES = [
  'requested',
  'debiting',
  'debited',
  'debit_failed',
  'cancelled',
  'sending',
  'waiting_float',
  'processing',
  'awaiting_otp',
  'paid',
  'refund_due',
  'refunding',
  'refunded',
] as const;
export type WithdrawalState = (typeof WITHDRAWAL_STATES)[number];

export interface WithdrawalTransition {
  from: readonly WithdrawalState[];
  to: WithdrawalState;
  /** The event the move writes for the user, in its own statement's transaction (CONTRACT.md section 13). */
  event?: WithdrawalEventType;
}

export type WithdrawalEventType = Extract<EventType, `withdrawal.${string}`>;

/** States in which a transfer under the withdrawal's reference may exist at the provider. */
const TRANSFER_MAY_EXIST: readonly WithdrawalState[] = ['sending', 'waiting_float', 'processing', 'awaiting_otp'];

export const WITHDRAWAL_TRANSITIONS = {
  /** The debit's journal entry is committed in the same transaction. */
  debitStarted: { from: ['requested'], to: 'debiting' },
  /** The ledger applied the debit: the tokens are out of the wallet, the payout may start. */
  debitConfirmed: { from: ['debiting'], to: 'debited', event: 'withdrawal.debited' },
  /** The ledger refused the debit (the wallet no longer held the tokens): nothing moved. */
  debitRefused: { from: ['debiting'], to: 'debit_failed', event: 'withdrawal.failed' },
  /** An admin's cancel before the debit was written. */
  cancelled: { from: ['requested'], to: 'cancelled', event: 'withdrawal.failed' },
  /** A transfer call is about to be made (counted before it goes, so a crash mid-call is known). */
  transferStarted: { from: ['debited', 'sending'], to: 'sending' },
  /** The provider's balance cannot pay it: nothing was created, the same reference is tried later. */
  floatShort: { from: ['sending', 'waiting_float'], to: 'waiting_float' },
  /** A call tried again while waiting for the float: counted like transferStarted, but the withdrawal still waits where operators look for it. */
  floatRetried: { from: ['waiting_float'], to: 'waiting_float' },
  /** Not final yet (pending, received). Not from `processing` itself: asking again is no move, and keeps the sweep's backoff. */
  transferPending: { from: ['sending', 'waiting_float', 'awaiting_otp'], to: 'processing' },
  transferNeedsOtp: { from: ['sending', 'waiting_float', 'processing'], to: 'awaiting_otp' },
  transferSucceeded: { from: TRANSFER_MAY_EXIST, to: 'paid', event: 'withdrawal.paid' },
  /** The provider's final word that the transfer did not pay (or refused it outright, creating nothing). */
  transferFailed: { from: TRANSFER_MAY_EXIST, to: 'refund_due', event: 'withdrawal.failed' },
  /** The money came back to the provider's balance, even days after success. */
  transferReversed: { from: ['paid', ...TRANSFER_MAY_EXIST], to: 'refund_due', event: 'withdrawal.failed' },
  /** An admin's cancel after the debit, only while no call may have created a transfer. */
  cancelledAfterDebit: { from: ['debited', 'waiting_float'], to: 'refund_due', event: 'withdrawal.failed' },
  /** The refund's journal entry is committed in the same transaction. */
  refundStarted: { from: ['refund_due'], to: 'refunding' },
  refundConfirmed: { from: ['refunding'], to: 'refunded', event: 'withdrawal.refunded' },
  /** The ledger refused the refund: it is written again later. */
  refundRefused: { from: ['refunding'], to: 'refund_due' },
} as const satisfies Record<string, WithdrawalTransition>;

export type WithdrawalMove = keyof typeof WITHDRAWAL_TRANSITIONS;

/** States the sweep works on until they move on: each needs something of the service or the provider. */
export const SWEPT_STATES: readonly WithdrawalState[] = ['requested', 'debited', 'sending', 'waiting_float', 'processing', 'awaiting_otp', 'refund_due'];

/** States that wait on someone outside the service (operators watch the oldest of each). */
export const WAITING_STATES: readonly WithdrawalState[] = ['sending', 'waiting_float', 'processing', 'awaiting_otp', 'refund_due'];

/** States whose withdrawal pays out no Naira, ever: they do not count against the daily limit. */
export const NOTHING_PAID_STATES: readonly WithdrawalState[] = ['debit_failed', 'cancelled', 'refund_due', 'refunding', 'refunded'];

/** What the provider's transfer status means for the withdrawal: the move it makes. */
export function transferMove(status: string): WithdrawalMove {
  switch (status) {
    case 'success':
      return 'transferSucceeded';
    case 'otp':
      return 'transferNeedsOtp';
    case 'failed':
    case 'abandoned':
    case 'blocked':
    case 'rejected':
      return 'transferFailed';
    case 'reversed':
      return 'transferReversed';
    default:
      // pending, received, and any status this list does not know: not final, ask again later.
      // Giving tokens back for a transfer the provider may still pay is the one thing never done.
      return 'transferPending';
  }
}

/** How long a refund the ledger refused for good waits before the sweep writes it again (an operator should look meanwhile). */
export const REFUND_RETRY_MS = 10 * 60 * 1000;

/** How a withdrawal's provider transfer reference starts (then the withdrawal's own UUID): 40 characters of Paystack's a-z, 0-9, `-`. */
export const WITHDRAWAL_REFERENCE_PREFIX = 'wdl-';
