// The payout network connector: it knows which phone numbers hold a wallet
// on the network, accepts payouts, and reports how they end. Payrail calls it
// only from the worker (and for receiver look-ups during validation), never
// inside a database transaction.

export interface PayoutSubmission {
  /**
   * Stable for every attempt of one transfer. Connectors must pass it to the
   * network so a retried submission (after a timeout or a crash) is never
   * paid twice: a resubmission of an accepted payout reports it accepted.
   */
  readonly idempotencyKey: string;
  /** 1 for the first attempt, counting up across retries. */
  readonly attempt: number;
  readonly receiverPhone: string;
  readonly senderPhone: string;
  readonly amountCents: number;
  readonly currency: string;
  /** Amount the receiver gets, in the receiver currency's minor units. */
  readonly receivedMinor: number;
  readonly attributes: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

export type SubmitOutcome =
  /** The network took the payout; follow it with poll(providerRef). */
  | { readonly kind: 'accepted'; readonly providerRef: string; /** When a first poll may tell more. */ readonly pollAfterMs: number }
  /** The receiver has no wallet yet; the network sent them a payment invitation. */
  | { readonly kind: 'receiver_unregistered' }
  /** The network refused the payout for good; nothing was paid. */
  | { readonly kind: 'rejected'; readonly errorText: string; readonly errorCode: string }
  /** The network could not take it now (outage, overload); nothing was paid; try again later. */
  | { readonly kind: 'unavailable'; readonly reason: string };

export type PollOutcome =
  | { readonly kind: 'pending'; /** Hint: when the answer may change. */ readonly retryAfterMs: number }
  | { readonly kind: 'succeeded'; readonly transactionRef: string }
  | { readonly kind: 'failed'; readonly errorText: string; readonly errorCode: string };

export interface PayoutNetwork {
  /** Whether the number holds a wallet on the network. */
  lookupReceiver(phoneE164: string): Promise<{ readonly registered: boolean }>;
  submit(submission: PayoutSubmission): Promise<SubmitOutcome>;
  poll(providerRef: string): Promise<PollOutcome>;
}
