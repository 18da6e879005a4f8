// The card a charge is made with, taken inside the charge's reservation
// transaction from what its `source` names (docs/api-decisions.md sections 8
// and 15): a nonce (consumed, single use), a saved payment method (`pm-`),
// or the card of an earlier approved transaction of the merchant (`ref-`).
// Unknown and other merchants' methods and references read alike: not_found.
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { checkExpiry } from '../../domain/cards.ts';
import type { PaymentSource } from '../../domain/payment-source.ts';
import type { Secret } from '../../domain/secret.ts';
import { fail } from '../../errors.ts';
import { getReferenceCard } from '../../store/charges.ts';
import { getCustomer } from '../../store/customers.ts';
import type { Txn } from '../../store/db.ts';
import { getSealedPaymentMethod } from '../../store/payment-methods.ts';
import type { StoredChargeRequest } from './charge-answers.ts';
import { takeNonce } from './nonce-use.ts';

type Billing = StoredChargeRequest['billing_info'];

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
  /** True for a nonce: the charge keeps its own sealed copy for later `ref-` charges. */
  readonly keepForReference: boolean;
}

export interface CardSourceRequest {
  readonly source: PaymentSource;
  /** The source text as sent (a nonce's key derives from it). */
  readonly sourceText: string;
  readonly expiryMonth: number | undefined;
  readonly expiryYear: number | undefined;
  readonly billing: Billing | undefined;
}

const NO_BILLING: Billing = { first_name: '', last_name: '', street: '', street2: '', city: '', state: '', zip: '', country: '', phone: '' };

export async function takeCardSource(
  tx: Txn,
  cipher: CardCipher,
  payer: { merchantId: string; sourceId: string },
  request: CardSourceRequest,
  nowMs: number,
): Promise<ChargeCard> {
  const source = request.source;
  if (source.kind === 'nonce') {
    if (request.expiryMonth === undefined || request.expiryYear === undefined || request.billing === undefined) {
      throw new Error('a nonce charge reached the store without expiry or billing_info');
    }
    const nonce = await takeNonce(
      tx,
      { sourceId: payer.sourceId, nonce: source.nonce, expiryMonth: request.expiryMonth, expiryYear: request.expiryYear },
      nowMs,
    );
    return {
      // The nonce's card data opens only with the nonce itself (src/crypto/card-cipher.ts).
      number: cipher.openForNonce(nonce.card_number_enc, 'card_number', payer.sourceId, source.nonce),
      cvv: nonce.cvv_enc === null ? null : cipher.openForNonce(nonce.cvv_enc, 'cvv', payer.sourceId, source.nonce),
      cardType: nonce.card_type,
      last4: nonce.last4,
      bin: nonce.bin,
      expiryMonth: request.expiryMonth,
      expiryYear: request.expiryYear,
      billing: request.billing,
      customerPk: null,
      methodPk: null,
      keepForReference: true,
    };
  }
  if (source.kind === 'method') return methodCard(tx, cipher, payer.merchantId, source.methodPk, request, nowMs);
  const earlier = await getReferenceCard(tx, source.chargePk, payer.merchantId);
  if (earlier === undefined) fail('not_found', `reference ${source.chargePk} is not an approved transaction of this merchant`);
  if (earlier.payment_method_pk !== null) {
    // Charged with a saved card: the card is the method's, as long as the method lives.
    const card = await methodCard(tx, cipher, payer.merchantId, earlier.payment_method_pk, request, nowMs, `reference ${source.chargePk}`);
    return { ...card, billing: request.billing ?? (JSON.parse(earlier.request_json) as StoredChargeRequest).billing_info };
  }
  if (earlier.ref_card_enc === null || earlier.ref_card_enc.length === 0) fail('not_found', `reference ${source.chargePk} has no card kept for reuse`);
  const expiry = expiryOf(request, earlier.expiry_month, earlier.expiry_year, nowMs);
  return {
    number: cipher.open(earlier.ref_card_enc, 'card_number', earlier.source_id),
    cvv: null,
    cardType: earlier.card_type,
    last4: earlier.last4,
    bin: earlier.bin,
    ...expiry,
    billing: request.billing ?? (JSON.parse(earlier.request_json) as StoredChargeRequest).billing_info,
    customerPk: earlier.customer_pk,
    methodPk: null,
    keepForReference: true,
  };
}

async function methodCard(
  tx: Txn,
  cipher: CardCipher,
  merchantId: string,
  methodPk: number,
  request: CardSourceRequest,
  nowMs: number,
  named = `payment method ${methodPk}`,
): Promise<ChargeCard> {
  const method = await getSealedPaymentMethod(tx, merchantId, methodPk);
  if (method === undefined) fail('not_found', `${named} not found`);
  const expiry = expiryOf(request, method.expiry_month, method.expiry_year, nowMs);
  let billing = request.billing;
  if (billing === undefined) {
    const customer = await getCustomer(tx, merchantId, method.customer_pk);
    billing = { ...NO_BILLING, first_name: customer?.first_name ?? '', last_name: customer?.last_name ?? '', phone: customer?.phone ?? '' };
  }
  return {
    number: cipher.open(method.card_number_enc, 'card_number', method.source_id),
    cvv: null,
    cardType: method.card_type,
    last4: method.last4,
    bin: method.bin,
    ...expiry,
    billing,
    customerPk: method.customer_pk,
    methodPk: method.pk,
    keepForReference: false,
  };
}

/** The expiry sent with the charge, else the stored card's; either must not have passed. */
function expiryOf(request: CardSourceRequest, month: number, year: number, nowMs: number): { expiryMonth: number; expiryYear: number } {
  const expiryMonth = request.expiryMonth ?? month;
  const expiryYear = request.expiryYear ?? year;
  const problem = checkExpiry(expiryMonth, expiryYear, nowMs);
  if (problem !== null) fail('invalid_card', problem);
  return { expiryMonth, expiryYear };
}
