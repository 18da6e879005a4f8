// The KYC connector: how far a receiver is verified and how much they may
// receive in one transfer. Identity verification itself happens at the
// provider; Payrail only reads the result and hands out the provider's link.
import type { CallbackReceiver } from './callbacks.ts';
import type { LookupDeadline } from './deadline.ts';

export interface KycStatus {
  readonly verified: boolean;
  /** Most a receiver may receive in one transfer, in USD cents; 0 means nothing. */
  readonly moneyLimitCents: number;
  /** Where the receiver completes verification; "" when fully verified. */
  readonly kycUrl: string;
}

/** A thrown error (or no answer within the look-up deadline) means the provider is unreachable: the request is answered service_unavailable. */
export interface KycProvider extends LookupDeadline {
  /** A provider Payrail asks for a receiver's status at each request (the sandbox, connector modules). */
  readonly kind?: 'lookup';
  /** The connector's name (`mtn-momo`, `veriff`): its callbacks arrive at `/providers/<name>/callbacks`. Absent: it takes none. */
  readonly name?: string;
  /** The receiver's verification status, or null when the provider has no such account; `signal` fires when Payrail stops waiting. */
  lookup(phoneE164: string, signal?: AbortSignal): Promise<KycStatus | null>;
  /**
   * Most a receiver new to the network may receive in one transfer once they
   * accept the payment invitation, in USD cents. A transfer to a new receiver
   * is checked against it at execute, because it is sent without another
   * look at the receiver's limit once the invitation is accepted.
   */
  readonly invitedLimitCents: number;
  /**
   * Sandbox providers only: the receiver completes verification, as a real
   * receiver does at the provider's kyc_url. Idempotent.
   */
  completeVerification?(phoneE164: string): Promise<'verified' | 'not_registered'>;
  /**
   * Verifies and reads a decision callback its provider sent to
   * `POST /providers/<name>/callbacks` (providers/callbacks.ts). Absent: the
   * provider is only looked up.
   */
  readonly callbacks?: CallbackReceiver;
}

/** How a verification session ended, as the provider decided it; `pending` while the receiver or a reviewer is still at it. */
export type KycDecision = 'approved' | 'declined' | 'resubmission_requested' | 'expired' | 'abandoned' | 'review' | 'pending';

/** A verification session at the provider: the link the receiver opens. */
export interface KycSession {
  readonly sessionId: string;
  /** Where the receiver verifies (the API's kyc_url). */
  readonly url: string;
  /** When the link stops working, or null when the provider does not say. */
  readonly expiresAtMs: number | null;
}

export interface KycSessionDecision {
  readonly decision: KycDecision;
  /** The provider's reason code (Veriff's 1xx..9xxx), or null. */
  readonly reasonCode: string | null;
  /** When the provider decided, or null when it has not. */
  readonly decidedAtMs: number | null;
}

/**
 * A provider that verifies receivers in sessions (Veriff): Payrail starts a
 * session per receiver, hands its link out as kyc_url, and keeps the
 * decision the provider reports (webhook, with `decision` as the backstop).
 * The money limits per verification level stay Payrail's policy. A thrown
 * error (or no answer within the look-up deadline) means the provider is
 * unreachable.
 */
export interface SessionKycProvider extends LookupDeadline {
  readonly kind: 'sessions';
  /** Its callbacks arrive at `/providers/<name>/callbacks`. */
  readonly name: string;
  /** Starts a session for a receiver; `vendorData` is Payrail's reference of the receiver, echoed back in decisions. */
  start(receiver: { readonly phoneE164: string; readonly vendorData: string }, signal?: AbortSignal): Promise<KycSession>;
  /** The session's decision as the provider holds it now. */
  decision(sessionId: string, signal?: AbortSignal): Promise<KycSessionDecision>;
  /** Verifies and reads the decision webhook (hints of kind `kyc`). */
  readonly callbacks?: CallbackReceiver;
}

/** The KYC slot holds either kind. */
export type KycConnector = KycProvider | SessionKycProvider;
