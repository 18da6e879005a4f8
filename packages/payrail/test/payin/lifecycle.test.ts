// The card transaction lifecycle over HTTP (docs/api-decisions.md sections 10
// and 14), on both stores: authorize only, capture in full or in part, void
// an authorization or a capture, settle in a batch, refund in full and in
// parts (each refund a transaction of its own), reversal, verify, and the
// ledger after each: card credits = captured - voided - refunded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { type CardProcessor, checkCardProcessor } from '../../src/providers/card-processor.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents, chargeCard, closeSandboxBatch, getJson, operate, operateOk, postingCount, statusOf, verifyCard } from '../helpers/lifecycle.ts';
import { basicOf, chargeBody, nonceFor, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

describe('card processor connectors', () => {
  it('a connector without the lifecycle calls is refused at start, naming what it lacks', () => {
    const old = { name: 'old-connector', authorize: async () => assert.fail(), poll: async () => assert.fail() };
    assert.throws(
      () => checkCardProcessor(old as unknown as CardProcessor),
      /^Error: card processor connector old-connector lacks capture, voidCharge, refund, verify, credit$/,
    );
  });
});

for (const kind of STORE_KINDS) {
  describe(`card transaction lifecycle (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('authorizes only with capture: false: shape A Approved, status approved, nothing credited, in no batch', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 30, capture: false }));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'Approved');
      assert.equal(body.status_code, 'A');
      assert.equal(body.auth_amount, 30);
      assert.equal(body.transaction.status_details.status, 'approved');
      assert.equal(body.transaction.transaction_details.batch_id, 0);
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      assert.equal(await postingCount(t, body.reference_number, 'charge.approve'), 0);
      assert.equal((await getJson(t, merchant, `/api/v2/transactions/${body.reference_number}`)).body, response.body);
      await ledgerClean(t);
    });

    it('captures an authorization in full once: credits it, joins the open batch, and answers the same result again', async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, { amount: 30, capture: false });
      const captured = await operateOk(t, merchant, 'capture', { reference_number: pk });
      assert.equal(captured.reference_number, pk);
      assert.equal(captured.status, 'Approved');
      assert.equal(captured.transaction.status_details.status, 'captured');
      assert.equal(captured.transaction.amount_details.amount, 30);
      assert.ok(captured.transaction.transaction_details.batch_id > 0);
      assert.equal(await availableCents(t, merchant.merchant_id), 3000);
      const again = await operate(t, merchant, 'capture', { reference_number: pk });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), captured);
      assert.equal(await postingCount(t, pk, 'charge.capture'), 1);
      assert.equal(await availableCents(t, merchant.merchant_id), 3000);
      await ledgerClean(t);
    });

    it('captures less than authorized: the answer carries the captured amount, and only that is credited', async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, { amount: 40, capture: false });
      const captured = await operateOk(t, merchant, 'capture', { reference_number: pk, amount: 12.5 });
      assert.equal(captured.transaction.amount_details.amount, 12.5);
      assert.equal(captured.transaction.amount_details.original_authorized_amount, 40);
      assert.equal(captured.auth_amount, 40);
      assert.equal(await availableCents(t, merchant.merchant_id), 1250);
      await ledgerClean(t);
    });

    it('voids an authorization (nothing moves) and a captured charge (its credit goes back); voiding again answers the same', async () => {
      const merchant = await t.newMerchant();
      const authorization = await chargeCard(t, merchant, { amount: 20, capture: false });
      const voided = await operateOk(t, merchant, 'void', { reference_number: authorization });
      assert.equal(voided.transaction.status_details.status, 'voided');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      assert.deepEqual(await operateOk(t, merchant, 'void', { reference_number: authorization }), voided);

      const sale = await chargeCard(t, merchant, { amount: 15 });
      assert.equal(await availableCents(t, merchant.merchant_id), 1500);
      const voidedSale = await operateOk(t, merchant, 'void', { reference_number: sale });
      assert.equal(voidedSale.transaction.status_details.status, 'voided');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      assert.equal(await postingCount(t, sale, 'charge.void'), 1);
      await ledgerClean(t);
    });

    it('settles captured transactions when the batch closes, with settled_date, and lists the batch and its transactions', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 10 });
      const authorization = await chargeCard(t, merchant, { amount: 7, capture: false });
      const batchId = (await getJson(t, merchant, `/api/v2/transactions/${sale}`)).json().transaction.transaction_details.batch_id as number;
      const open = await getJson(t, merchant, `/api/v2/batches/${batchId}`);
      assert.equal(open.statusCode, 200, open.body);
      assert.equal(open.json().status, 'open');
      assert.equal(open.json().sales_count, 1);

      const closed = await closeSandboxBatch(t, merchant);
      assert.deepEqual(
        closed.map((b) => [b.id, b.status, b.transaction_count, b.sales_amount, b.net_amount]),
        [[batchId, 'closed', 1, 10, 10]],
      );
      const settled = (await getJson(t, merchant, `/api/v2/transactions/${sale}`)).json();
      assert.equal(settled.transaction.status_details.status, 'settled');
      assert.equal(settled.transaction.settled_date, new Date(t.clock.nowMs()).toISOString().slice(0, 10));
      assert.equal(settled.transaction.transaction_details.batch_id, batchId);
      assert.equal(await statusOf(t, merchant, authorization), 'approved');

      const list = await getJson(t, merchant, '/api/v2/batches');
      assert.deepEqual(
        list.json().map((b: { id: number }) => b.id),
        [batchId],
      );
      const members = await getJson(t, merchant, `/api/v2/batches/${batchId}/transactions`);
      assert.deepEqual(
        members.json().map((m: { reference_number: number }) => m.reference_number),
        [sale],
      );
      assert.deepEqual(members.json()[0], settled);
      await ledgerClean(t);
    });

    it('refunds a settled charge in several parts, each a refund transaction naming it, until nothing is refundable', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 25 });
      await closeSandboxBatch(t, merchant);
      const first = await operateOk(t, merchant, 'refund', { reference_number: sale, amount: 10 });
      assert.equal(first.status, 'Approved');
      assert.notEqual(first.reference_number, sale);
      assert.equal(first.transaction.transaction_details.type, 'refund');
      assert.equal(first.transaction.transaction_details.reference_number, String(sale));
      assert.equal(first.transaction.status_details.status, 'captured');
      assert.equal(first.transaction.amount_details.amount, 10);
      assert.equal(await availableCents(t, merchant.merchant_id), 1500);
      const rest = await operateOk(t, merchant, 'refund', { reference_number: sale });
      assert.equal(rest.transaction.amount_details.amount, 15);
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      const none = await operate(t, merchant, 'refund', { reference_number: sale, amount: 0.01 });
      assert.equal(none.statusCode, 400);
      assert.deepEqual(none.json(), { error: { code: 'invalid_amount', message: `amount exceeds the refundable 0.00 of reference_number ${sale}` } });
      // The refunds settle with the next close.
      await closeSandboxBatch(t, merchant);
      assert.equal(await statusOf(t, merchant, first.reference_number), 'settled');
      assert.equal(await statusOf(t, merchant, sale), 'settled');
      await ledgerClean(t);
    });

    it('a refund of a charge made with 4000000000005126 is declined by the processor: shape B, nothing moves', async () => {
      const merchant = await t.newMerchant({ fundCents: 5000 });
      const sale = await chargeCard(t, merchant, { card: '4000000000005126', amount: 20 });
      await closeSandboxBatch(t, merchant);
      const response = await operate(t, merchant, 'refund', { reference_number: sale, amount: 5 });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'declined');
      assert.equal(body.amount, 5);
      assert.equal(body.error.code, 'refund_declined');
      assert.equal(await availableCents(t, merchant.merchant_id), 7000);
      // The whole amount is still refundable; the declined refund reads as declined.
      assert.equal(await statusOf(t, merchant, Number(body.id)), 'declined');
      const settled = (await getJson(t, merchant, `/api/v2/transactions/${sale}`)).json();
      assert.equal(settled.transaction.status_details.status, 'settled');
      await ledgerClean(t);
    });

    it('reversal voids an unsettled transaction and refunds a settled one', async () => {
      const merchant = await t.newMerchant();
      const unsettled = await chargeCard(t, merchant, { amount: 9 });
      const voided = await operateOk(t, merchant, 'reversal', { reference_number: unsettled });
      assert.equal(voided.transaction.status_details.status, 'voided');
      const settled = await chargeCard(t, merchant, { amount: 11 });
      await closeSandboxBatch(t, merchant);
      const refund = await operateOk(t, merchant, 'reversal', { reference_number: settled, amount: 4 });
      assert.equal(refund.transaction.transaction_details.type, 'refund');
      assert.equal(refund.transaction.amount_details.amount, 4);
      assert.equal(await availableCents(t, merchant.merchant_id), 700);
      await ledgerClean(t);
    });

    it('verify checks a card with no money: shape A with AVS/CVV and amount 0; a decline card answers shape B', async () => {
      const merchant = await t.newMerchant();
      const approved = await verifyCard(t, merchant, '4000000000000101');
      assert.equal(approved.statusCode, 200, approved.body);
      const body = approved.json();
      assert.equal(body.status, 'Approved');
      assert.equal(body.status_code, 'A');
      assert.equal(body.cvv2_result_code, 'N');
      assert.equal(body.avs_result_code, 'Y');
      assert.equal(body.transaction.amount_details.amount, 0);
      assert.equal(body.transaction.transaction_details.type, 'verify');
      assert.equal((await getJson(t, merchant, `/api/v2/transactions/${body.reference_number}`)).body, approved.body);
      const declined = await verifyCard(t, merchant, '4000000000000002');
      assert.equal(declined.statusCode, 200);
      assert.equal(declined.json().status, 'declined');
      assert.equal(declined.json().error.code, 'card_declined');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
    });

    it('replays a capture and a refund by Idempotency-Key, and refuses the key with another body', async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, { amount: 30, capture: false });
      const first = await operate(t, merchant, 'capture', { reference_number: pk, amount: 10 }, { 'idempotency-key': 'cap-1' });
      const replay = await operate(t, merchant, 'capture', { reference_number: pk, amount: 10 }, { 'idempotency-key': 'cap-1' });
      assert.equal(replay.body, first.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const reused = await operate(t, merchant, 'capture', { reference_number: pk, amount: 11 }, { 'idempotency-key': 'cap-1' });
      assert.equal(reused.statusCode, 400);
      assert.equal(reused.json().error.code, 'idempotency_key_reused');
      // One key cannot serve two operations either.
      const otherOperation = await operate(t, merchant, 'void', { reference_number: pk, amount: 10 }, { 'idempotency-key': 'cap-1' });
      assert.equal(otherOperation.json().error.code, 'idempotency_key_reused');

      await closeSandboxBatch(t, merchant);
      const refund = await operate(t, merchant, 'refund', { reference_number: pk, amount: 3 }, { 'idempotency-key': 'ref-1' });
      const refundAgain = await operate(t, merchant, 'refund', { reference_number: pk, amount: 3 }, { 'idempotency-key': 'ref-1' });
      assert.equal(refundAgain.body, refund.body);
      assert.equal(await availableCents(t, merchant.merchant_id), 700);
      await ledgerClean(t);
    });
  });
}
