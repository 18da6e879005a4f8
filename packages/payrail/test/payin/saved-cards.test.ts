// Saved-card tokens (docs/acceptblue-compatibility.md): `save_card` on an
// approved charge or verify answers `card_ref`, `tkn-<card_ref>` is a source,
// POST/PATCH /api/v2/saved-cards, and a card sent as such (`card`) on a
// charge or verify. Written from what the accept.blue integrations send and
// read (reference B.2 WooCommerce, B.3 futureecom, B.4 radicalloop), with
// their callers in the accept.blue dialect. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BILLING, basicOf, nonceFor, postCharge } from '../helpers/payin.ts';
import type { Json } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const CARD_REF = /^[A-Z]{2}[A-Z0-9]{14}$/;
/** Approved in the sandbox (any number passing Luhn), and seen nowhere else in these tests. */
const CARD = '4242424242424242';

/** A merchant whose source answers in the accept.blue dialect (as `payrail source dialect --set acceptblue` makes it). */
async function acceptBlueMerchant(t: TestApp): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant();
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}

async function call(t: TestApp, merchant: CreatedMerchant, method: 'POST' | 'PATCH', path: string, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method,
    url: `/api/v2/${path}`,
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

/** WooCommerce's checkout body (WC_Acceptblue authorize_card_request), without the card part. */
function wooOrder(orderId: number, amount: number): Record<string, unknown> {
  return {
    amount,
    amount_details: { tax: 0 },
    name: 'Ada Lovelace',
    billing_info: { ...BILLING, street2: '', phone: '2175550100', email: 'ada@example.com' },
    shipping_info: { ...BILLING, street2: '' },
    custom_fields: {},
    capture: true,
    save_card: true,
    customer: { email: 'ada@example.com' },
    transaction_details: { order_number: String(orderId) },
  };
}

/** WooCommerce's success test on a validated call: the body's status_code, else the HTTP status. */
function wooAccepts(response: { statusCode: number; json(): Json }): boolean {
  const body = response.json();
  const code = body.status_code ?? response.statusCode;
  return typeof code === 'string' ? code === 'A' : code <= 200;
}

async function tokenCount(t: TestApp, merchant: CreatedMerchant): Promise<number> {
  const row = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM card_tokens WHERE merchant_id = ?', [merchant.merchant_id]));
  return Number(row?.n);
}

for (const kind of STORE_KINDS) {
  describe(`saved-card tokens (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('WooCommerce: a checkout with the card and save_card answers card_ref; the renewal charges tkn-<card_ref> with no expiry', async () => {
      const merchant = await acceptBlueMerchant(t);
      const checkout = await postCharge(t.app, basicOf(merchant), {
        ...wooOrder(101, 30),
        card: '4111111111111111',
        expiry_month: 11,
        expiry_year: 2034,
        cvv2: '123',
      });
      assert.equal(checkout.statusCode, 200, checkout.body);
      assert.ok(wooAccepts(checkout), checkout.body);
      const first = checkout.json();
      assert.equal(typeof first.reference_number, 'number');
      assert.match(first.card_ref, CARD_REF);
      assert.equal(first.last_4, '1111');
      assert.equal(first.card_type, 'Visa');

      // WC Subscriptions' renewal: the order body with the saved token and no expiry.
      const renewal = await postCharge(t.app, basicOf(merchant), { ...wooOrder(102, 30), source: `tkn-${first.card_ref}` });
      assert.ok(wooAccepts(renewal), renewal.body);
      const second = renewal.json();
      assert.notEqual(second.reference_number, first.reference_number);
      assert.equal(second.last_4, '1111');
      // The expiry is the token's; save_card with a token answers the same token.
      assert.deepEqual([second.transaction.card_details.expiry_month, second.transaction.card_details.expiry_year], [11, 2034]);
      assert.equal(second.card_ref, first.card_ref);
      assert.equal(await tokenCount(t, merchant), 1);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('WooCommerce: "add payment method" verifies the card with save_card; it reads card_ref, last_4, card_type and reference_number', async () => {
      const merchant = await acceptBlueMerchant(t);
      const response = await call(t, merchant, 'POST', 'transactions/verify', {
        card: '5555555555554444',
        expiry_month: 3,
        expiry_year: 2033,
        cvv2: '321',
        save_card: true,
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.match(body.card_ref, CARD_REF);
      assert.equal(body.last_4, '4444');
      assert.equal(body.card_type, 'MasterCard');
      assert.equal(typeof body.reference_number, 'number');

      const charge = await postCharge(t.app, basicOf(merchant), { ...wooOrder(103, 12.5), source: `tkn-${body.card_ref}` });
      assert.ok(wooAccepts(charge), charge.body);
      assert.deepEqual([charge.json().transaction.card_details.expiry_month, charge.json().transaction.card_details.expiry_year], [3, 2033]);
    });

    it('futureecom: createCard through /saved-cards (reads cardRef), then authorize with tkn-', async () => {
      const merchant = await acceptBlueMerchant(t);
      const byCard = await call(t, merchant, 'POST', 'saved-cards', { card: '6011111111111117', expiry_month: 9, expiry_year: 2032 });
      assert.equal(byCard.statusCode, 201, byCard.body);
      assert.deepEqual(Object.keys(byCard.json()), ['cardRef']);
      const cardRef: string = byCard.json().cardRef;
      assert.match(cardRef, CARD_REF);

      const nonce = await nonceFor(t.app, merchant, '4111111111111111');
      const byNonce = await call(t, merchant, 'POST', 'saved-cards', { source: nonce, expiry_month: 12, expiry_year: 2035 });
      assert.equal(byNonce.statusCode, 201, byNonce.body);
      assert.match(byNonce.json().cardRef, CARD_REF);
      assert.notEqual(byNonce.json().cardRef, cardRef);

      // authorize: capture false, save_card true by default, expiry 0/0 and the nulls its card object leaves.
      const authorize = await postCharge(t.app, basicOf(merchant), {
        amount: 20,
        source: `tkn-${cardRef}`,
        expiry_month: 0,
        expiry_year: 0,
        cvv2: null,
        avs_address: null,
        avs_zip: null,
        capture: false,
        save_card: true,
        transaction_details: { order_number: 'F-1' },
      });
      const body = authorize.json();
      assert.equal(body.status, 'Approved', authorize.body);
      assert.equal(body.card_ref, cardRef);
      assert.equal(body.card_type, 'Discover');
      assert.equal(body.last_4, '1117');
      assert.deepEqual([body.transaction.card_details.expiry_month, body.transaction.card_details.expiry_year], [9, 2032]);

      // verify with save_card and a nonce, no address.
      const verified = await call(t, merchant, 'POST', 'transactions/verify', {
        save_card: true,
        source: await nonceFor(t.app, merchant, '5555555555554444'),
        expiry_month: 12,
        expiry_year: 2035,
        cvv2: null,
      });
      assert.equal(verified.json().status, 'Approved', verified.body);
      assert.match(verified.json().card_ref, CARD_REF);
    });

    it('PATCH /saved-cards/:cardRef changes the expiry a later tkn- charge uses; an unknown token is 404', async () => {
      const merchant = await acceptBlueMerchant(t);
      const cardRef: string = (await call(t, merchant, 'POST', 'saved-cards', { card: CARD, expiry_month: 1, expiry_year: 2031 })).json().cardRef;
      const patched = await call(t, merchant, 'PATCH', `saved-cards/${cardRef}`, { expiry_month: 6, expiry_year: 2036 });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(patched.json(), { expiry_month: 6, expiry_year: 2036, cardRef });
      const yearOnly = await call(t, merchant, 'PATCH', `saved-cards/${cardRef}`, { expiry_year: 2037 });
      assert.deepEqual(yearOnly.json(), { expiry_month: 6, expiry_year: 2037, cardRef });

      const charge = await postCharge(t.app, basicOf(merchant), { amount: 5, source: `tkn-${cardRef}` });
      assert.equal(charge.json().status_code, 'A', charge.body);
      assert.deepEqual([charge.json().transaction.card_details.expiry_month, charge.json().transaction.card_details.expiry_year], [6, 2037]);

      // A tkn- charge sent with an expiry gives the token that expiry (reference A.4).
      await postCharge(t.app, basicOf(merchant), { amount: 5, source: `tkn-${cardRef}`, expiry_month: 2, expiry_year: 2038 });
      const read = await call(t, merchant, 'PATCH', `saved-cards/${cardRef}`, {});
      assert.deepEqual(read.json(), { expiry_month: 2, expiry_year: 2038, cardRef });

      const unknown = await call(t, merchant, 'PATCH', 'saved-cards/ZZ00000000000000', { expiry_month: 6, expiry_year: 2036 });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().status_code, 'E');
      assert.equal(unknown.json().error_code, 'not_found');
    });

    it('a declined charge or verify with save_card issues no card_ref', async () => {
      const merchant = await acceptBlueMerchant(t);
      const declined = await postCharge(t.app, basicOf(merchant), {
        ...wooOrder(104, 10),
        card: '4000000000000002',
        expiry_month: 11,
        expiry_year: 2034,
        cvv2: '123',
      });
      assert.equal(declined.statusCode, 200, declined.body);
      assert.notEqual(declined.json().status_code, 'A');
      assert.notEqual(declined.json().status, 'Approved');
      assert.equal(declined.json().card_ref ?? null, null);
      const verify = await call(t, merchant, 'POST', 'transactions/verify', { card: '4000000000000002', expiry_month: 3, expiry_year: 2033, save_card: true });
      assert.equal(verify.json().card_ref ?? null, null);
      assert.equal(await tokenCount(t, merchant), 0);
    });

    it('without save_card nothing is issued, and the spec dialect answers as before', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      const charge = await postCharge(t.app, basicOf(merchant), {
        amount: 10,
        source: nonce,
        expiry_month: 12,
        expiry_year: 2035,
        billing_info: BILLING,
      });
      assert.equal(charge.json().status, 'Approved');
      assert.equal('card_ref' in charge.json(), false);
      assert.equal(await tokenCount(t, merchant), 0);
    });

    it('radicalloop: purchase with the card, and authorize by a verify whose reference_number is charged as ref-', async () => {
      const merchant = await acceptBlueMerchant(t);
      const purchase = await postCharge(t.app, basicOf(merchant), {
        amount: 14.99,
        card: '4111111111111111',
        expiry_month: 10,
        expiry_year: 2031,
        cvv2: '123',
        billing_info: { ...BILLING, street2: '' },
        customer: { email: 'ada@example.com' },
        transaction_details: { invoice_number: 'INV-7' },
      });
      assert.equal(purchase.json().status_code, 'A', purchase.body);
      assert.equal(purchase.json().transaction.transaction_details.invoice_number, 'INV-7');

      const verify = await call(t, merchant, 'POST', 'transactions/verify', { card: '4111111111111111', expiry_month: 10, expiry_year: 2031, cvv2: '123' });
      assert.equal(verify.json().status_code, 'A', verify.body);
      assert.equal(typeof verify.json().reference_number, 'number');
    });

    it('the card number is in no log line, no kept request and no Idempotency-Key record', async () => {
      const merchant = await acceptBlueMerchant(t);
      const headers = { 'idempotency-key': 'woo-order-105' };
      const body = { ...wooOrder(105, 8), card: CARD, expiry_month: 11, expiry_year: 2034, cvv2: '987' };
      const first = await postCharge(t.app, basicOf(merchant), body, headers);
      assert.equal(first.json().status_code, 'A', first.body);
      const again = await postCharge(t.app, basicOf(merchant), body, headers);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      const other = await postCharge(t.app, basicOf(merchant), { ...body, card: '4111111111111111' }, headers);
      assert.equal(other.statusCode, 400);
      assert.equal(other.json().error_code, 'idempotency_key_reused');

      await call(t, merchant, 'POST', 'transactions/verify', { card: CARD, expiry_month: 3, expiry_year: 2033, cvv2: '987', save_card: true });
      await call(t, merchant, 'POST', 'saved-cards', { card: CARD, expiry_month: 3, expiry_year: 2033 }, { 'idempotency-key': 'card-1' });

      const kept = await t.service.db.read(async (tx) => [
        ...(await tx.all<{ text: string }>('SELECT request_json AS text FROM charges')),
        ...(await tx.all<{ text: string }>('SELECT request_json AS text FROM verifications')),
        ...(await tx.all<{ text: string }>("SELECT request_hash || ' ' || COALESCE(response_json, '') AS text FROM idempotency_keys")),
      ]);
      assert.ok(kept.length >= 4);
      for (const row of kept) assert.equal(row.text.includes(CARD), false, row.text);
      for (const line of t.logLines) assert.equal(line.includes(CARD), false, line);
    });

    it("another merchant's token is refused as an unknown payment method is, wherever it is used", async () => {
      const owner = await acceptBlueMerchant(t);
      const other = await acceptBlueMerchant(t);
      const cardRef: string = (await call(t, owner, 'POST', 'saved-cards', { card: CARD, expiry_month: 1, expiry_year: 2031 })).json().cardRef;

      const charge = await postCharge(t.app, basicOf(other), { amount: 5, source: `tkn-${cardRef}` });
      assert.equal(charge.statusCode, 404, charge.body);
      assert.equal(charge.json().error_code, 'not_found');
      const unknownPm = await postCharge(t.app, basicOf(other), { amount: 5, source: 'pm-999999' });
      assert.deepEqual([unknownPm.statusCode, unknownPm.json().error_code], [charge.statusCode, charge.json().error_code]);

      const patch = await call(t, other, 'PATCH', `saved-cards/${cardRef}`, { expiry_month: 2, expiry_year: 2032 });
      assert.equal(patch.statusCode, 404);

      const customer = (await call(t, other, 'POST', 'customers', { identifier: 'c-1' })).json();
      const method = await call(t, other, 'POST', `customers/${customer.id}/payment-methods`, { source: `tkn-${cardRef}`, expiry_month: 1, expiry_year: 2031 });
      assert.equal(method.statusCode, 404, method.body);

      // The owner's token still holds its expiry.
      const read = await call(t, owner, 'PATCH', `saved-cards/${cardRef}`, {});
      assert.deepEqual(read.json(), { expiry_month: 1, expiry_year: 2031, cardRef });
    });

    it('a payment method is saved from tkn- and charged as pm-', async () => {
      const merchant = await acceptBlueMerchant(t);
      const cardRef: string = (await call(t, merchant, 'POST', 'saved-cards', { card: '378282246310005', expiry_month: 4, expiry_year: 2034 })).json().cardRef;
      const customer = (await call(t, merchant, 'POST', 'customers', { identifier: 'c-2' })).json();
      const saved = await call(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, {
        source: `tkn-${cardRef}`,
        expiry_month: 5,
        expiry_year: 2035,
      });
      assert.ok(saved.statusCode === 200 || saved.statusCode === 201, saved.body);
      const method = saved.json();
      assert.deepEqual([method.last4, method.expiry_month, method.expiry_year], ['0005', 5, 2035]);
      const charge = await postCharge(t.app, basicOf(merchant), { amount: 7, source: `pm-${method.id}` });
      assert.equal(charge.json().status_code, 'A', charge.body);
      // The token took the expiry sent with it.
      const read = await call(t, merchant, 'PATCH', `saved-cards/${cardRef}`, {});
      assert.deepEqual(read.json(), { expiry_month: 5, expiry_year: 2035, cardRef });
    });

    it('POST /saved-cards honours Idempotency-Key and refuses what is not one card', async () => {
      const merchant = await acceptBlueMerchant(t);
      const headers = { 'idempotency-key': 'save-1' };
      const first = await call(t, merchant, 'POST', 'saved-cards', { card: CARD, expiry_month: 1, expiry_year: 2031 }, headers);
      const again = await call(t, merchant, 'POST', 'saved-cards', { card: CARD, expiry_month: 1, expiry_year: 2031 }, headers);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      const other = await call(t, merchant, 'POST', 'saved-cards', { card: '4111111111111111', expiry_month: 1, expiry_year: 2031 }, headers);
      assert.equal(other.json().error_code, 'idempotency_key_reused');
      assert.equal(await tokenCount(t, merchant), 1);

      const refusals: Array<[unknown, number, string]> = [
        [{ card: CARD, source: 'pm-1', expiry_month: 1, expiry_year: 2031 }, 400, 'invalid_request'],
        [{ expiry_month: 1, expiry_year: 2031 }, 400, 'invalid_request'],
        [{ card: CARD }, 400, 'invalid_request'],
        [{ card: '4111111111111112', expiry_month: 1, expiry_year: 2031 }, 400, 'invalid_card'],
        [{ source: `tkn-${first.json().cardRef}` }, 400, 'invalid_request'],
        [{ source: 'pm-424242' }, 404, 'not_found'],
      ];
      for (const [body, status, code] of refusals) {
        const response = await call(t, merchant, 'POST', 'saved-cards', body);
        assert.deepEqual([response.statusCode, response.json().error_code], [status, code], JSON.stringify(body));
      }
      const both = await postCharge(t.app, basicOf(merchant), {
        amount: 5,
        source: `tkn-${first.json().cardRef}`,
        card: CARD,
        expiry_month: 1,
        expiry_year: 2031,
      });
      assert.deepEqual([both.statusCode, both.json().error_code], [400, 'invalid_request']);
      const spec = await t.newMerchant();
      const specRefusal = await postCharge(t.app, basicOf(spec), { amount: 5, card: CARD });
      assert.deepEqual([specRefusal.statusCode, specRefusal.json().error.code], [400, 'invalid_request']);
    });
  });
}
