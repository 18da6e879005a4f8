// Authorize.net's result codes in Payrail's terms: AVS and card-code letters
// (domain/card-results.ts shows AVS_RESULTS and CVV_RESULTS, accept.blue's
// letters) and response reason codes to ChargeDeclineCode.
import type { ChargeDeclineCode } from '../../domain/card-results.ts';

/**
 * Authorize.net's AVS letters that Payrail's table lacks, as the nearest
 * letter it has. Y, X, A, Z, N, U, R and S mean the same on both sides and
 * pass through.
 */
const AVS_NEAREST: Readonly<Record<string, string>> = {
  // 9-digit ZIP matches, street does not: Payrail's Z (street no match, zip match).
  W: 'Z',
  // Address not provided, AVS error, non-US issuer without AVS: nothing was checked.
  B: 'U',
  E: 'U',
  G: 'U',
  // AVS not applicable to this transaction.
  P: 'S',
};

/** The AVS letter Payrail shows for Authorize.net's avsResultCode ("" when none was given). */
export function avsCodeOf(code: string | undefined): string {
  if (code === undefined) return '';
  return AVS_NEAREST[code] ?? code;
}

/** Authorize.net's card-code letters (M, N, P, S, U) are Payrail's; "" when none was given. */
export function cvvCodeOf(code: string | undefined): string {
  return code ?? '';
}

/** Reason codes of a card the issuer or gateway will not take as given: a wrong number, a bad or past expiry date. */
const INVALID_CARD_REASONS: ReadonlySet<string> = new Set(['6', '7', '8', '37', '315', '316', '317']);

/**
 * Reason codes that are the issuer's (or the merchant's fraud filters')
 * refusal: general decline, referral, pick up card, AVS or card-code mismatch
 * refused by the merchant's settings, fraud filters, declined after review.
 */
const DECLINE_REASONS: ReadonlySet<string> = new Set(['2', '3', '4', '27', '41', '44', '45', '65', '127', '165', '250', '251', '254']);

/**
 * Reason codes that say nothing about the request's fate: 13, "The merchant
 * login ID or password is invalid or the account is inactive", is the
 * transaction-level form of E00007 (client.ts says why that is unknown).
 */
export const UNKNOWN_OUTCOME_REASONS: ReadonlySet<string> = new Set(['13']);

/** The reason code of a duplicate: a request re-sent within the duplicate window. */
export const DUPLICATE_REASON = '11';
/** "This transaction has already been voided." */
export const ALREADY_VOIDED_REASON = '310';
/** "This processor does not accept zero dollar authorization for this card type." */
export const NO_ZERO_AUTH_REASON = '289';
/** A prepaid card approved for part of the amount. */
export const PARTIAL_APPROVAL_REASON = '295';
export type ReasonClass = 'invalid_card' | 'declined' | 'error';

/** How a reason code of a refused transaction reads: the card, the issuer's refusal, or a processing error. */
export function reasonClassOf(reason: string): ReasonClass {
  if (INVALID_CARD_REASONS.has(reason)) return 'invalid_card';
  if (DECLINE_REASONS.has(reason)) return 'declined';
  return 'error';
}

/**
 * The decline code of a refused authorization. Authorize.net does not tell
 * insufficient funds from other issuer declines (both are reason 2), so
 * Payrail's insufficient_funds is only given for a partial approval refused.
 */
export function chargeDeclineOf(reasonClass: ReasonClass): ChargeDeclineCode {
  if (reasonClass === 'invalid_card') return 'invalid_card';
  if (reasonClass === 'declined') return 'card_declined';
  return 'processor_error';
}
