// Card payin and transfers end to end, both through their HTTP APIs: a
// transfer whose gatewayId is an approved charge's reference_number is linked
// to it (and paid from the money the charge brought in), a declined charge
// cannot fund one, and automatic reconciliation finds charges made through
// the charge API. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPayoutsMustLink } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, chargeBody, nonceFor, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, events, failure, transferBody, transferPk } from '../helpers/transfers.ts';

for (const kind of STORE_KINDS) {
  describe(`card payin funds transfers (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    const linksOf = async (merchantId: string, transferId: string) => {
      const pk = await transferPk(t.service, merchantId, transferId);
      const rows = await t.service.db.read((tx) =>
        tx.all<{ charge_pk: number; amount_cents: number; how: string }>('SELECT charge_pk, amount_cents, how FROM transfer_links WHERE transfer_pk = ?', [pk]),
      );
      return rows.map((row) => [Number(row.charge_pk), Number(row.amount_cents), row.how]);
    };

    it("links a transfer whose gatewayId is an approved charge's reference_number, paid from the charge's money", async () => {
      const merchant = await t.newMerchant();
      const charged = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 60 }));
      assert.equal(charged.statusCode, 200, charged.body);
      const reference = charged.json().reference_number as number;
      assert.equal(charged.json().transaction.id, reference);

      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody({ amount: '45.00', attribute: [{ name: 'gatewayId', value: String(reference) }] });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      assert.deepEqual(await linksOf(merchant.merchant_id, body.id), [[reference, 4500, 'gateway']]);
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 1500, in_flight: 0, paid_out: 4500 });

      // The charge has 15.00 left: more than that is refused, naming gatewayId.
      const tooMuch = transferBody({ amount: '15.01', attribute: [{ name: 'gatewayId', value: String(reference) }] });
      assert.deepEqual(await api.execute(tooMuch), {
        status: 400,
        body: failure('invalid_request', `attribute gatewayId ${reference} has 15.00 not yet linked to transfers, less than the amount 15.01`),
      });
      await assertLedgerOk(t.service);
    });

    it('refuses a declined charge and a shape B id as gatewayId', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const declined = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant, '4000000000000002'), { amount: 60 }));
      const id = declined.json().id as string;
      assert.match(id, /^[0-9]+$/);
      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody({ amount: '10.00', attribute: [{ name: 'gatewayId', value: id }] });
      assert.deepEqual(await api.execute(body), {
        status: 400,
        body: failure('invalid_request', `attribute gatewayId ${id} names a card payin that is declined, not approved`),
      });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 10_000, in_flight: 0, paid_out: 0 });
    });

    it('reconciles a waiting transfer with a charge made through the charge API, including one approved after review', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      await setPayoutsMustLink({ db: t.service.db, environment: 'sandbox', clock: t.clock }, { merchantId: merchant.merchant_id, on: true });
      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody({ amount: '30.00' });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id, '9') });
      await t.worker.drain();
      assert.deepEqual(await linksOf(merchant.merchant_id, body.id), []);

      // A pending-review charge does not count until the worker approves it, then it does.
      const charged = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant, '4000000000000259'), { amount: 30 }));
      assert.equal(charged.json().status, 'Pending');
      const reference = charged.json().reference_number as number;
      await t.worker.drain();
      assert.deepEqual(await linksOf(merchant.merchant_id, body.id), [[reference, 3000, 'auto']]);
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 9],
        [0, 0],
        [40, 1],
        [60, 0],
      ]);
      await assertLedgerOk(t.service);
    });
  });
}
