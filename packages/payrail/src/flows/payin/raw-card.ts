// A charge or verify that sends the card itself (accept.blue's
// CreditCardCharge and Verify CC: `card`, `expiry_month`, `expiry_year`,
// `cvv2`; docs/acceptblue-compatibility.md). The card is tokenized first, as
// POST /api/v2/tokens would (same card-number, expiry and security-code
// rules), into a nonce of the caller's source, and the request goes on with
// that nonce as its source: the number is sealed before anything is stored,
// and the request kept (request_json) never holds it. What an
// Idempotency-Key remembers of such a request holds keyed fingerprints of the
// card data in their place (a plain hash of a card number can be brute-forced).
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { Secret } from '../../domain/secret.ts';
import { fail } from '../../errors.ts';
import { tokenizeCard, type TokenizeDeps } from './tokenize.ts';

/** The fields a request names its card by. */
export interface CardFields {
  readonly source?: string | undefined;
  readonly card?: string | undefined;
  readonly cvv2?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
}

/** Refuses a request with both or neither of `source` and `card`, or a card without its expiry. */
export function checkCardOrSource(request: CardFields): void {
  if (request.card !== undefined && request.source !== undefined) fail('invalid_request', 'send either source or card, not both');
  // Worded as before cards could be sent as such: most callers send a source.
  if (request.card === undefined && request.source === undefined) fail('invalid_request', 'source is required');
  if (request.card !== undefined && (request.expiry_month === undefined || request.expiry_year === undefined)) {
    fail('invalid_request', 'expiry_month and expiry_year are required with card');
  }
}

/** The request with its card tokenized into a nonce of the payer's source (unchanged when it names a source). */
export async function withCardAsNonce<R extends CardFields>(
  deps: TokenizeDeps,
  payer: { merchantId: string; sourceId: string },
  request: R,
): Promise<Omit<R, 'card' | 'cvv2'> & { source: string }> {
  const { card, cvv2, ...rest } = request;
  if (card === undefined) {
    if (rest.source === undefined) throw new Error('a request without source or card was not checked');
    return { ...rest, source: rest.source };
  }
  if (rest.expiry_month === undefined || rest.expiry_year === undefined) throw new Error('a card without its expiry was not checked');
  const token = await tokenizeCard(deps, payer, {
    cardNumber: new Secret(card),
    expiryMonth: rest.expiry_month,
    expiryYear: rest.expiry_year,
    cvv: cvv2 === undefined ? null : new Secret(cvv2),
  });
  return { ...rest, source: token.nonce };
}

/** The request as an Idempotency-Key remembers it: card data as keyed fingerprints (equal for the same card). */
export function keyedBodyOf<R extends CardFields>(cipher: CardCipher, merchantId: string, request: R): R {
  if (request.card === undefined && request.cvv2 === undefined) return request;
  return {
    ...request,
    ...(request.card === undefined ? {} : { card: cipher.fingerprint(new Secret(request.card), merchantId) }),
    ...(request.cvv2 === undefined ? {} : { cvv2: cipher.fingerprint(new Secret(request.cvv2), merchantId) }),
  };
}
