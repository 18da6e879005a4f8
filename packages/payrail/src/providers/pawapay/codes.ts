// pawaPay's failure codes (docs.pawapay.io/v2/docs/failure_codes) in
// Payrail's terms. A REJECTED initiation paid nothing; the question is only
// whether trying again later can succeed (`unavailable`) or the payout as
// written will never be taken (`rejected`, final: the merchant is credited).

/**
 * Rejections that say nothing about the transfer itself, only that pawaPay
 * cannot take payouts now: the provider is CLOSED, the merchant's pawaPay
 * wallet lacks funds, or the deployment's token, signing or account setup is
 * refused. An operator fixes these (or the provider recovers); failing the
 * receiver's transfer for them would be wrong, so Payrail tries again later.
 */
const TRY_LATER_CODES: ReadonlySet<string> = new Set([
  'PROVIDER_TEMPORARILY_UNAVAILABLE',
  'PAWAPAY_WALLET_OUT_OF_FUNDS',
  'NO_AUTHENTICATION',
  'AUTHENTICATION_ERROR',
  'AUTHORISATION_ERROR',
  'HTTP_SIGNATURE_ERROR',
  'PAYOUTS_NOT_ALLOWED',
]);

/**
 * Codes that do not say the request was refused: pawaPay's own internal
 * error ("do not assume failure"). An initiation answered with one is an
 * unknown outcome; Payrail resubmits under the same payoutId.
 */
const UNKNOWN_OUTCOME_CODES: ReadonlySet<string> = new Set(['UNKNOWN_ERROR']);

export type RejectionClass = 'try_later' | 'final' | 'unknown';

/** What a REJECTED initiation with this failure code means for Payrail. */
export function rejectionClassOf(failureCode: string): RejectionClass {
  if (UNKNOWN_OUTCOME_CODES.has(failureCode)) return 'unknown';
  if (TRY_LATER_CODES.has(failureCode)) return 'try_later';
  // Everything else refuses the payout as written (an invalid phone number, an
  // amount out of the provider's bounds or with decimals it does not take, an
  // unknown provider or currency, a malformed request): sending it again
  // unchanged is refused again.
  return 'final';
}

/** Lifecycle statuses of a payout that is still in flight (status check). */
export const IN_FLIGHT_STATUSES: ReadonlySet<string> = new Set(['ACCEPTED', 'PROCESSING', 'IN_RECONCILIATION', 'SUBMITTED']);
