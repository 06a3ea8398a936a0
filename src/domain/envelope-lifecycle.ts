/**
 * A signed envelope's life in the journal, in one place, as domain/payment-lifecycle.ts does for
 * purchases. Every stored state and every move is named here; the journal's repository turns each
 * move into one conditional statement (`where status in (from)`), so two processes settling one
 * envelope can never both make a move, and the loser learns it was settled elsewhere.
 *
 *   (stored before it is sent) pending --sent--> submitted --sent--> submitted (the same bytes again, or a higher bid)
 *                                 |                  |
 *                                 +------------------+--applied-----> confirmed (found on the ledger)
 *                                 |                  +--refused-----> failed    (its first and only send refused: nothing applied)
 *                                 +------------------+--neverApplies-> failed   (never delivered, failed on the ledger, or provably
 *                                                                                never applies: src/ledger/envelope-fate.ts)
 *
 * `rebid` and `seenWaiting` change an open envelope's bid, not its state. Confirmed and failed are
 * final. What a move means for the entries it carries (and the rows they stand for) is decided in
 * the same transaction: src/ledger/envelope-lifecycle.ts.
 */
export const ENVELOPE_STATES = ['pending', 'submitted', 'confirmed', 'failed'] as const;
export type EnvelopeState = (typeof ENVELOPE_STATES)[number];

/** The states in which an envelope may still apply: only these bytes (or a fee bump of them) are ever sent. */
export const OPEN_ENVELOPE_STATES = ['pending', 'submitted'] as const satisfies readonly EnvelopeState[];

export interface EnvelopeMove {
  from: readonly EnvelopeState[];
  to: EnvelopeState;
  /** Allowed only while the envelope was sent exactly once (a refusal of a resubmission proves nothing). */
  firstSendOnly?: boolean;
}

export const ENVELOPE_MOVES = {
  /** Handed to the ledger API (each send counts; the first marks its entries submitted). */
  sent: { from: OPEN_ENVELOPE_STATES, to: 'submitted' },
  /** The ledger applied it: it and its entries are confirmed. */
  applied: { from: OPEN_ENVELOPE_STATES, to: 'confirmed' },
  /** Its first and only submission was refused: nothing applied; each entry is over or rides again. */
  refused: { from: ['submitted'], to: 'failed', firstSendOnly: true },
  /** Never delivered, failed on the ledger, or proven never to apply by ledger evidence: its entries ride again. */
  neverApplies: { from: OPEN_ENVELOPE_STATES, to: 'failed' },
} as const satisfies Record<string, EnvelopeMove>;

export type EnvelopeMoveName = keyof typeof ENVELOPE_MOVES;
