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
