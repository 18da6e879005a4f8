// accept.blue's card operations after a charge (docs/acceptblue-compatibility.md),
// on both stores, replayed as the shop integrations call them (reference
// B.2 WooCommerce, B.3 futureecom and B.4 radicalloop Omnipay, B.5
// Formidable): capture, void, refund, reversal (with accept.blue's string
// amount), adjust, adjust-capture, credit and queue, each answer read as its
// plugin reads it, and the ledger balanced after each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { reserveCreditOnly } from '../../src/flows/payin/credit.ts';
import { creditDepsOf, OPERATION_RECOVERY_AFTER_MS } from '../../src/flows/payin/operation-common.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents, chargeCard, closeSandboxBatch, postingCount, snapshot } from '../helpers/lifecycle.ts';
import { basicOf, nonceFor } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

// biome-ignore lint/suspicious/noExplicitAny: the plugins read answers untyped, and so do these tests.
type Loose = any;

async function acceptBlueMerchant(t: TestApp, fundCents = 1_000_000): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant({ fundCents });
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}

async function call(t: TestApp, merchant: CreatedMerchant, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await t.app.inject({
    method,
    url: `/api/v2/${path}`,
    headers: { authorization: basicOf(merchant), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: (response.body === '' ? undefined : JSON.parse(response.body)) as Loose, text: response.body };
}

/** WooCommerce's success test for refund and void: no error_message, and status "Approved". */
const wooOk = (body: Loose): boolean => (body.error_message ?? '') === '' && body.status === 'Approved';
/** Omnipay (futureecom): status "Approved". */
const omnipayOk = (body: Loose): boolean => body.status === 'Approved';
/** radicalloop: status_code must be one of A/P/D/E, and "A" is success. */
function radicalloopOk(body: Loose): boolean {
  assert.ok(['A', 'P', 'D', 'E'].includes(body?.status_code), `radicalloop throws without a status_code: ${JSON.stringify(body)}`);
  return body.status_code === 'A';
}
/** Formidable: failure iff status is error/declined or status_code E/D. */
const formidableFailed = (body: Loose): boolean =>
  ['error', 'declined'].includes(String(body.status).toLowerCase()) || ['E', 'D'].includes(String(body.status_code).toUpperCase());

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

/** The status GET /api/v2/transactions/:id shows (the transaction object's, in either of its current places). */
async function statusOf(t: TestApp, merchant: CreatedMerchant, pk: number): Promise<string> {
  const read = await call(t, merchant, 'GET', `transactions/${pk}`);
  assert.equal(read.status, 200, read.text);
  return read.body.status_details?.status ?? read.body.transaction.status_details.status;
}

for (const kind of STORE_KINDS) {
  describe(`accept.blue operations (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('WooCommerce: a later capture answers reference_number, again idempotently; the refund routing voids unsettled and refunds settled', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await chargeCard(t, merchant, { amount: 20, capture: false });
      const capture = await call(t, merchant, 'POST', 'transactions/capture', { reference_number: auth });
      assert.equal(capture.status, 200, capture.text);
      assert.equal(capture.body.status_code, 'A');
      assert.equal(capture.body.reference_number, auth);
      assert.equal(capture.body.auth_amount, 20);
      assert.equal(capture.body.version, '2.0.0');
      assert.equal(capture.body.error_message, null);
      assert.equal((await call(t, merchant, 'POST', 'transactions/capture', { reference_number: auth })).body.status_code, 'A');
      assert.equal(await postingCount(t, auth, 'charge.capture'), 1);

      // Refund of an unsettled (captured) charge: Woo voids it, reads the answer.
      const voided = await call(t, merchant, 'POST', 'transactions/void', { reference_number: auth });
      assert.equal(voided.status, 200, voided.text);
      assert.ok(wooOk(voided.body), voided.text);
      assert.deepEqual(Object.keys(voided.body).sort(), ['error_code', 'error_details', 'error_message', 'status', 'status_code', 'version']);
      assert.equal(await statusOf(t, merchant, auth), 'voided');

      // A settled charge is refunded in part; the answer names the new refund.
      const sale = await chargeCard(t, merchant, { amount: 30 });
      await closeSandboxBatch(t, merchant);
      const refund = await call(t, merchant, 'POST', 'transactions/refund', { reference_number: sale, amount: 12.5 });
      assert.equal(refund.status, 200, refund.text);
      assert.ok(wooOk(refund.body), refund.text);
      assert.notEqual(refund.body.reference_number, sale);
      assert.equal(await postingCount(t, refund.body.reference_number, 'refund.debit'), 1);
      await ledgerClean(t);
    });

    it('WooCommerce: an admin edit of the order total adjusts the authorization once; the capture takes the new total', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await chargeCard(t, merchant, { amount: 50, capture: false });
      const adjusted = await call(t, merchant, 'POST', 'transactions/adjust', { reference_number: auth, amount: 45 });
      assert.equal(adjusted.status, 200, adjusted.text);
      assert.equal(adjusted.body.status_code, 'A', adjusted.text);
      assert.equal(adjusted.body.auth_amount, 45);
      // The same adjust again answers as it stands; another is refused (accept.blue adjusts once).
      assert.equal((await call(t, merchant, 'POST', 'transactions/adjust', { reference_number: auth, amount: 45 })).body.status_code, 'A');
      const before = await snapshot(t, merchant.merchant_id);
      const second = await call(t, merchant, 'POST', 'transactions/adjust', { reference_number: auth, amount: 40 });
      assert.equal(second.status, 400);
      assert.equal(second.body.status_code, 'E');
      assert.match(second.body.error_message, /adjusted once/);
      assert.deepEqual(await snapshot(t, merchant.merchant_id), before);
      const captured = await call(t, merchant, 'POST', 'transactions/capture', { reference_number: auth });
      assert.equal(captured.body.auth_amount, 45);
      assert.equal(await availableCents(t, merchant.merchant_id), 1_000_000 + 4500);
      await ledgerClean(t);
    });

    it('adjust refuses a higher amount and a captured amount change, changing nothing; details of a captured charge are kept', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await chargeCard(t, merchant, { amount: 10, capture: false });
      const before = await snapshot(t, merchant.merchant_id);
      const up = await call(t, merchant, 'POST', 'transactions/adjust', { reference_number: auth, amount: 11 });
      assert.equal(up.status, 400);
      assert.deepEqual(Object.keys(up.body.error_details), ['amount']);
      const sale = await chargeCard(t, merchant, { amount: 10 });
      const down = await call(t, merchant, 'POST', 'transactions/adjust', { reference_number: sale, amount: 9 });
      assert.equal(down.status, 400);
      assert.match(down.body.error_message, /captured/);
      const afterRefusals = await snapshot(t, merchant.merchant_id);
      assert.deepEqual((afterRefusals.postings as unknown[]).length, (before.postings as unknown[]).length + 1, 'only the sale posted');
      const details = await call(t, merchant, 'POST', 'transactions/adjust', {
        reference_number: sale,
        transaction_details: { order_number: 'W-77', description: 'edited' },
        custom_fields: { custom1: 'x' },
        line_items: [{ sku: 'A1', quantity: 2, cost: 5 }],
      });
      assert.equal(details.status, 200, details.text);
      assert.equal(details.body.status_code, 'A');
      const stored = await t.service.db.read((tx) => tx.get<{ request_json: string }>('SELECT request_json FROM charges WHERE pk = ?', [sale]));
      const request = JSON.parse(stored!.request_json);
      assert.equal(request.transaction_details.order_number, 'W-77');
      assert.deepEqual(request.custom_fields, { custom1: 'x' });
      assert.equal(request.line_items[0].sku, 'A1');
      assert.equal(request.billing_info.first_name.length > 0, true, 'billing kept');
      await ledgerClean(t);
    });

    it('futureecom: capture, refund after settlement, a reversal with a string amount refunds exactly that, and void', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await chargeCard(t, merchant, { amount: 40, capture: false });
      assert.ok(omnipayOk((await call(t, merchant, 'POST', 'transactions/capture', { reference_number: auth })).body));
      await closeSandboxBatch(t, merchant);
      const refunded = await call(t, merchant, 'POST', 'transactions/refund', { reference_number: auth, amount: 5, cvv2: null });
      assert.ok(omnipayOk(refunded.body), refunded.text);
      const reversed = await call(t, merchant, 'POST', 'transactions/reversal', { reference_number: String(auth), amount: '10.00' });
      assert.equal(reversed.status, 200, reversed.text);
      assert.ok(omnipayOk(reversed.body), reversed.text);
      assert.equal(reversed.body.type, 'Refund');
      assert.notEqual(reversed.body.reference_number, auth);
      const refundRow = await t.service.db.read((tx) =>
        tx.get<{ amount_cents: number }>('SELECT amount_cents FROM charges WHERE pk = ?', [reversed.body.reference_number]),
      );
      assert.equal(Number(refundRow!.amount_cents), 1000);
      // "10.001" is not an amount of cents: refused, nothing changed.
      const before = await snapshot(t, merchant.merchant_id);
      const inexact = await call(t, merchant, 'POST', 'transactions/refund', { reference_number: auth, amount: '10.001' });
      assert.equal(inexact.status, 400, inexact.text);
      assert.equal(inexact.body.status_code, 'E');
      assert.deepEqual(await snapshot(t, merchant.merchant_id), before);

      const second = await chargeCard(t, merchant, { amount: 8, capture: false });
      const voided = await call(t, merchant, 'POST', 'transactions/void', { reference_number: second });
      assert.ok(omnipayOk(voided.body), voided.text);
      assert.equal(await statusOf(t, merchant, auth), 'settled');
      await ledgerClean(t);
    });

    it('futureecom and radicalloop: credit to a nonce and to ref- debits the merchant like a refund and answers a new reference_number', async () => {
      const merchant = await acceptBlueMerchant(t, 10_000);
      const nonce = await nonceFor(t.app, merchant, '5555555555554444');
      const credited = await call(t, merchant, 'POST', 'transactions/credit', {
        amount: 3,
        source: nonce,
        expiry_month: 12,
        expiry_year: 2035,
        avs_address: null,
        transaction_details: { order_number: 'CR-1' },
      });
      assert.equal(credited.status, 200, credited.text);
      assert.ok(omnipayOk(credited.body), credited.text);
      assert.equal(typeof credited.body.reference_number, 'number');
      assert.equal(await availableCents(t, merchant.merchant_id), 10_000 - 300);
      assert.equal(await postingCount(t, credited.body.reference_number, 'refund.debit'), 1);

      const sale = await chargeCard(t, merchant, { amount: 20 });
      const fromRef = await call(t, merchant, 'POST', 'transactions/credit', { source: `ref-${sale}`, amount: 2 });
      assert.ok(radicalloopOk(fromRef.body), fromRef.text);
      assert.notEqual(fromRef.body.reference_number, sale);
      // The referenced charge is untouched: a credit is not a refund of it.
      const parent = await t.service.db.read((tx) => tx.get<{ refunded_cents: number }>('SELECT refunded_cents FROM charges WHERE pk = ?', [sale]));
      assert.equal(Number(parent!.refunded_cents), 0);
      assert.equal(await availableCents(t, merchant.merchant_id), 10_000 - 300 + 2000 - 200);

      // More than balance + overdraft covers: refused like a refund, nothing written.
      const before = await snapshot(t, merchant.merchant_id);
      const tooMuch = await call(t, merchant, 'POST', 'transactions/credit', { source: `ref-${sale}`, amount: 500 });
      assert.equal(tooMuch.status, 400, tooMuch.text);
      assert.equal(tooMuch.body.error_code, 'insufficient_funds');
      assert.deepEqual(await snapshot(t, merchant.merchant_id), before);
      // Unknown sources read as not found.
      assert.equal((await call(t, merchant, 'POST', 'transactions/credit', { source: 'ref-999999999', amount: 1 })).status, 404);

      // The settled credit settles with the batch like a refund.
      await closeSandboxBatch(t, merchant);
      assert.equal(await statusOf(t, merchant, credited.body.reference_number), 'settled');
      await ledgerClean(t);
    });

    it('credit: a declined credit answers 200 Declined with its error and gives the money back', async () => {
      const merchant = await acceptBlueMerchant(t, 10_000);
      const nonce = await nonceFor(t.app, merchant, '4000000000005126');
      const declined = await call(t, merchant, 'POST', 'transactions/credit', { amount: 4, source: nonce, expiry_month: 12, expiry_year: 2035 });
      assert.equal(declined.status, 200, declined.text);
      assert.equal(declined.body.status, 'Declined');
      assert.equal(declined.body.status_code, 'D');
      assert.equal(declined.body.error_code, 'refund_declined');
      assert.ok(declined.body.error_message.length > 0);
      assert.equal(await availableCents(t, merchant.merchant_id), 10_000);
      assert.equal(await postingCount(t, declined.body.reference_number, 'refund.release'), 1);
      await ledgerClean(t);
    });

    it('radicalloop: refund of an unknown or unsettled reference is refused with a status_code; the refund of a settled one succeeds', async () => {
      const merchant = await acceptBlueMerchant(t);
      const unknown = await call(t, merchant, 'POST', 'transactions/refund', { reference_number: 999_999_999, amount: 1 });
      assert.equal(unknown.status, 404);
      assert.equal(radicalloopOk(unknown.body), false);
      const sale = await chargeCard(t, merchant, { amount: 15 });
      const early = await call(t, merchant, 'POST', 'transactions/refund', { reference_number: sale, amount: 1 });
      assert.equal(early.status, 400);
      assert.equal(radicalloopOk(early.body), false);
      await closeSandboxBatch(t, merchant);
      assert.ok(radicalloopOk((await call(t, merchant, 'POST', 'transactions/refund', { reference_number: sale, amount: 10 })).body));
      await ledgerClean(t);
    });

    it('Formidable: adjust-capture captures the new total, a smaller reversal of an authorization is an Adjustment, a full one a Void', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await chargeCard(t, merchant, { amount: 30, capture: false });
      const adjusted = await call(t, merchant, 'POST', 'transactions/adjust-capture', { reference_number: auth, amount: 25 });
      assert.equal(adjusted.status, 200, adjusted.text);
      assert.equal(formidableFailed(adjusted.body), false, adjusted.text);
      assert.equal(adjusted.body.auth_amount, 25);
      assert.equal(await postingCount(t, auth, 'charge.capture'), 1);
      assert.equal(await availableCents(t, merchant.merchant_id), 1_000_000 + 2500);
      // adjust-capture asked again: the same adjust, and the capture answers as it stands.
      assert.equal(formidableFailed((await call(t, merchant, 'POST', 'transactions/adjust-capture', { reference_number: auth, amount: 25 })).body), false);
      assert.equal(await postingCount(t, auth, 'charge.capture'), 1);

      const second = await chargeCard(t, merchant, { amount: 30, capture: false });
      const reduced = await call(t, merchant, 'POST', 'transactions/reversal', { reference_number: second, amount: 5 });
      assert.equal(reduced.status, 200, reduced.text);
      assert.equal(reduced.body.type, 'Adjustment');
      assert.equal(reduced.body.auth_amount, 25);
      assert.equal(formidableFailed(reduced.body), false);
      const reversed = await call(t, merchant, 'POST', 'transactions/reversal', { reference_number: second });
      assert.equal(reversed.body.type, 'Void');
      assert.equal(formidableFailed(reversed.body), false);
      assert.equal(await statusOf(t, merchant, second), 'voided');
      await ledgerClean(t);
    });

    it('queue: 204 for an uncaptured authorization (nothing changes), 422 for a captured, settled or declined transaction, 404 unknown', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = await chargeCard(t, merchant, { amount: 9, capture: false });
      const before = await snapshot(t, merchant.merchant_id);
      const queued = await call(t, merchant, 'POST', 'transactions/queue', { reference_number: String(auth) });
      assert.equal(queued.status, 204, queued.text);
      assert.equal(queued.text, '');
      assert.equal((await call(t, merchant, 'POST', 'transactions/queue', { reference_number: auth })).status, 204);
      assert.deepEqual(await snapshot(t, merchant.merchant_id), before);
      const sale = await chargeCard(t, merchant, { amount: 9 });
      const captured = await call(t, merchant, 'POST', 'transactions/queue', { reference_number: sale });
      assert.equal(captured.status, 422);
      assert.equal(captured.body.status_code, 'E');
      assert.equal(captured.body.error_code, 'invalid_state');
      const declined = await chargeCard(t, merchant, { amount: 9, card: '4000000000000002' });
      assert.equal((await call(t, merchant, 'POST', 'transactions/queue', { reference_number: declined })).status, 422);
      assert.equal((await call(t, merchant, 'POST', 'transactions/queue', { reference_number: 999_999_998 })).status, 404);
    });

    it('a refund naming a terminal is refused as not offered; undocumented fields are ignored in this dialect', async () => {
      const merchant = await acceptBlueMerchant(t);
      const sale = await chargeCard(t, merchant, { amount: 15 });
      await closeSandboxBatch(t, merchant);
      const terminal = await call(t, merchant, 'POST', 'transactions/refund', { reference_number: sale, terminal_id: 'T1' });
      assert.equal(terminal.status, 400);
      assert.deepEqual(Object.keys(terminal.body.error_details), ['terminal_id']);
      const extra = await call(t, merchant, 'POST', 'transactions/refund', {
        reference_number: sale,
        amount: 1,
        currency: 'USD',
        customer: { email: 'a@example.com', send_receipt: false },
        transaction_flags: { allow_partial_approval: false },
        custom_fields: { custom2: 'y' },
      });
      assert.equal(extra.status, 200, extra.text);
      assert.equal(extra.body.status_code, 'A');
      // The refund keeps the customer and custom fields sent with it; the refunded charge keeps its own.
      const kept = async (pk: number) =>
        JSON.parse((await t.service.db.read((tx) => tx.get<{ request_json: string }>('SELECT request_json FROM charges WHERE pk = ?', [pk])))!.request_json);
      const refundRequest = await kept(extra.body.reference_number);
      assert.equal(refundRequest.customer.email, 'a@example.com');
      assert.deepEqual(refundRequest.custom_fields, { custom2: 'y' });
      assert.equal((await kept(sale)).custom_fields, undefined);
    });
  });

  describe(`operations in the spec dialect (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('answer shape A as before, and take every documented field; adjust and credit answer shape A too', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const auth = await chargeCard(t, merchant, { amount: 20, capture: false });
      const adjusted = await call(t, merchant, 'POST', 'transactions/adjust', { reference_number: auth, amount: 15, custom_fields: { custom1: 'a' } });
      assert.equal(adjusted.status, 200, adjusted.text);
      assert.equal(adjusted.body.status, 'Approved');
      assert.equal(adjusted.body.auth_amount, 15);
      assert.equal(adjusted.body.transaction.status_details !== undefined, true);
      const voided = await call(t, merchant, 'POST', 'transactions/void', { reference_number: auth, customer: { identifier: 'c-1' } });
      assert.equal(voided.status, 200, voided.text);
      assert.equal(voided.body.transaction.status_details.status, 'voided');
      const unknown = await call(t, merchant, 'POST', 'transactions/void', { reference_number: auth, last4: '1111' });
      assert.equal(unknown.status, 400);
      assert.deepEqual(Object.keys(unknown.body), ['error']);
      const nonce = await nonceFor(t.app, merchant);
      const credited = await call(t, merchant, 'POST', 'transactions/credit', { amount: 1, source: nonce, expiry_month: 12, expiry_year: 2035 });
      assert.equal(credited.status, 200, credited.text);
      assert.equal(credited.body.status, 'Approved');
      assert.equal(await availableCents(t, merchant.merchant_id), 10_000 - 100);
      await ledgerClean(t);
    });
  });

  describe(`a credit whose request died after writing it (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('holds its amount, keeps its card sealed for the worker, which records the answer once and erases the card', async () => {
      const merchant = await t.newMerchant({ fundCents: 5000 });
      const caller = { merchantId: merchant.merchant_id, sourceId: merchant.source.id };
      const nonce = await nonceFor(t.app, merchant);
      const credit = await reserveCreditOnly(creditDepsOf(t.service), caller, { amount: 7, source: nonce, expiry_month: 12, expiry_year: 2035 }, 700);
      assert.equal(await statusOf(t, merchant, credit.pk), 'pending');
      assert.equal(await availableCents(t, merchant.merchant_id), 4300);
      await ledgerClean(t);
      assert.equal(await t.worker.drain(), 0, 'not before the request surely gave up');
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await statusOf(t, merchant, credit.pk), 'captured');
      assert.equal(await postingCount(t, credit.pk, 'refund.debit'), 1);
      assert.equal(await postingCount(t, credit.pk, 'refund.release'), 0);
      assert.equal(await availableCents(t, merchant.merchant_id), 4300);
      const sealed = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT LENGTH(card_number_enc) AS n FROM charges WHERE pk = ?', [credit.pk]));
      assert.equal(Number(sealed!.n), 0);
      await ledgerClean(t);
    });
  });
}
