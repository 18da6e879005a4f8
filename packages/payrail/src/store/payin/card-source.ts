// The card a charge is made with, taken inside the charge's reservation
// transaction from what its `source` names (docs/api-decisions.md sections 8
// and 15): a nonce (consumed, single use), a saved payment method (`pm-`),
// the card of an earlier approved transaction of the merchant (`ref-`), or a
// saved-card token of the merchant (`tkn-`; a token sent with an expiry takes
// that expiry, as accept.blue's does).
// Unknown and other merchants' methods and references read alike. Sealed
// card data is opened by the keys the flow hands in (the store holds none).
import { checkExpiry } from '../../domain/cards.ts';
import type { PaymentSource } from '../../domain/payment-source.ts';
import type { Secret } from '../../domain/secret.ts';
import { getSealedCardToken, updateCardTokenExpiry } from '../card-tokens.ts';
import { getReferenceCard } from '../charges.ts';
import { getCustomer } from '../customers.ts';
import type { Tx } from '../db.ts';
import { getSealedPaymentMethod } from '../payment-methods.ts';
import { type NonceRefusal, takeNonceIn } from './nonce-take.ts';

/** A billing address as a charge keeps it (optional fields as ""). */
export interface Billing {
  readonly first_name: string;
  readonly last_name: string;
  readonly street: string;
  readonly street2: string;
  readonly city: string;
  readonly state: string;
  readonly zip: string;
  readonly country: string;
  readonly phone: string;
}

/** Opens sealed card data (the card-data cipher fits it). */
export interface CardKeys {
  open(sealed: Buffer, field: 'card_number', sourceId: string): Secret<string>;
  openForNonce(sealed: Buffer, field: 'card_number' | 'cvv', sourceId: string, nonce: string): Secret<string>;
}

export interface ChargeCard {
  readonly number: Secret<string>;
  /** Only a nonce has one; a saved card never keeps it. */
  readonly cvv: Secret<string> | null;
  readonly cardType: string;
  readonly last4: string;
  readonly bin: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  /** The billing address sent, or (for pm-/ref- sources sent without one) the method's customer's name or the earlier transaction's. */
  readonly billing: Billing;
  readonly customerPk: number | null;
  readonly methodPk: number | null;
  /** True but for a saved method's card: the charge may keep its own sealed copy for later `ref-` charges (for how long: domain/reference-card-retention.ts). */
  readonly keepForReference: boolean;
  /** The saved-card token the card came from (`tkn-`), else null. */
  readonly cardRef: string | null;
  /**
   * The network transaction id a later charge of this kept card names
   * (domain/stored-credential.ts): the method's or token's first, or the
   * referenced transaction's; null for a nonce and when none was recorded.
   */
  readonly networkTransactionId: string | null;
}

export interface CardSourceRequest {
  readonly source: PaymentSource;
  /** A nonce's hash (null for other sources): only hashes are stored. */
  readonly nonceHash: string | null;
  readonly expiryMonth: number | undefined;
  readonly expiryYear: number | undefined;
  readonly billing: Billing | undefined;
}

/** Why no card: the flow words each as the API answers it. */
export type CardRefusal =
  | NonceRefusal
  /** `viaReferencePk`: the method was reached through an earlier charge made with it. */
  | { readonly kind: 'refused'; readonly reason: 'method_not_found'; readonly methodPk: number; readonly viaReferencePk: number | null }
  | { readonly kind: 'refused'; readonly reason: 'reference_not_found' | 'reference_without_card'; readonly chargePk: number }
  | { readonly kind: 'refused'; readonly reason: 'token_not_found'; readonly cardRef: string }
  | { readonly kind: 'refused'; readonly reason: 'card_expired'; readonly problem: string };

const NO_BILLING: Billing = { first_name: '', last_name: '', street: '', street2: '', city: '', state: '', zip: '', country: '', phone: '' };

