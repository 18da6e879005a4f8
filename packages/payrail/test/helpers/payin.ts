// Helpers for card payin tests: credentials headers, tokenization, charge
// bodies, and the exact reply bodies the charge API must produce.
import assert from 'node:assert/strict';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import type { App } from '../../src/http/app.ts';
import type { TestApp } from './app.ts';

export const EXPIRY_MONTH = 12;
export const EXPIRY_YEAR = 2035;

export const BILLING = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  street: '12 Analytical Way',
  city: 'Springfield',
  state: 'IL',
  zip: '62701',
  country: 'US',
} as const;

export function basic(apiKey: string, pin: string): string {
  return `Basic ${Buffer.from(`${apiKey}:${pin}`).toString('base64')}`;
}

export function basicOf(merchant: CreatedMerchant): string {
  return basic(merchant.source.api_key, merchant.source.pin);
}

export function cvvFor(cardNumber: string): string {
  return cardNumber.startsWith('34') || cardNumber.startsWith('37') ? '1234' : '123';
}

export async function tokenizeRaw(app: App, token: string, payload: unknown) {
  return app.inject({ method: 'POST', url: '/api/v2/tokens', headers: { authorization: `Bearer ${token}` }, payload: payload as object });
}

/** Tokenizes a card and returns the nonce; fails the test unless tokenization succeeds. */
export async function nonceFor(app: App, merchant: CreatedMerchant, cardNumber = '4111111111111111'): Promise<string> {
  const response = await tokenizeRaw(app, merchant.source.tokenization_token, {
    card_number: cardNumber,
    expiry_month: EXPIRY_MONTH,
    expiry_year: EXPIRY_YEAR,
    cvv2: cvvFor(cardNumber),
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { nonce: string }).nonce;
}

export function chargeBody(nonce: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 25.5, source: nonce, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, billing_info: { ...BILLING }, ...overrides };
}

