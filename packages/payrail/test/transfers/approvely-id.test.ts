// CashQ's approvelyId (behaviour.md section 16): another name for the
// gatewayId attribute of check and execute, read by the same rules
// (section 7). It links the transfer to the card payin it names; its
// refusals name approvelyId, as the caller sent it; gatewayId and
// approvelyId together must name the same payin. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { approvedCharge, assertLedgerOk, balances, caller, created, failure, statusBody, transferBody } from '../helpers/transfers.ts';

const approvely = (pk: number | string) => [{ name: 'approvelyId', value: String(pk) }];

for (const kind of STORE_KINDS) {
  describe(`approvelyId (${kind})`, () => {
    let t: TestApp;
    let merchant: Awaited<ReturnType<TestApp['newMerchant']>>;
    let api: ReturnType<typeof caller>;

    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant({ fundCents: 100_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await t.close();
    });

    const linkedCents = async (chargePk: number) =>
      Number((await t.service.db.read((tx) => tx.get<{ linked_cents: number }>('SELECT linked_cents FROM charges WHERE pk = ?', [chargePk])))!.linked_cents);

    it('links the transfer to the approved charge it names, like gatewayId; the status names the link as gatewayId', async () => {
      const charge = await approvedCharge(t.service, merchant, 5_000, t.clock.nowMs());
      const body = transferBody({ amount: '20.00', attribute: approvely(charge) });
      assert.equal((await api.check(body)).status, 200);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      assert.equal(await linkedCents(charge), 2_000);
      const status = await api.status(body.id);
      assert.deepEqual(status, {
        status: 200,
        body: statusBody(body.id, {
          state: 0,
          substate: 0,
          final: 0,
          attribute: [{ name: 'gatewayId', value: String(charge) }],
          serverTimeMs: t.clock.nowMs(),
        }),
      });
      await t.worker.drain();
      await assertLedgerOk(t.service);
    });

    it('refuses what gatewayId would refuse, naming approvelyId; nothing changes', async () => {
      const charge = await approvedCharge(t.service, merchant, 1_000, t.clock.nowMs());
      const start = await balances(t.service, merchant.merchant_id);
      const cases: Array<[string, unknown]> = [
        ['12ab', failure('invalid_request', 'attribute approvelyId must be the reference number (digits) of a card payin')],
        ['999999999', failure('invalid_request', 'attribute approvelyId 999999999 names no card payin')],
        [String(charge), failure('invalid_request', `attribute approvelyId ${charge} has 10.00 not yet linked to transfers, less than the amount 20.00`)],
      ];
      for (const [value, refusal] of cases) {
        const body = transferBody({ amount: '20.00', attribute: approvely(value) });
        assert.deepEqual(await api.check(body), { status: 400, body: refusal }, value);
        assert.deepEqual(await api.execute(body), { status: 400, body: refusal }, value);
      }
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      assert.equal(await linkedCents(charge), 0);
    });

    it('accepts gatewayId and approvelyId naming the same charge; refuses two different ones naming both', async () => {
      const charge = await approvedCharge(t.service, merchant, 5_000, t.clock.nowMs());
      const other = await approvedCharge(t.service, merchant, 5_000, t.clock.nowMs());
      const same = transferBody({ amount: '10.00', attribute: [{ name: 'gatewayId', value: String(charge) }, ...approvely(charge)] });
      assert.deepEqual(await api.execute(same), { status: 200, body: created(same.id) });
      assert.equal(await linkedCents(charge), 1_000);

      const start = await balances(t.service, merchant.merchant_id);
      const differ = transferBody({ amount: '10.00', attribute: [...approvely(other), { name: 'gatewayId', value: String(charge) }] });
      const refusal = failure(
        'invalid_request',
        `attributes gatewayId (${charge}) and approvelyId (${other}) name different card payins; they are two names of one attribute: send one`,
      );
      assert.deepEqual(await api.check(differ), { status: 400, body: refusal });
      assert.deepEqual(await api.execute(differ), { status: 400, body: refusal });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      assert.equal(await linkedCents(other), 0);
    });
  });
}
