// Transfer states and substates. The public states are the spec's (0 new,
// 40 processing, 60 success, 80 error, -2 not found); substates carry the
// detail Payrail adds. A final state never changes again.

export const STATE = {
  new: 0,
  processing: 40,
  succeeded: 60,
  failed: 80,
  notFound: -2,
} as const;

export const SUBSTATE = {
  /** State 0: created, ready to be sent to the payout network. */
  ready: 0,
  /** State 0: waiting; `waiting_for` says for what (invitation or reconciliation). */
  waiting: 9,
  /** State 40: accepted by the payout network, being paid out. */
  atNetwork: 1,
  /**
   * State 40: a submission got no answer (timeout, lost connection), so the
   * network may have taken it; the worker resubmits under the same reference
   * until the network answers. Never gives up by itself and never refunds.
   */
  outcomeUnknown: 3,
  /** State 40: the payout network was unavailable; the worker retries with backoff. */
  networkRetry: 4,
  /** State 60. */
  done: 0,
  /** State 80: the payout network refused or failed the payment. */
  networkError: 5,
  /** State 80: the receiver did not accept the payment invitation in time. */
  invitationExpired: 6,
  /** State 80: cancelled by an operator while waiting. */
  cancelled: 7,
  /** State 80: the payout network answered "unavailable" (nothing paid) to every attempt. */
  networkGaveUp: 8,
} as const;

export type WaitingFor = 'invitation' | 'reconciliation';

/** Held at 0/9, for whatever reason (a display state: the panel's "Waiting"). */
export function isWaitingState(state: number, substate: number): boolean {
  return state === STATE.new && substate === SUBSTATE.waiting;
}

/** The waiting condition, in one place: a non-final transfer held at 0/9 for this reason. */
export function isWaitingFor(
  transfer: { readonly final: number; readonly state: number; readonly substate: number; readonly waiting_for: WaitingFor | null },
  reason: WaitingFor,
): boolean {
  return transfer.final === 0 && isWaitingState(transfer.state, transfer.substate) && transfer.waiting_for === reason;
}

/** A payment invitation to a receiver new to the network lives this long (docs/interface-spec.md section 8). */
export const INVITATION_LIFETIME_MS = 6 * 60 * 60 * 1000;
/** A check-transfer quote is honoured by execute of the same id this long. */
export const QUOTE_LIFETIME_MS = 15 * 60 * 1000;
/** Automatic reconciliation looks at approved charges this recent. */
export const RECONCILIATION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Error texts and codes of failures Payrail decides itself (the network's own come from it). */
export const FAILURE = {
  invitationExpired: { text: 'Payment invitation expired: the receiver did not join the network within 6 hours', code: 'INVITATION_EXPIRED' },
  cancelled: { text: 'Cancelled by the operator', code: 'CANCELLED' },
  networkGaveUp: { text: 'The payout network stayed unavailable; the transfer was not sent', code: 'NETWORK_UNAVAILABLE' },
} as const;
