// Every field of the charge request (docs/interface-spec.md section 2.1, docs/api-decisions.md section 3): required
// fields, types without coercion, the amount's exact form and bounds, the
// expiry date, unknown fields. A refused request is shape C with status 400
// and consumes nothing: the nonce still charges afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BILLING, basicOf, chargeBody, countCharges, EXPIRY_MONTH, nonceFor, postCharge, shapeC } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';

type Case = [title: string, body: (nonce: string) => unknown, code: string, message: string];

const withoutBilling = (field: string) => (nonce: string) => {
  const billing: Record<string, string> = { ...BILLING };
  delete billing[field];
  return chargeBody(nonce, { billing_info: billing });
};
const withBilling = (field: string, value: unknown) => (nonce: string) => chargeBody(nonce, { billing_info: { ...BILLING, [field]: value } });
const without = (field: string) => (nonce: string) => {
  const body = chargeBody(nonce);
  delete body[field];
  return body;
};

const CASES: Case[] = [
  // Amount: a JSON number of dollars, at most 2 decimals, 0.50 to 100000.00.
  ['amount as a string', (n) => chargeBody(n, { amount: '25.50' }), 'invalid_amount', 'amount must be of type number'],
  ['amount as a boolean', (n) => chargeBody(n, { amount: true }), 'invalid_amount', 'amount must be of type number'],
  ['amount as null', (n) => chargeBody(n, { amount: null }), 'invalid_amount', 'amount must be of type number'],
  ['amount missing', without('amount'), 'invalid_request', 'amount is required'],
  ['amount zero', (n) => chargeBody(n, { amount: 0 }), 'invalid_amount', 'amount must be greater than zero'],
  ['amount negative', (n) => chargeBody(n, { amount: -5 }), 'invalid_amount', 'amount must be greater than zero'],
  [
    'amount with 3 decimals',
    (n) => chargeBody(n, { amount: 10.005 }),
    'invalid_amount',
    'amount must be a positive decimal number of dollars with at most 2 decimals',
  ],
  ['amount below 0.50', (n) => chargeBody(n, { amount: 0.49 }), 'invalid_amount', 'amount must be at least 0.50'],
  ['amount above 100000.00', (n) => chargeBody(n, { amount: 100000.01 }), 'invalid_amount', 'amount must be at most 100000.00'],
  // Expiry: integers, month 1 to 12, four-digit year, not in the past.
  ['expiry_month as a string', (n) => chargeBody(n, { expiry_month: '12' }), 'invalid_request', 'expiry_month must be of type integer'],
  ['expiry_month 0', (n) => chargeBody(n, { expiry_month: 0 }), 'invalid_request', 'expiry_month must be >= 1'],
  ['expiry_month 13', (n) => chargeBody(n, { expiry_month: 13 }), 'invalid_request', 'expiry_month must be <= 12'],
  ['expiry_month 1.5', (n) => chargeBody(n, { expiry_month: 1.5 }), 'invalid_request', 'expiry_month must be of type integer'],
  ['expiry_year of two digits', (n) => chargeBody(n, { expiry_year: 35 }), 'invalid_request', 'expiry_year must be >= 1000'],
  ['expiry_year as a string', (n) => chargeBody(n, { expiry_year: '2035' }), 'invalid_request', 'expiry_year must be of type integer'],
  ['expiry in the past', (n) => chargeBody(n, { expiry_year: 2020 }), 'invalid_card', 'the card has expired (expiry_month/expiry_year is in the past)'],
  ['expiry_month missing', without('expiry_month'), 'invalid_request', 'expiry_month is required'],
  ['expiry_year missing', without('expiry_year'), 'invalid_request', 'expiry_year is required'],
  // Source.
  ['source missing', without('source'), 'invalid_request', 'source is required'],
  ['source as a number', (n) => chargeBody(n, { source: 12345 }), 'invalid_request', 'source must be of type string'],
  // billing_info and its required fields.
  ['billing_info missing', without('billing_info'), 'invalid_request', 'billing_info is required'],
  ['billing_info as a string', (n) => chargeBody(n, { billing_info: 'Ada' }), 'invalid_request', 'billing_info must be of type object'],
  ...(['first_name', 'last_name', 'street', 'city', 'state', 'zip', 'country'] as const).map(
    (field): Case => [`billing_info.${field} missing`, withoutBilling(field), 'invalid_request', `billing_info.${field} is required`],
  ),
  ['billing_info.city empty', withBilling('city', ''), 'invalid_request', 'billing_info.city must NOT have fewer than 1 characters'],
  ['billing_info.zip as a number', withBilling('zip', 62701), 'invalid_request', 'billing_info.zip must be of type string'],
  ['billing_info.phone as a number', withBilling('phone', 5550100), 'invalid_request', 'billing_info.phone must be of type string'],
  ['billing_info with an unknown field', withBilling('email', 'a@example.com'), 'invalid_request', 'billing_info: unknown field email'],
  // transaction_details.
  ['transaction_details as an array', (n) => chargeBody(n, { transaction_details: [] }), 'invalid_request', 'transaction_details must be of type object'],
  [
    'transaction_details.clerk as a number',
    (n) => chargeBody(n, { transaction_details: { clerk: 7 } }),
    'invalid_request',
    'transaction_details.clerk must be of type string',
  ],
  [
    'transaction_details with an unknown field',
    (n) => chargeBody(n, { transaction_details: { note: 'x' } }),
    'invalid_request',
    'transaction_details: unknown field note',
  ],
  // The request itself.
  ['an unknown top-level field', (n) => chargeBody(n, { currency: 'USD' }), 'invalid_request', 'unknown field currency'],
  ['a JSON array body', () => [], 'invalid_request', 'body must be of type object'],
];

