// Charges and verifications as accept.blue's shop integrations make them
// (docs/acceptblue-compatibility.md; reference B.1 Pinelab, B.3 futureecom,
// B.4 radicalloop, B.5 Formidable): the bodies they send, replayed as sent,
// and every field they read from the answer, in both wire dialects. On both
// stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { unreachableFor } from '../helpers/flaky-card-processor.ts';
import { availableCents, operateOk } from '../helpers/lifecycle.ts';
import { BILLING, basicOf, chargeBody, EXPIRY_MONTH, EXPIRY_YEAR, nonceFor, postCharge } from '../helpers/payin.ts';
import { type Json, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PARTIAL_CARD = '4000000000000077';
const FLAKY_PROCESSOR = path.join(import.meta.dirname, '..', 'helpers', 'flaky-card-processor.ts');
/** When the worker first asks about a charge whose request recorded no answer. */
const RECOVERY_AFTER_MS = 60_000;

/** A merchant whose source answers in the accept.blue dialect (set before its first request, so no cached credential says otherwise). */
async function acceptBlueMerchant(t: TestApp): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant();
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}

async function verify(t: TestApp, merchant: CreatedMerchant, body: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v2/transactions/verify',
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** Pinelab's checkout charge of a saved payment method (B.1 step 5), with its undocumented `last4`. */
function pinelabCharge(methodId: number): Record<string, unknown> {
  return {
    source: `pm-${methodId}`,
    amount: 54.3,
    custom_fields: { custom1: '["T_1","T_2"]' },
    amount_details: { tax: 4.3, surcharge: 0, shipping: 5, tip: 0, discount: 0 },
    transaction_details: { description: 'Order 42', order_number: 'ORD-42' },
    billing_info: { first_name: 'Ada', last_name: 'Lovelace', street: '12 Analytical Way', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' },
    shipping_info: { first_name: 'Ada', last_name: 'Lovelace', street: '1 Dock Road', city: 'Springfield', zip: '62702', country: 'US' },
    line_items: [
      {
        sku: 'SKU-1',
        name: 'Difference engine',
        description: 'Brass',
        cost: 22.5,
        quantity: 2,
        tax_rate: 8,
        tax_amount: 3.6,
        unit_of_measure: 'EA',
        commodity_code: '12345678',
        discount_rate: 0,
        discount_amount: 0,
      },
    ],
  };
}

/** Formidable's checkout (B.5): auth only, with the members accept.blue does not document. */
function formidableCheckout(nonce: string): Record<string, unknown> {
  return {
    source: nonce,
    amount: 12.34,
    currency: 'USD',
    expiry_month: EXPIRY_MONTH,
    expiry_year: EXPIRY_YEAR,
    capture: false,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    avs_zip: '62701',
    avs_address: '12 Analytical Way',
    description: 'Form 7 entry',
    invoice_number: 'INV-7',
    billing_info: { ...BILLING, street2: '', phone: '+12175550100' },
    customer: { email: 'ada@example.com', identifier: 'frm-ab-lite-0123456789ab', customer_number: 'C-7' },
    customer_id: 5,
    save_card: true,
    custom_fields: { custom1: 'form-7' },
    three_ds: { eci: '05', cavv: 'AAABBBCCCDDDEEEFFFGGGHHHIII=', ds_trans_id: 'x', status: 'Y', version: '2.2.0' },
    line_items: [
      { commodity_code: '00000000', sku: 'F7', unit_of_measure: 'EA', description: 'Entry fee', quantity: 1, unit_cost: 12.34, total_amount: 12.34 },
    ],
  };
}

for (const kind of STORE_KINDS) {
  describe(`accept.blue charges as the integrations send them (${kind})`, () => {
    let t: TestApp;
    let blue: CreatedMerchant;
    let spec: CreatedMerchant;
    before(async () => {
      t = await createTestApp(kind);
      blue = await acceptBlueMerchant(t);
      spec = await t.newMerchant();
    });
    after(async () => {
      await t.close();
    });

    it("Pinelab: a pm- charge keeps custom_fields, amount_details, line_items and addresses; transaction.id and the source's customer", async () => {
      const customer = await newCustomer(t, blue);
      const method = await saveCardFor(t, blue, customer.id);
      const response = await postCharge(t.app, basicOf(blue), { ...pinelabCharge(method.id), last4: '1111' });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      // Pinelab: failure is status Error or Declined; success reads transaction.id.
      assert.equal(body.status, 'Approved');
      assert.equal(body.status_code, 'A');
      assert.equal(body.version, '2.0.0');
      assert.equal(body.error_message, null);
      assert.equal(body.error_code, null);
      assert.equal(body.error_details, null);
      assert.equal(body.transaction.id, body.reference_number);
      assert.equal(typeof body.reference_number, 'number');
      assert.equal(body.auth_amount, 54.3);
      assert.match(body.auth_code, /^[0-9A-F]{6}$/);
      assert.equal(body.card_type, 'Visa');
      assert.equal(body.last_4, '1111');
      assert.equal(body.card_ref, null);
      const txn = body.transaction;
      assert.deepEqual(txn.custom_fields, { custom1: '["T_1","T_2"]' });
      assert.deepEqual(txn.amount_details, {
        amount: 54.3,
        tax: 4.3,
        tax_percent: 0,
        surcharge: 0,
        shipping: 5,
        tip: 0,
        discount: 0,
        subtotal: 45,
        original_requested_amount: 54.3,
        original_authorized_amount: 54.3,
      });
      assert.equal(txn.line_items.length, 1);
      assert.equal(txn.line_items[0].commodity_code, '12345678');
      assert.equal(txn.line_items[0].cost, 22.5);
      assert.equal(txn.status_details.status, 'captured');
      assert.equal(txn.status_details.error_message, null);
      // The pm- source's customer, as an integer.
      assert.equal(txn.customer.customer_id, customer.id);
      assert.deepEqual(txn.shipping_info, {
        first_name: 'Ada',
        last_name: 'Lovelace',
        street: '1 Dock Road',
        street2: null,
        city: 'Springfield',
        state: null,
        zip: '62702',
        country: 'US',
        phone: null,
      });
      assert.equal(txn.billing_info.street2, null);
      assert.equal(txn.billing_info.street, '12 Analytical Way');
      assert.equal(txn.transaction_details.order_number, 'ORD-42');
      assert.equal(typeof txn.transaction_details.batch_id, 'number');
      assert.equal(txn.transaction_details.schedule_id, null);
      assert.equal(txn.card_details.card_type, 'Visa');
      assert.equal(txn.card_details.last4, '1111');
      // What the charge kept is what GET shows, in the caller's dialect too.
      const again = await postCharge(t.app, basicOf(blue), { ...pinelabCharge(method.id), last4: '1111' }, { 'idempotency-key': 'pinelab-1' });
      const replay = await postCharge(t.app, basicOf(blue), { ...pinelabCharge(method.id), last4: '1111' }, { 'idempotency-key': 'pinelab-1' });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, again.body);
      assert.equal((replay.json() as Json).status_code, 'A');
    });

    it('Pinelab in the spec dialect: the same charge (without last4) shows the fields in shape A', async () => {
      const customer = await newCustomer(t, spec);
      const method = await saveCardFor(t, spec, customer.id);
      const response = await postCharge(t.app, basicOf(spec), pinelabCharge(method.id));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      assert.equal(body.status, 'Approved');
      assert.equal(body.version, '2.0');
      assert.equal(body.transaction.id, body.reference_number);
      assert.equal(body.card_type, 'Visa');
      assert.deepEqual(body.transaction.custom_fields, { custom1: '["T_1","T_2"]' });
      assert.equal(body.transaction.amount_details.amount, 54.3);
      assert.equal(body.transaction.amount_details.subtotal, 45);
      assert.equal(body.transaction.amount_details.tax, 4.3);
      assert.equal(body.transaction.amount_details.shipping, 5);
      assert.equal(body.transaction.customer.customer_id, String(customer.id));
      assert.equal(body.transaction.shipping_info.street, '1 Dock Road');
      assert.equal(body.transaction.shipping_info.state, null);
      // The spec dialect still refuses a member accept.blue does not document.
      const refused = await postCharge(t.app, basicOf(spec), { ...pinelabCharge(method.id), last4: '1111' });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json(), { error: { code: 'invalid_request', message: 'unknown field last4' } });
    });

    it('futureecom: an authorization (capture false) with nulls, then a ref- charge with expiry 0, read as absent', async () => {
      const nonce = await nonceFor(t.app, blue);
      const authorize = {
        amount: 10,
        source: nonce,
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
        cvv2: null,
        avs_address: null,
        avs_zip: null,
        capture: false,
        save_card: true,
        transaction_details: { order_number: '1001' },
      };
      const before = await availableCents(t, blue.merchant_id);
      const response = await postCharge(t.app, basicOf(blue), authorize);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      // futureecom: success iff status "Approved"; reads status_code, reference_number, error_message, card_ref.
      assert.equal(body.status, 'Approved');
      assert.equal(body.status_code, 'A');
      assert.equal(body.error_message, null);
      // save_card: the approval issues a saved-card token (its default in the driver is true).
      assert.match(body.card_ref, /^[A-Z]{2}[A-Z0-9]{14}$/);
      assert.equal(body.transaction.status_details.status, 'queued');
      assert.equal(body.transaction.transaction_details.batch_id, null);
      // Nothing is credited before the capture.
      assert.equal(await availableCents(t, blue.merchant_id), before);

      const stored = { amount: 5, source: `ref-${body.reference_number}`, expiry_month: 0, expiry_year: 0, cvv2: null, capture: true };
      const charged = await postCharge(t.app, basicOf(blue), stored);
      assert.equal(charged.statusCode, 200, charged.body);
      const second = charged.json() as Json;
      assert.equal(second.status, 'Approved');
      assert.equal(second.transaction.card_details.expiry_month, EXPIRY_MONTH);
      assert.equal(second.transaction.card_details.expiry_year, EXPIRY_YEAR);
      assert.equal(await availableCents(t, blue.merchant_id), before + 500);
    });

    it('futureecom in the spec dialect: the authorization works; an expiry of 0 is refused as before', async () => {
      const nonce = await nonceFor(t.app, spec);
      const response = await postCharge(t.app, basicOf(spec), chargeBody(nonce, { amount: 10, capture: false, save_card: true }));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      assert.equal(body.status, 'Approved');
      assert.equal(body.transaction.status_details.status, 'approved');
      const zero = await postCharge(t.app, basicOf(spec), { amount: 5, source: `ref-${body.reference_number}`, expiry_month: 0, expiry_year: 0 });
      assert.equal(zero.statusCode, 400);
      assert.deepEqual(zero.json(), { error: { code: 'invalid_request', message: 'expiry_month must be >= 1' } });
    });

    it('Formidable: the checkout body with its undocumented fields is read; status_details.status is queued, auth_amount the amount', async () => {
      const nonce = await nonceFor(t.app, blue);
      const response = await postCharge(t.app, basicOf(blue), formidableCheckout(nonce));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      assert.ok(!['error', 'declined'].includes(String(body.status).toLowerCase()));
      assert.ok(!['E', 'D'].includes(String(body.status_code).toUpperCase()));
      assert.equal(body.reference_number, body.transaction.id);
      assert.equal(body.auth_amount, 12.34);
      assert.equal(body.transaction.status_details.status, 'queued');
      const txn = body.transaction;
      assert.equal(txn.card_details.name, 'Ada Lovelace');
      assert.equal(txn.card_details.avs_street, '12 Analytical Way');
      assert.equal(txn.card_details.avs_zip, '62701');
      assert.deepEqual(txn.customer, { identifier: 'frm-ab-lite-0123456789ab', email: 'ada@example.com', fax: null, customer_id: null });
      assert.deepEqual(txn.custom_fields, { custom1: 'form-7' });
      // unit_cost and total_amount are not accept.blue's: dropped, the rest kept.
      assert.deepEqual(txn.line_items, [{ commodity_code: '00000000', sku: 'F7', unit_of_measure: 'EA', description: 'Entry fee', quantity: 1 }]);
      assert.equal(txn.billing_info.phone, '+12175550100');
      assert.equal(txn.billing_info.street2, null);
      assert.equal(txn.transaction_details.description, null);
    });

    it('an accept.blue caller may charge a nonce without any billing address; the spec dialect still requires it', async () => {
      const nonce = await nonceFor(t.app, blue);
      const response = await postCharge(t.app, basicOf(blue), { amount: 3, source: nonce, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      assert.equal(body.status, 'Approved');
      assert.deepEqual(body.transaction.billing_info, {
        first_name: null,
        last_name: null,
        street: null,
        street2: null,
        city: null,
        state: null,
        zip: null,
        country: null,
        phone: null,
      });
      assert.deepEqual(body.transaction.custom_fields, {});
      const partial = await postCharge(t.app, basicOf(blue), chargeBody(await nonceFor(t.app, blue), { billing_info: { zip: '62701' } }));
      assert.equal(partial.statusCode, 200, partial.body);
      const specNonce = await nonceFor(t.app, spec);
      const refused = await postCharge(t.app, basicOf(spec), chargeBody(specNonce, { billing_info: { zip: '62701' } }));
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json(), { error: { code: 'invalid_request', message: 'billing_info.first_name is required' } });
    });

    it('a nonce with an expiry of 0 (futureecom without one) is refused as missing, in the accept.blue envelope', async () => {
      const nonce = await nonceFor(t.app, blue);
      const response = await postCharge(t.app, basicOf(blue), { amount: 3, source: nonce, expiry_month: 0, expiry_year: 0 });
      assert.equal(response.statusCode, 400);
      const body = response.json() as Json;
      assert.equal(body.status, 'Error');
      assert.equal(body.status_code, 'E');
      assert.equal(body.error_message, 'expiry_month is required');
    });

    for (const [card, status, statusCode, code] of [
      ['4000000000000002', 'Declined', 'D', 'card_declined'],
      ['4000000000000119', 'Error', 'E', 'processor_error'],
    ] as const) {
      it(`answers ${code} with HTTP 200, status ${status}, reference_number and transaction`, async () => {
        const nonce = await nonceFor(t.app, blue, card);
        const response = await postCharge(t.app, basicOf(blue), chargeBody(nonce));
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json() as Json;
        assert.equal(body.status, status);
        assert.equal(body.status_code, statusCode);
        assert.equal(body.error_code, code);
        assert.ok(body.error_message.length > 0);
        assert.equal(body.auth_amount, 0);
        assert.equal(body.auth_code, null);
        assert.equal(body.transaction.id, body.reference_number);
        assert.equal(body.transaction.status_details.status, status === 'Declined' ? 'declined' : 'error');
        assert.equal(body.transaction.status_details.error_code, code);
      });
    }

    it('partial approval: the new card approves half with the flag ("Partially Approved"/P) and credits only that; declines without it', async () => {
      const before = await availableCents(t, blue.merchant_id);
      const nonce = await nonceFor(t.app, blue, PARTIAL_CARD);
      const response = await postCharge(t.app, basicOf(blue), chargeBody(nonce, { amount: 25.51, transaction_flags: { allow_partial_approval: true } }));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      assert.equal(body.status, 'Partially Approved');
      assert.equal(body.status_code, 'P');
      assert.equal(body.auth_amount, 12.75);
      assert.equal(body.error_message, null);
      assert.equal(body.transaction.amount_details.amount, 12.75);
      assert.equal(body.transaction.amount_details.original_requested_amount, 25.51);
      assert.equal(body.transaction.amount_details.original_authorized_amount, 12.75);
      assert.equal(await availableCents(t, blue.merchant_id), before + 1275);

      const without = await postCharge(t.app, basicOf(blue), chargeBody(await nonceFor(t.app, blue, PARTIAL_CARD)));
      const declined = without.json() as Json;
      assert.equal(declined.status, 'Declined');
      assert.equal(declined.error_code, 'insufficient_funds');
      assert.equal(await availableCents(t, blue.merchant_id), before + 1275);
    });

    it('partial approval of an authorization: the capture takes at most what was authorized', async () => {
      const before = await availableCents(t, blue.merchant_id);
      const nonce = await nonceFor(t.app, blue, PARTIAL_CARD);
      const body = (
        await postCharge(t.app, basicOf(blue), chargeBody(nonce, { amount: 40, capture: false, transaction_flags: { allow_partial_approval: true } }))
      ).json() as Json;
      assert.equal(body.status_code, 'P');
      assert.equal(body.transaction.status_details.status, 'queued');
      await operateOk(t, blue, 'capture', { reference_number: body.reference_number });
      assert.equal(await availableCents(t, blue.merchant_id), before + 2000);
    });

    it('partial approval in the spec dialect: shape A "Approved" with the authorized auth_amount and the amount asked for', async () => {
      const before = await availableCents(t, spec.merchant_id);
      const nonce = await nonceFor(t.app, spec, PARTIAL_CARD);
      const response = await postCharge(t.app, basicOf(spec), chargeBody(nonce, { amount: 10, transaction_flags: { allow_partial_approval: true } }));
      const body = response.json() as Json;
      assert.equal(body.status, 'Approved');
      assert.equal(body.status_code, 'A');
      assert.equal(body.auth_amount, 5);
      assert.equal(body.transaction.amount_details.original_requested_amount, 10);
      assert.equal(body.transaction.amount_details.original_authorized_amount, 5);
      assert.equal(await availableCents(t, spec.merchant_id), before + 500);
    });

    it("customer.customer_id links the charge to the merchant's customer; another merchant's is ignored", async () => {
      const mine = await newCustomer(t, blue);
      const theirs = await newCustomer(t, spec);
      const linked = await postCharge(
        t.app,
        basicOf(blue),
        chargeBody(await nonceFor(t.app, blue), { customer: { customer_id: mine.id, email: 'a@b.example' } }),
      );
      assert.equal((linked.json() as Json).transaction.customer.customer_id, mine.id);
      const ignored = await postCharge(t.app, basicOf(blue), chargeBody(await nonceFor(t.app, blue), { customer: { customer_id: theirs.id } }));
      assert.equal(ignored.statusCode, 200, ignored.body);
      assert.equal((ignored.json() as Json).transaction.customer.customer_id, null);
      const list = await t.app.inject({ method: 'GET', url: `/api/v2/customers/${mine.id}/transactions`, headers: { authorization: basicOf(blue) } });
      assert.equal(list.statusCode, 200, list.body);
      assert.equal((list.json() as Json[]).length, 1);
    });

    for (const [title, extra] of [
      ['a Google Pay charge', { source: 'googlepay', token: '{"signature":"x"}' }],
      ['an Apple Pay charge', { source: 'applepay', token: { paymentData: {} } }],
      ['a magstripe charge', { magstripe: '%B4111111111111111^LOVELACE/ADA^3512101?' }],
      ['a DAF card charge', { source: 'pledger' }],
      ['a terminal charge', { terminal_id: 'T-1' }],
    ] as const) {
      it(`refuses ${title} as not offered, in either dialect`, async () => {
        const body = { amount: 5, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, ...extra };
        const blueAnswer = await postCharge(t.app, basicOf(blue), body);
        assert.equal(blueAnswer.statusCode, 400, blueAnswer.body);
        const blueJson = blueAnswer.json() as Json;
        assert.equal(blueJson.status_code, 'E');
        assert.equal(blueJson.error_code, 'not_offered');
        assert.match(blueJson.error_message, /not offered/);
        const specAnswer = await postCharge(t.app, basicOf(spec), body);
        assert.equal(specAnswer.statusCode, 400, specAnswer.body);
        assert.equal((specAnswer.json() as Json).error.code, 'not_offered');
      });
    }

    it('radicalloop: verify, then charge ref-<verify reference_number>', async () => {
      const source = await nonceFor(t.app, blue);
      const response = await verify(t, blue, { source, expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, cvv2: '123' });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as Json;
      // radicalloop: status_code must be one of A/P/D/E, A is success; reads reference_number.
      assert.equal(body.status_code, 'A');
      assert.equal(body.status, 'Approved');
      assert.equal(body.transaction.id, body.reference_number);
      assert.equal(body.card_ref, null);
      assert.equal(body.transaction.status_details.status, 'approved');
      const charged = await postCharge(t.app, basicOf(blue), { source: `ref-${body.reference_number}`, amount: 7.5 });
      assert.equal(charged.statusCode, 200, charged.body);
      const charge = charged.json() as Json;
      assert.equal(charge.status_code, 'A');
      assert.equal(charge.auth_amount, 7.5);
      assert.equal(charge.last_4, '1111');
    });

    it('a declined verification is no ref- source; the spec dialect verifies and charges the same way', async () => {
      const declined = (
        await verify(t, blue, { source: await nonceFor(t.app, blue, '4000000000000002'), expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR })
      ).json() as Json;
      assert.equal(declined.status, 'Declined');
      const refused = await postCharge(t.app, basicOf(blue), { source: `ref-${declined.reference_number}`, amount: 7.5 });
      assert.equal(refused.statusCode, 404, refused.body);

      const specVerify = (
        await verify(t, spec, { source: await nonceFor(t.app, spec), expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, billing_info: { ...BILLING } })
      ).json() as Json;
      assert.equal(specVerify.status, 'Approved');
      const specCharge = await postCharge(t.app, basicOf(spec), { source: `ref-${specVerify.reference_number}`, amount: 7.5 });
      assert.equal(specCharge.statusCode, 200, specCharge.body);
      assert.equal((specCharge.json() as Json).status, 'Approved');
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`accept.blue charges the worker recovers (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_CARD_PROCESSOR: FLAKY_PROCESSOR } });
    });
    after(async () => {
      await t.close();
    });

    it("an unanswered charge answers Submitted/P; the worker records the partial approval in accept.blue's form, which the key then replays", async () => {
      const blue = await acceptBlueMerchant(t);
      const body = chargeBody(await nonceFor(t.app, blue, PARTIAL_CARD), { amount: 30, transaction_flags: { allow_partial_approval: true } });
      unreachableFor.set(PARTIAL_CARD, 1);
      const first = await postCharge(t.app, basicOf(blue), body, { 'idempotency-key': 'recover-1' });
      assert.equal(first.statusCode, 200, first.body);
      const pending = first.json() as Json;
      assert.equal(pending.status, 'Submitted');
      assert.equal(pending.status_code, 'P');
      assert.equal(pending.auth_amount, 0);
      assert.equal(pending.transaction.status_details.status, 'pending');
      assert.equal(await availableCents(t, blue.merchant_id), 0);

      t.clock.advance(RECOVERY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await availableCents(t, blue.merchant_id), 1500);
      const replay = await postCharge(t.app, basicOf(blue), body, { 'idempotency-key': 'recover-1' });
      const recorded = replay.json() as Json;
      assert.equal(recorded.status, 'Partially Approved');
      assert.equal(recorded.status_code, 'P');
      assert.equal(recorded.auth_amount, 15);
      assert.equal(recorded.reference_number, pending.reference_number);
      assert.equal(recorded.transaction.amount_details.original_requested_amount, 30);
    });
  });
}
