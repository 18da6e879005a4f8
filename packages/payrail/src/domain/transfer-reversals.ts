// Reversals of completed payouts (behaviour.md section 18). A payout network
// may take back a payout it had completed. Spec 3.2 rule 1 holds: the
// transfer stays final at 60; the reversal is a record of its own that an
// operator confirms (the merchant is credited) or rejects (nothing moves).
// Pure: the vocabulary and the limits; the store keeps the records.

export const REVERSAL_STATES = ['reported', 'confirmed', 'rejected'] as const;
export type ReversalState = (typeof REVERSAL_STATES)[number];

export function isReversalState(text: string): text is ReversalState {
  return (REVERSAL_STATES as readonly string[]).includes(text);
}

/** Who reported it: the payout network (a callback, read back by a poll) or an operator who learned it from the network. */
export type ReversalSource = 'network' | 'operator';

/**
 * What a transfer's status shows of its reversal, as the `reversed`
 * attribute: `reported` while it awaits the operator, `confirmed` once the
 * merchant was credited. A rejected reversal shows nothing.
 */
export type ReversalMark = 'reported' | 'confirmed';

/** The status attribute's name. */
export const REVERSED_ATTRIBUTE = 'reversed';

/** Longest reason, error code and decision note kept; the network's text is cut to it, an operator's refused beyond it. */
export const REVERSAL_TEXT_LENGTH_MAX = 500;
export const REVERSAL_CODE_LENGTH_MAX = 100;

/** Reversals listed by default and at most (CLI, panel). */
export const REVERSALS_LISTED_DEFAULT = 100;
export const REVERSALS_LISTED_MAX = 1_000;

/** The status mark a reversal in `state` leaves on its transfer. */
export function reversalMarkOf(state: ReversalState): ReversalMark | null {
  return state === 'rejected' ? null : state;
}
