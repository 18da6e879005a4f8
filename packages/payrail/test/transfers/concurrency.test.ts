// Concurrent executes on both stores: one id raced 50 times gives exactly
// one transfer and one debit; many transfers raced against a small balance
// never take more than balance + overdraft.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setOverdraft } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, failure, transferBody, transferPk } from '../helpers/transfers.ts';

const RACERS = 50;

for (const kind of STORE_KINDS) {
  describe(`concurrent executes (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it(`${RACERS} parallel executes of one id: exactly one transfer and one debit, the rest duplicate_transfer`, async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody({ amount: '12.34' });
      const replies = await Promise.all(Array.from({ length: RACERS }, () => api.execute(body)));
      const succeeded = replies.filter((reply) => reply.status === 200);
      const refused = replies.filter((reply) => reply.status !== 200);
      assert.deepEqual(succeeded, [{ status: 200, body: created(body.id) }]);
      assert.equal(refused.length, RACERS - 1);
      for (const reply of refused)
        assert.deepEqual(reply, { status: 400, body: failure('duplicate_transfer', `id ${body.id} was already used for a transfer`) });

      const rows = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM transfers WHERE merchant_id = ?', [merchant.merchant_id]));
      assert.equal(Number(rows!.n), 1);
      const pk = await transferPk(t.service, merchant.merchant_id, body.id);
      const postings = await t.service.db.read((tx) =>
        tx.all<{ kind: string; amount_cents: number }>("SELECT kind, amount_cents FROM postings WHERE ref_type = 'transfer' AND ref_id = ?", [String(pk)]),
      );
      assert.deepEqual(
        postings.map((p) => [p.kind, Number(p.amount_cents)]),
        [['transfer.execute', 1234]],
      );
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 100_000 - 1234, in_flight: 1234, paid_out: 0 });
      await t.worker.drain();
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: 100_000 - 1234, in_flight: 0, paid_out: 1234 });
      await assertLedgerOk(t.service);
    });

    it('parallel transfers never take more than balance + overdraft', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      await setOverdraft({ db: t.service.db, environment: 'sandbox', clock: t.clock }, { merchantId: merchant.merchant_id, overdraftCents: 5_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      // 40 transfers of 10.00 against 100.00 + 50.00: exactly 15 fit.
      const replies = await Promise.all(Array.from({ length: 40 }, () => api.execute(transferBody({ amount: '10.00' }))));
      const accepted = replies.filter((reply) => reply.status === 200).length;
      assert.equal(accepted, 15);
      for (const reply of replies.filter((r) => r.status !== 200)) {
        assert.deepEqual(reply, { status: 400, body: failure('insufficient_funds', 'balance + overdraft does not cover amount 10.00') });
      }
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: -5_000, in_flight: 15_000, paid_out: 0 });
      assert.deepEqual(await api.balance(), { status: 200, body: { success: true, error: '', balance: { balance: -5_000, overdraft: 5_000 } } });
      await t.worker.drain();
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { available: -5_000, in_flight: 0, paid_out: 15_000 });
      await assertLedgerOk(t.service);
    });

    it('parallel transfers of many merchants and ids all land once, and the ledger agrees', async () => {
      const merchants = await Promise.all([t.newMerchant({ fundCents: 50_000 }), t.newMerchant({ fundCents: 50_000 }), t.newMerchant({ fundCents: 50_000 })]);
      const bodies = merchants.flatMap((m) =>
        Array.from({ length: 30 }, (_, i) => ({ key: m.transfer_api_key, body: transferBody({ amount: `${1 + (i % 5)}.00` }) })),
      );
      const replies = await Promise.all(bodies.map(({ key, body }) => caller(t.app, key).execute(body)));
      for (const [i, reply] of replies.entries()) assert.deepEqual(reply, { status: 200, body: created(bodies[i]!.body.id) });
      await t.worker.drain();
      for (const m of merchants) assert.deepEqual(await balances(t.service, m.merchant_id), { available: 50_000 - 9_000, in_flight: 0, paid_out: 9_000 });
      await assertLedgerOk(t.service);
    });
  });
}
