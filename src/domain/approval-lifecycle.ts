/**
 * Two people for money creation (CONTRACT 11): an admin's mint or issue above
 * MINT_APPROVAL_THRESHOLD is recorded as an approval and moves nothing until a second admin
 * approves it. Every stored state and move is named here; the repository makes each move one
 * conditional statement (`where status in (from)`, and the move's own condition), so of any
 * number of racing admins and processes exactly one makes a given move.
 *
 *   pending --approve--> approved --written--> approved, naming its journal entry (once)
 *                                    <--released-- (that entry was dropped unsent: written again)
 *      |--reject--> rejected   (never executes)
 *      '--expire--> expired    (24 hours after it was made, by the database's clock; never executes)
 *
 * `approve` and `reject` are made only while the approval is within its 24 hours; past them, the
 * first look expires it. The requester may not approve their own (the service refuses before any
 * move); they may reject it, which withdraws it. `written` is not a change of state: it is the
 * claim the approved request's journal entry takes in the transaction that commits it (the
 * admin_mint and issue kinds), so an approval is written at most once whatever retries and races:
 * a second approver, or the same one retrying, finds the entry and is answered its state. An entry
 * dropped unsent (nothing could carry it, so nothing moved) is deleted, as its Idempotency-Key is:
 * the next approve finds it gone and `released` frees the approval to be written again.
 */
export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/**
 * What an approval asks for, when approved: `mint` (POST /api/payments/mint-tokens: tokens from the
 * distribution account to a user's wallet) or `issue` (POST /api/ledger/create-asset: new tokens
 * from the issuing account to the distribution account). Named once here; code reads APPROVAL_ACTION.
 */
export const APPROVAL_ACTION = { mint: 'mint', issue: 'issue' } as const;
export const APPROVAL_ACTIONS = [APPROVAL_ACTION.mint, APPROVAL_ACTION.issue] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

/** How long an approval waits for a second admin, by the database's clock. */
export const APPROVAL_LIFETIME_HOURS = 24;

export interface ApprovalTransition {
  from: readonly ApprovalState[];
  to: ApprovalState;
}

export const APPROVAL_TRANSITIONS = {
  /** A second admin agrees, within the 24 hours: the request is written next. */
  approve: { from: ['pending'], to: 'approved' },
  /** Any admin refuses it (the requester too: a request withdrawn), within the 24 hours. */
  reject: { from: ['pending'], to: 'rejected' },
  /** Nobody decided within the 24 hours. */
  expire: { from: ['pending'], to: 'expired' },
  /** The approved request's journal entry is committed in the same transaction (only while it names none). */
  written: { from: ['approved'], to: 'approved' },
  /** The entry it names was dropped unsent (deleted): it names none again (only while it names that one). */
  released: { from: ['approved'], to: 'approved' },
} as const satisfies Record<string, ApprovalTransition>;

export type ApprovalMove = keyof typeof APPROVAL_TRANSITIONS;

/** The moves an admin makes by deciding. */
export type ApprovalDecision = Extract<ApprovalMove, 'approve' | 'reject'>;

/**
 * Whether a request of `stroops` needs a second admin: strictly more than the threshold (0: every
 * one does). No threshold (MINT_APPROVAL_THRESHOLD unset): none does, the spec's answers stand.
 */
export function needsApproval(stroops: bigint, thresholdStroops: bigint | undefined): boolean {
  return thresholdStroops !== undefined && stroops > thresholdStroops;
}
