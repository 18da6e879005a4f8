// The payout network connector: it knows which phone numbers hold a wallet
// on the network, accepts payouts, and reports how they end. Payrail calls it
// only from the worker (and for receiver look-ups during validation), never
// inside a database transaction.
//
// Contract every connector must keep:
// - `submit` is idempotent on `idempotencyKey`: a resubmission of a payout
//   the network already took reports it `accepted` again, never pays twice.
// - An answer is definitive; a thrown error (a timeout, a dropped
//   connection, the AbortSignal firing) means "outcome unknown". Payrail
//   then resubmits under the same key until the network answers, and never
//   gives the merchant's money back on an unknown outcome.
// - `signal` fires when Payrail stops waiting (PAYOUT_CALL_TIMEOUT_MS); a
//   connector should pass it to its HTTP client. Payrail stops waiting then
//   even if the connector does not.
import type { CallbackReceiver } from './callbacks.ts';
import type { LookupDeadline } from './deadline.ts';

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
  /** Aborts when Payrail stops waiting; the outcome then counts as unknown. */
  readonly signal: AbortSignal;
}

export interface PayoutPollRequest {
  readonly providerRef: string;
  /** Aborts when Payrail stops waiting; it asks again later. */
  readonly signal: AbortSignal;
}

export type SubmitOutcome =
  /** The network took the payout; follow it with poll(providerRef). */
  | { readonly kind: 'accepted'; readonly providerRef: string /** When a first poll may tell more. */; readonly pollAfterMs: number }
  /** The receiver has no wallet yet; the network sent them a payment invitation. */
  | { readonly kind: 'receiver_unregistered' }
  /** The network refused the payout for good; nothing was paid. */
  | { readonly kind: 'rejected'; readonly errorText: string; readonly errorCode: string }
  /**
   * The network could not take it now (outage, overload); this attempt paid
   * nothing; try again later. It says nothing about an earlier attempt whose
   * outcome was unknown.
   */
  | { readonly kind: 'unavailable'; readonly reason: string };

export type PollOutcome =
  | { readonly kind: 'pending' /** Hint: when the answer may change. */; readonly retryAfterMs: number }
  | { readonly kind: 'succeeded'; readonly transactionRef: string }
  | { readonly kind: 'failed'; readonly errorText: string; readonly errorCode: string };

export interface PayoutNetwork extends LookupDeadline {
  /** The connector's name (`mtn-momo`, `veriff`): its callbacks arrive at `/providers/<name>/callbacks`. Absent: it takes none. */
  readonly name?: string;
  /**
   * Whether the number holds a wallet on the network; `signal` fires when
   * Payrail stops waiting. A thrown error (or no answer within the look-up
   * deadline) answers the request service_unavailable.
   */
  lookupReceiver(phoneE164: string, signal?: AbortSignal): Promise<{ readonly registered: boolean }>;
  submit(submission: PayoutSubmission): Promise<SubmitOutcome>;
  poll(request: PayoutPollRequest): Promise<PollOutcome>;
  /**
   * Where a receiver new to the network accepts a payment invitation, when
   * the network offers such a page (shown in the transfer's status).
   */
  invitationUrl?(phoneE164: string): string;
  /**
   * Sandbox networks only: the receiver accepts their payment invitation, as
   * a real receiver does on the network's own page. Idempotent.
   */
  acceptInvitation?(phoneE164: string): Promise<'registered' | 'already_registered'>;
  /**
   * Verifies and reads a callback its network sent to
   * `POST /providers/<name>/callbacks` (providers/callbacks.ts), under the
   * connector name the corridors file gives it. Absent: polling only.
   */
  readonly callbacks?: CallbackReceiver;
}

/**
 * How long Payrail waits for one submit or poll before treating the outcome
 * as unknown. Well under the worker's claim lease, so a claimed transfer's
 * call has ended before another worker may claim it.
 */
export const PAYOUT_CALL_TIMEOUT_MS = 30_000;