export async function postCharge(app: App, authorization: string, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/v2/transactions/charge',
    headers: { authorization, 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

export async function getTransaction(app: App, authorization: string, id: string | number) {
  return app.inject({ method: 'GET', url: `/api/v2/transactions/${id}`, headers: { authorization } });
}

export function brandOf(cardNumber: string): string {
  if (cardNumber.startsWith('4')) return 'Visa';
  if (cardNumber.startsWith('5')) return 'MasterCard';
  if (cardNumber.startsWith('37') || cardNumber.startsWith('34')) return 'American Express';
  if (cardNumber.startsWith('6011')) return 'Discover';
  throw new Error(`no brand known to the tests for ${cardNumber.slice(0, 6)}`);
}

export const AVS_TEXT: Record<string, { text: string; street: string; zip: string }> = {
  Y: { text: 'Address: Match & 5 Digit Zip: Match', street: 'Match', zip: 'Match' },
  Z: { text: 'Address: No Match & 5 Digit Zip: Match', street: 'No Match', zip: 'Match' },
  '': { text: '', street: '', zip: '' },
};
export const CVV_TEXT: Record<string, string> = { M: 'Match', N: 'No Match', '': '' };

export interface ExpectedA {
  pk: number;
  createdAtMs: number;
  amount: number;
  cardNumber: string;
  status: 'Approved' | 'Pending';
  authCode: string;
  avs: string;
  cvv: string;
  billing?: Record<string, string>;
  details?: Record<string, string | null>;
  /** The settlement batch a captured charge is in (openBatchIdOf); 0 while in none (pending). */
  batchId?: number;
}

/** Shape A exactly as docs/interface-spec.md section 2.2 and docs/api-decisions.md section 8 list it. */
export function shapeA(e: ExpectedA): Record<string, unknown> {
  const approved = e.status === 'Approved';
  const avs = AVS_TEXT[e.avs]!;
  const cvvText = CVV_TEXT[e.cvv]!;
  const cardType = brandOf(e.cardNumber);
  const created = new Date(e.createdAtMs);
  const billing = { street2: '', phone: '', ...BILLING, ...e.billing };
  const details = {
    description: null,
    order_number: null,
    invoice_number: null,
    po_number: null,
    clerk: null,
    terminal: null,
    client_ip: null,
    ...e.details,
  };
  return {
    status: e.status,
    status_code: approved ? 'A' : 'P',
    reference_number: e.pk,
    auth_code: e.authCode,
    auth_amount: approved ? e.amount : 0,
    card_type: cardType,
    last_4: e.cardNumber.slice(-4),
    avs_result: avs.text,
    avs_result_code: e.avs,
    cvv2_result: cvvText,
    cvv2_result_code: e.cvv,
    version: '2.0',
    transaction: {
      id: e.pk,
      created_at: created.toISOString(),
      status_details: { status: approved ? 'captured' : 'pending' },
      amount_details: {
        amount: e.amount,
        subtotal: e.amount,
        tax: 0,
        tax_percent: 0,
        shipping: 0,
        discount: 0,
        tip: 0,
        surcharge: 0,
        original_requested_amount: e.amount,
        original_authorized_amount: approved ? e.amount : 0,
      },
      card_details: {
        card_type: cardType,
        last4: e.cardNumber.slice(-4),
        // Only numbers of 16 digits or more show their first 6 (docs/api-decisions.md section 8).
        bin: e.cardNumber.length >= 16 ? e.cardNumber.slice(0, 6) : '',
        auth_code: e.authCode,
        avs_result: avs.text,
        avs_result_code: e.avs,
        avs_street: avs.street,
        avs_zip: avs.zip,
        cvv_result: cvvText,
        cvv_result_code: e.cvv,
        cavv_result: '',
        cavv_result_code: null,
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
        bin_details: { type: 'credit' },
        name: null,
      },
      billing_info: {
        first_name: billing.first_name,
        last_name: billing.last_name,
        street: billing.street,
        street2: billing.street2,
        city: billing.city,
        state: billing.state,
        zip: billing.zip,
        country: billing.country,
        phone: billing.phone,
      },
      shipping_info: { first_name: null, last_name: null, street: null, street2: null, city: null, state: null, zip: null, country: null, phone: null },
      transaction_details: {
        type: 'charge',
        source: 'api',
        batch_id: e.batchId ?? 0,
        description: details.description,
        order_number: details.order_number,
        invoice_number: details.invoice_number,
        po_number: details.po_number,
        reference_number: null,
        clerk: details.clerk,
        terminal: details.terminal,
        client_ip: details.client_ip,
        schedule_id: null,
      },
      customer: { customer_id: null, identifier: null, email: null, fax: null },
      custom_fields: {},
      settled_date: null,
    },
  };
}

/** Shape B exactly as docs/interface-spec.md section 2.2 and docs/api-decisions.md section 8 list it. */
export function shapeB(e: {
  pk: number;
  createdAtMs: number;
  amount: number;
  cardNumber: string;
  status: 'declined' | 'failed';
  code: string;
  message: string;
}) {
  return {
    id: String(e.pk),
    status: e.status,
    amount: e.amount,
    currency: 'USD',
    error: { code: e.code, message: e.message },
    card: { last_four: e.cardNumber.slice(-4), card_type: brandOf(e.cardNumber) },
    created_at: new Date(e.createdAtMs).toISOString(),
  };
}

export function shapeC(code: string, message: string) {
  return { error: { code, message } };
}

/**
 * A payin refusal written before the caller's dialect is known (a 401, and
 * any refusal before authentication): shape C and accept.blue's members
 * merged, so either kind of client reads it (behaviour.md section 16).
 * `field` is the request field the refusal names, when it names one.
 */
export function refusalOfUnknownDialect(code: string, message: string, field?: string) {
  return {
    ...shapeC(code, message),
    version: '2.0.0',
    status: 'Error',
    status_code: 'E',
    error_message: message,
    error_code: code,
    error_details: field === undefined ? null : { [field]: [message] },
  };
}

/** The merchant's open settlement batch (the one its captured charges are in), or 0 when none is open. */
export async function openBatchIdOf(t: TestApp, merchantId: string): Promise<number> {
  const row = await t.service.db.read((tx) => tx.get<{ id: number }>('SELECT id FROM batches WHERE merchant_id = ? AND closed_at_ms IS NULL', [merchantId]));
  return Number(row?.id ?? 0);
}

export async function countCharges(t: TestApp, merchantId: string): Promise<number> {
  const row = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges WHERE merchant_id = ?', [merchantId]));
  return Number(row?.n ?? 0);
}

/** Charges a test card through the payin API; returns the reference number. */
export async function chargeCard(t: TestApp, merchant: CreatedMerchant, card: string, amount: number): Promise<number> {
  const nonce = await nonceFor(t.app, merchant, card);
  const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount }));
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json() as { reference_number?: number; id?: string };
  return body.reference_number ?? Number(body.id);
}