/** Raw JSON texts: the amount as written must be a plain decimal (docs/api-decisions.md section 3). */
const RAW_AMOUNTS: Array<[text: string, message: string]> = [
  ['1e2', 'amount must be a positive decimal number of dollars with at most 2 decimals'],
  ['2.5E1', 'amount must be a positive decimal number of dollars with at most 2 decimals'],
  ['10.000', 'amount must be a positive decimal number of dollars with at most 2 decimals'],
  ['10.10', ''],
  ['-0', 'amount must be greater than zero'],
  ['0.00', 'amount must be greater than zero'],
];

for (const kind of STORE_KINDS) {
  describe(`charge request validation (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    let nonce: string;
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant();
      nonce = await nonceFor(t.app, merchant);
    });
    after(async () => {
      await t.close();
    });

    for (const [title, body, code, message] of CASES) {
      it(`refuses ${title}: 400 ${code}`, async () => {
        const response = await postCharge(t.app, basicOf(merchant), body(nonce));
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(response.json(), shapeC(code, message));
      });
    }

    for (const [text, message] of RAW_AMOUNTS) {
      it(`reads the amount ${text} as written`, async () => {
        const fresh = await nonceFor(t.app, merchant);
        const json = JSON.stringify(chargeBody(fresh)).replace('"amount":25.5', `"amount":${text}`);
        const response = await postCharge(t.app, basicOf(merchant), json);
        if (message === '') {
          assert.equal(response.statusCode, 200, response.body);
          assert.equal(response.json().auth_amount, 10.1);
        } else {
          assert.equal(response.statusCode, 400, response.body);
          assert.deepEqual(response.json(), shapeC('invalid_amount', message));
        }
      });
    }

    it('refuses a malformed JSON body and a non-JSON content type', async () => {
      const broken = await postCharge(t.app, basicOf(merchant), '{"amount": 5,');
      assert.equal(broken.statusCode, 400);
      assert.deepEqual(broken.json(), shapeC('invalid_request', 'request body is not valid JSON'));
      const form = await t.app.inject({
        method: 'POST',
        url: '/api/v2/transactions/charge',
        headers: { authorization: basicOf(merchant), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'amount=5',
      });
      assert.equal(form.statusCode, 400);
      assert.deepEqual(form.json(), shapeC('invalid_request', 'Content-Type must be application/json'));
      const big = await postCharge(t.app, basicOf(merchant), JSON.stringify(chargeBody(nonce, { pad: 'x'.repeat(t.service.config.bodyLimitBytes) })));
      assert.equal(big.statusCode, 400);
      assert.deepEqual(big.json(), shapeC('invalid_request', 'Request body too large'));
    });

    it('refuses an expiry that differs from the tokenized one without consuming the nonce', async () => {
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { expiry_month: EXPIRY_MONTH - 1 }));
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), shapeC('invalid_card', 'expiry_month/expiry_year do not match the expiry the card was tokenized with'));
    });

    it('consumed nothing while refusing: the first nonce still charges once', async () => {
      const before = await countCharges(t, merchant.merchant_id);
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'Approved');
      assert.equal(await countCharges(t, merchant.merchant_id), before + 1);
    });
  });
}
