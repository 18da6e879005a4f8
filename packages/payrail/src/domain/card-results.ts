// What a card authorization reports besides approved or declined: the
// address (AVS) and security-code (CVV) checks, as one-letter codes with
// their texts, and the reasons a charge is declined or fails. The processor
// returns codes; the charge response shows codes and these texts.

export interface AvsResult {
  readonly text: string;
  /** Street part of the check, as shown in card_details.avs_street. */
  readonly street: string;
  /** ZIP part of the check, as shown in card_details.avs_zip. */
  readonly zip: string;
}

const MATCH = 'Match';
const NO_MATCH = 'No Match';
const NOT_VERIFIED = 'Not Verified';

export const AVS_RESULTS: Readonly<Record<string, AvsResult>> = {
  Y: { text: 'Address: Match & 5 Digit Zip: Match', street: MATCH, zip: MATCH },
  X: { text: 'Address: Match & 9 Digit Zip: Match', street: MATCH, zip: MATCH },
  A: { text: 'Address: Match & 5 Digit Zip: No Match', street: MATCH, zip: NO_MATCH },
  Z: { text: 'Address: No Match & 5 Digit Zip: Match', street: NO_MATCH, zip: MATCH },
  N: { text: 'Address: No Match & 5 Digit Zip: No Match', street: NO_MATCH, zip: NO_MATCH },
  U: { text: 'Address information unavailable', street: NOT_VERIFIED, zip: NOT_VERIFIED },
  R: { text: 'Retry: issuer system unavailable', street: NOT_VERIFIED, zip: NOT_VERIFIED },
  S: { text: 'Address verification not supported by the issuer', street: NOT_VERIFIED, zip: NOT_VERIFIED },
};

export const CVV_RESULTS: Readonly<Record<string, string>> = {
  M: 'Match',
  N: 'No Match',
  P: 'Not Processed',
  S: 'Should be on card but not so indicated',
  U: 'Issuer not certified',
};

/** Text of an AVS code; an unknown code from a real processor is shown as such, never dropped. */
export function avsResultOf(code: string | null): AvsResult {
  if (code === null || code === '') return { text: '', street: '', zip: '' };
  return AVS_RESULTS[code] ?? { text: `Unknown result code ${code}`, street: NOT_VERIFIED, zip: NOT_VERIFIED };
}

export function cvvResultOf(code: string | null): string {
  if (code === null || code === '') return '';
  return CVV_RESULTS[code] ?? `Unknown result code ${code}`;
}

/**
 * Codes of a declined or failed charge (shape B `error`). They are outcomes
 * reported with HTTP 200, not request errors, so they live here rather than
 * in the request-error catalogue (src/errors.ts).
 */
export const CHARGE_DECLINES = {
  card_declined: 'The card was declined by the issuer',
  insufficient_funds: 'The card has insufficient funds',
  invalid_card: 'The card has expired or is not valid at the issuer',
  processor_error: 'The card processor could not complete the charge; no money moved. Try again with a new nonce',
  refund_declined: 'The card processor declined the refund; no money moved',
} as const;
export type ChargeDeclineCode = keyof typeof CHARGE_DECLINES;