/** The card of `request.source`, or why not; statements as the source needs them, nothing written but a consumed nonce. */
export async function takeCardSourceIn(
  tx: Tx,
  keys: CardKeys,
  payer: { merchantId: string; sourceId: string },
  request: CardSourceRequest,
  nowMs: number,
): Promise<ChargeCard | CardRefusal> {
  const source = request.source;
  if (source.kind === 'nonce') {
    if (request.expiryMonth === undefined || request.expiryYear === undefined || request.nonceHash === null) {
      throw new Error('a nonce charge reached the store without expiry or its hash');
    }
    const claim = { sourceId: payer.sourceId, nonceHash: request.nonceHash, expiryMonth: request.expiryMonth, expiryYear: request.expiryYear };
    const nonce = await takeNonceIn(tx, claim, nowMs);
    if ('kind' in nonce) return nonce;
    return {
      // The nonce's card data opens only with the nonce itself (src/crypto/card-cipher.ts).
      number: keys.openForNonce(nonce.card_number_enc, 'card_number', payer.sourceId, source.nonce),
      cvv: nonce.cvv_enc === null ? null : keys.openForNonce(nonce.cvv_enc, 'cvv', payer.sourceId, source.nonce),
      cardType: nonce.card_type,
      last4: nonce.last4,
      bin: nonce.bin,
      expiryMonth: request.expiryMonth,
      expiryYear: request.expiryYear,
      // A nonce sent by the caller comes with billing_info (charge-request.ts); a card sent as such may come without.
      billing: request.billing ?? NO_BILLING,
      customerPk: null,
      methodPk: null,
      keepForReference: true,
      cardRef: null,
      networkTransactionId: null,
    };
  }
  if (source.kind === 'token') return tokenCard(tx, keys, payer.merchantId, source.cardRef, request, nowMs);
  if (source.kind === 'method') return methodCard(tx, keys, payer.merchantId, source.methodPk, request, nowMs, null);
  const earlier = await getReferenceCard(tx, source.chargePk, payer.merchantId);
  if (earlier === undefined) return { kind: 'refused', reason: 'reference_not_found', chargePk: source.chargePk };
  if (earlier.payment_method_pk !== null) {
    // Charged with a saved card: the card is the method's, as long as the method lives.
    const card = await methodCard(tx, keys, payer.merchantId, earlier.payment_method_pk, request, nowMs, source.chargePk);
    if ('kind' in card) return card;
    // The referenced transaction's id, else (none recorded) the method's first.
    const networkTransactionId = earlier.network_transaction_id ?? card.networkTransactionId;
    return { ...card, billing: request.billing ?? billingOfRequest(earlier.request_json), networkTransactionId };
  }
  // A copy past its time reads as erased, whether or not the worker has erased it yet.
  const pastItsTime = earlier.ref_card_until_ms !== null && earlier.ref_card_until_ms <= nowMs;
  if (earlier.ref_card_enc === null || earlier.ref_card_enc.length === 0 || pastItsTime)
    return { kind: 'refused', reason: 'reference_without_card', chargePk: source.chargePk };
  const expiry = expiryOf(request, earlier.expiry_month, earlier.expiry_year, nowMs);
  if ('kind' in expiry) return expiry;
  return {
    number: keys.open(earlier.ref_card_enc, 'card_number', earlier.source_id),
    cvv: null,
    cardType: earlier.card_type,
    last4: earlier.last4,
    bin: earlier.bin,
    ...expiry,
    billing: request.billing ?? billingOfRequest(earlier.request_json),
    customerPk: earlier.customer_pk,
    methodPk: null,
    keepForReference: true,
    cardRef: null,
    networkTransactionId: earlier.network_transaction_id,
  };
}

/** The card of the merchant's token; an expiry sent with it becomes the token's. */
async function tokenCard(
  tx: Tx,
  keys: CardKeys,
  merchantId: string,
  cardRef: string,
  request: CardSourceRequest,
  nowMs: number,
): Promise<ChargeCard | CardRefusal> {
  const token = await getSealedCardToken(tx, merchantId, cardRef);
  if (token === undefined) return { kind: 'refused', reason: 'token_not_found', cardRef };
  const expiry = expiryOf(request, token.expiry_month, token.expiry_year, nowMs);
  if ('kind' in expiry) return expiry;
  if (expiry.expiryMonth !== token.expiry_month || expiry.expiryYear !== token.expiry_year) {
    await updateCardTokenExpiry(tx, merchantId, cardRef, { expiry_month: expiry.expiryMonth, expiry_year: expiry.expiryYear }, nowMs);
  }
  return {
    number: keys.open(token.card_number_enc, 'card_number', token.source_id),
    cvv: null,
    cardType: token.card_type,
    last4: token.last4,
    bin: token.bin,
    ...expiry,
    billing: request.billing ?? NO_BILLING,
    customerPk: null,
    methodPk: null,
    keepForReference: true,
    cardRef,
    networkTransactionId: token.network_transaction_id ?? null,
  };
}

async function methodCard(
  tx: Tx,
  keys: CardKeys,
  merchantId: string,
  methodPk: number,
  request: CardSourceRequest,
  nowMs: number,
  viaReferencePk: number | null,
): Promise<ChargeCard | CardRefusal> {
  const method = await getSealedPaymentMethod(tx, merchantId, methodPk);
  if (method === undefined) return { kind: 'refused', reason: 'method_not_found', methodPk, viaReferencePk };
  const expiry = expiryOf(request, method.expiry_month, method.expiry_year, nowMs);
  if ('kind' in expiry) return expiry;
  let billing = request.billing;
  if (billing === undefined) {
    const customer = await getCustomer(tx, merchantId, method.customer_pk);
    billing = { ...NO_BILLING, first_name: customer?.first_name ?? '', last_name: customer?.last_name ?? '', phone: customer?.phone ?? '' };
  }
  return {
    number: keys.open(method.card_number_enc, 'card_number', method.source_id),
    cvv: null,
    cardType: method.card_type,
    last4: method.last4,
    bin: method.bin,
    ...expiry,
    billing,
    customerPk: method.customer_pk,
    methodPk: method.pk,
    keepForReference: false,
    cardRef: null,
    networkTransactionId: method.network_transaction_id,
  };
}

/** The billing address an earlier charge kept with its request. */
function billingOfRequest(requestJson: string): Billing {
  return (JSON.parse(requestJson) as { billing_info: Billing }).billing_info;
}

/** The expiry sent with the charge, else the stored card's; either must not have passed. */
function expiryOf(request: CardSourceRequest, month: number, year: number, nowMs: number): { expiryMonth: number; expiryYear: number } | CardRefusal {
  const expiryMonth = request.expiryMonth ?? month;
  const expiryYear = request.expiryYear ?? year;
  const problem = checkExpiry(expiryMonth, expiryYear, nowMs);
  if (problem !== null) return { kind: 'refused', reason: 'card_expired', problem };
  return { expiryMonth, expiryYear };
}
