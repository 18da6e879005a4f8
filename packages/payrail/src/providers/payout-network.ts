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
import type { Corridor } from '../domain/corridors.ts';
import type { CallbackReceiver } from './callbacks.ts';
import type { LookupDeadline } from './deadline.ts';

export interface PayoutSubmission {
  /**
   * Stable for every attempt of one transfer. Connectors must pass it to the
   * network so a retried submission (after a timeout or a crash) is never
   * paid twice: a resubmission of an accepted payout reports it accepted.
   */
  readonly idempotencyKey: string;
  /**
   * The same key in UUID form (RFC 9562, derived from the installation and
   * the transfer), for networks whose references must be UUIDs (MTN MoMo's
   * X-Reference-Id, pawaPay's payoutId). Stable across attempts, like
   * idempotencyKey.
   */
  readonly idempotencyUuid: string;
  /** The merchant's id of the transfer (digits), for the network's statement text. */
  readonly transferId: string;
  /** The corridor the transfer goes over: country, currency, and this connector's payout_settings. */
  readonly corridor: Corridor;
  /** 1 for the first attempt, counting up across retries. */
  readonly attempt: number;
  readonly receiverPhone: string;
  readonly senderPhone: string;
  readonly amountCents: number;
  readonly currency: string;
  /**
   * Amount the receiver gets, in the receiver currency's minor units
   * (corridor.currencyMinorUnits). Already rounded, when the quote was made,
   * to the decimals the network accepts (amountDecimals): a connector sends
   * it as it is, never rounds it again.
   */
  readonly receivedMinor: number;
  readonly attributes: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  /** Aborts when Payrail stops waiting; the outcome then counts as unknown. */
  readonly signal: AbortSignal;
}

export interface PayoutPollRequest {
  readonly providerRef: string;
  /** The submission's keys (PayoutSubmission), for networks that look a payout up by them. */
  readonly idempotencyKey: string;
  readonly idempotencyUuid: string;
  /** The corridor the payout went over (a network may need its settings to ask). */
  readonly corridor: Corridor;
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
  | { readonly kind: 'failed'; readonly errorText: string; readonly errorCode: string }
  /**
   * The network took back a payout it had completed (the receiver's wallet
   * was credited, then the credit was reversed). Only meaningful for a
   * transfer already at 60: it is recorded for the operator to confirm
   * (behaviour.md section 18); for one still at 40 it reads as `failed`.
   */
  | { readonly kind: 'reversed'; readonly errorText: string; readonly errorCode: string };

export interface PayoutNetwork extends LookupDeadline {
  /** The connector's name (`mtn-momo`, `veriff`): its callbacks arrive at `/providers/<name>/callbacks`. Absent: it takes none. */
  readonly name?: string;
  /**
   * Whether the number holds a wallet on the network; `signal` fires when
   * Payrail stops waiting. A thrown error (or no answer within the look-up
   * deadline) answers the request service_unavailable.
   */
  lookupReceiver(phoneE164: string, signal?: AbortSignal, corridor?: Corridor): Promise<{ readonly registered: boolean }>;
  /**
   * How many decimals of the corridor's currency the network accepts in an
   * amount (0: whole units only). Payrail rounds the received amount to it
   * when it quotes, so what the API promised is what the network is asked to
   * pay. Absent: the currency's own minor units.
   */
  amountDecimals?(corridor: Corridor): number;
  /**
   * Problems with a corridor's payout_settings for this connector (a missing
   * target environment, an unknown provider code); checked at start, so a
   * bad corridors file stops the service instead of failing payouts.
   */
  corridorProblems?(corridor: Corridor): string[];
  submit(submission: PayoutSubmission): Promise<SubmitOutcome>;
  poll(request: PayoutPollRequest): Promise<PollOutcome>;
  /**
   * False for a network that cannot reach a number without a wallet (MTN
   * MoMo, pawaPay): Payrail then refuses a transfer to such a number at check
   * and execute instead of holding it for an invitation that never comes.
   * Absent: the network invites new receivers (the sandbox's does).
   */
  readonly sendsInvitations?: boolean;
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
