// What a charge's `source` names (docs/api-decisions.md sections 8 and 15):
// a single-use nonce from tokenization, a saved payment method (`pm-<id>`),
// the card of an earlier approved transaction (`ref-<reference number>`),
// or a saved-card token (`tkn-<card_ref>`, docs/acceptblue-compatibility.md).
import { CARD_REF_PATTERN, TOKEN_SOURCE_PREFIX } from './card-refs.ts';
import { NONCE_PATTERN } from './nonce.ts';
import { parseReferenceNumber } from './references.ts';

export type PaymentSource =
  | { readonly kind: 'nonce'; readonly nonce: string }
  | { readonly kind: 'method'; readonly methodPk: number }
  | { readonly kind: 'reference'; readonly chargePk: number }
  | { readonly kind: 'token'; readonly cardRef: string };

/** Ids of customers, methods and schedules: positive integers well inside 2^53. */
export function parseStoredId(text: string): number | null {
  return parseReferenceNumber(text);
}

/** The source `text` names, or null when it names none. */
export function parsePaymentSource(text: string): PaymentSource | null {
  if (NONCE_PATTERN.test(text)) return { kind: 'nonce', nonce: text };
  if (text.startsWith('pm-')) {
    const methodPk = parseStoredId(text.slice(3));
    return methodPk === null ? null : { kind: 'method', methodPk };
  }
  if (text.startsWith('ref-')) {
    const chargePk = parseStoredId(text.slice(4));
    return chargePk === null ? null : { kind: 'reference', chargePk };
  }
  if (text.startsWith(TOKEN_SOURCE_PREFIX)) {
    const cardRef = text.slice(TOKEN_SOURCE_PREFIX.length);
    return CARD_REF_PATTERN.test(cardRef) ? { kind: 'token', cardRef } : null;
  }
  return null;
}
