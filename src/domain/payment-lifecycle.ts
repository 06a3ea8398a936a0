import type { EventType } from './events';

/**
 * A purchase's life, in one place. Every stored state and every move between them is named here;
 * the repository turns each move into one conditional statement (`where status in (from)`), so two
 * processes racing on one payment can never both make the same move.
 *
 *   initialized --paid--> paid --mintStarted--> minting --mintConfirmed--> minted
 *        |  ^                ^                      |
 *        |  '--(a later success is still consumed)  '--mintNotYet (the wallet is not on the
 *        |                                            ledger yet) --> paid
 *        +--providerFailed--> failed (no reason: the provider said so; a later success still mints)
 *        +--refused---------> failed (with a reason: a mismatch, a reversal before we heard, a
 *                                     test-mode payment on the public network; never minted)
 *   minting --mintRefused--> failed (with a reason: the ledger refused the mint for good)
 *   paid --mintCoveredByDebt--> minted (the buyer's debt took all its tokens: nothing to mint)
 *
 * After the mint, the money can come back to the buyer (a refund, a lost chargeback):
 *
 *   minted --disputeOpened--> disputed --disputeWon--> minted
 *     |                          |
 *     '----reversed------------->+--reversed--> reversed (--reversed--> reversed: a second partial refund)
 *
 * `disputed` holds the payment's tokens in the buyer's wallet (transfers may not spend them) until
 * the provider decides. `reversed` means money went back: each reversal (payment_reversals) takes
 * back the tokens it is worth with a clawback, and what the wallet no longer holds becomes the
 * buyer's debt, settled by their next purchase before anything is minted to them. Money that goes
 * back before the mint waits for it (a partial refund still leaves tokens owed), except when the
 * provider reverses the whole charge before we consumed it (`refused`, never minted).
 *
 * `paid` means the provider said success for the recorded amount in NGN and the reference is
 * consumed (verify, callback and webhook answer "already processed" from here on); its mint is not
 * in the journal yet, usually because the buyer's wallet is still pending. `minting` means the mint
 * is a journal entry (committed in the same transaction as this move); the journal finishes it.
 */
export const PAYMENT_STATES = ['initialized', 'paid', 'minting', 'minted', 'failed', 'disputed', 'reversed'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** A move: allowed only from `from` (and from `failed` only while it carries no reason). */
export interface Transition {
  from: readonly PaymentState[];
  to: PaymentState;
  /** The event the move writes for the buyer, in the move's transaction (CONTRACT.md section 13). */
  event?: PaymentEventType;
}

export type PaymentEventType = Extract<EventType, `payment.${string}`>;

export const TRANSITIONS = {
  /** The provider says success for the recorded amount: the reference is consumed. */
  paid: { from: ['initialized', 'failed'], to: 'paid' },
  /** The provider says the charge failed: recorded, and still consumable by a later success. */
  providerFailed: { from: ['initialized'], to: 'failed', event: 'payment.failed' },
  /** Never minted, with a reason (amount or currency mismatch, reversed before paid, test mode on the public network). */
  refused: { from: ['initialized', 'failed'], to: 'failed', event: 'payment.failed' },
  /** The mint's journal entry is committed in the same transaction. */
  mintStarted: { from: ['paid'], to: 'minting' },
  /** The ledger applied the mint. */
  mintConfirmed: { from: ['minting'], to: 'minted', event: 'payment.minted' },
  /** The ledger refused the mint because the wallet is not there yet: wait for it, mint again. */
  mintNotYet: { from: ['minting'], to: 'paid' },
  /** The ledger refused the mint for good (or the not-yet refusals ran out). */
  mintRefused: { from: ['minting'], to: 'failed', event: 'payment.failed' },
  /** All the purchase's tokens went to settle the buyer's debt (reversals the wallet could not give back): nothing to mint. */
  mintCoveredByDebt: { from: ['paid'], to: 'minted', event: 'payment.minted' },
  /** A chargeback opened on a minted payment: its tokens are held. */
  disputeOpened: { from: ['minted'], to: 'disputed' },
  /** The merchant won the chargeback: the tokens are the buyer's again. */
  disputeWon: { from: ['disputed'], to: 'minted' },
  /** Money went back to the buyer after the mint (a refund, a lost chargeback): its tokens are taken back. */
  reversed: { from: ['minted', 'disputed', 'reversed'], to: 'reversed', event: 'payment.reversed' },
} as const satisfies Record<string, Transition>;

export type TransitionName = keyof typeof TRANSITIONS;

/** States whose mint is on the ledger: a reversal takes tokens back from these. */
export const MINTED_STATES: readonly PaymentState[] = ['minted', 'disputed', 'reversed'];

/** States whose payment the provider sweep still asks about or finishes. */
export const UNFINISHED_STATES: readonly PaymentState[] = ['initialized', 'paid'];

/**
 * How many times a mint may be refused as "not yet" (no account, no trustline) before the payment
 * fails with the ledger's reason: a wallet the service activated and the ledger still does not
 * know is not a race any more.
 */
export const MINT_NOT_YET_LIMIT = 5;

/** Mint refusals that only say the wallet is not on the ledger yet (being activated). */
export const MINT_NOT_YET_CODES: ReadonlySet<string> = new Set(['op_no_destination', 'op_no_trust']);

/** What the provider's answer about a charge means for the payment. */
export type ProviderVerdict =
  | { kind: 'success' }
  | { kind: 'failed' }
  /** The money went back to the buyer before the service minted anything. */
  | { kind: 'reversed' }
  /** Not final: the checkout is open, the bank has not answered, the transfer is queued... */
  | { kind: 'not_yet'; status: string };

/**
 * Paystack's transaction statuses. Everything but success, failed and reversed means "not yet":
 * `abandoned` is a checkout the buyer may still come back to, `ongoing`/`pending`/`processing`/
 * `queued` are charges in flight. A status this list does not know is treated as not yet too:
 * asking again later is safe, closing a payment the provider may still complete is not.
 */
export function providerVerdict(status: string): ProviderVerdict {
  if (status === 'success') return { kind: 'success' };
  if (status === 'failed') return { kind: 'failed' };
  if (status === 'reversed') return { kind: 'reversed' };
  return { kind: 'not_yet', status };
}
