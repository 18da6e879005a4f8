// service_unavailable (behaviour.md section 16): a provider a transfer
// request needs (the payout network's receiver look-up, the KYC provider,
// the FX provider) that throws or does not answer in time makes check,
// execute and the KYC look-up answer 503 service_unavailable, never a 500,
// and nothing is written: no transfer, no posting, no quote. The same
// request succeeds once the provider answers again. Driven through a
// stand-in connector (test/helpers/unreachable-lookups.ts), on both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, failure, transferBody } from '../helpers/transfers.ts';
import { lookups, resetUnreachableLookups, troubles } from '../helpers/unreachable-lookups.ts';

const STAND_IN = path.join(import.meta.dirname, '..', 'helpers', 'unreachable-lookups.ts');
const UNAVAILABLE = {
  receiver: failure('service_unavailable', 'the payout network (receiver look-up) did not answer; nothing was written; retry'),
  kyc: failure('service_unavailable', 'the KYC provider did not answer; nothing was written; retry'),
  fx: failure('service_unavailable', 'the FX provider (KES rate) did not answer; nothing was written; retry'),
};

for (const kind of STORE_KINDS) {
  describe(`unreachable providers (${kind})`, () => {
    let t: TestApp;
    let api: ReturnType<typeof caller>;
    let merchantId: string;

    before(async () => {
      t = await createTestApp(kind, {
        env: { PAYRAIL_PAYOUT_NETWORK: STAND_IN, PAYRAIL_KYC_PROVIDER: STAND_IN, PAYRAIL_FX_PROVIDER: STAND_IN },
      });
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      merchantId = merchant.merchant_id;
      api = caller(t.app, merchant.transfer_api_key);
    });
    beforeEach(() => resetUnreachableLookups());
    after(async () => {
      await t.close();
    });

    const transferCount = async () =>
      Number((await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM transfers WHERE merchant_id = ?', [merchantId])))!.n);
    const quoteCount = async (id: string) =>
      Number(
        (await t.service.db.read((tx) =>
          tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM quotes WHERE merchant_id = ? AND transfer_id = ?', [merchantId, id]),
        ))!.n,
      );

    for (const trouble of ['throw', 'hang'] as const) {
      it(`a receiver look-up that ${trouble}s: check and execute answer 503, nothing is written; the same id works afterwards`, async () => {
        const body = transferBody();
        troubles.receiver.set(body.receiver_phone, trouble);
        const start = await balances(t.service, merchantId);
        const transfers = await transferCount();
        assert.deepEqual(await api.check(body), { status: 503, body: UNAVAILABLE.receiver });
        assert.deepEqual(await api.execute(body), { status: 503, body: UNAVAILABLE.receiver });
        assert.equal(lookups.receiver, 2);
        assert.equal(await quoteCount(body.id), 0);
        assert.equal(await transferCount(), transfers);
        assert.deepEqual(await balances(t.service, merchantId), start);
        troubles.receiver.clear();
        assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
        await assertLedgerOk(t.service);
      });
    }

    it('a KYC look-up that fails: check, execute and GET /api/kyc answer 503', async () => {
      const body = transferBody();
      troubles.kyc.set(body.receiver_phone, 'throw');
      assert.deepEqual(await api.check(body), { status: 503, body: UNAVAILABLE.kyc });
      assert.deepEqual(await api.execute(body), { status: 503, body: UNAVAILABLE.kyc });
      assert.deepEqual(await api.kyc(body.receiver_phone.slice(1)), { status: 503, body: UNAVAILABLE.kyc });
      troubles.kyc.set(body.receiver_phone, 'hang');
      assert.deepEqual(await api.kyc(body.receiver_phone.slice(1)), { status: 503, body: UNAVAILABLE.kyc });
      troubles.kyc.clear();
      assert.equal((await api.kyc(body.receiver_phone.slice(1))).status, 200);
    });

    it('an FX provider that fails: check stores no quote, execute writes nothing; an execute with a valid quote needs no rate', async () => {
      const body = transferBody();
      troubles.fx.set('KES', 'throw');
      const start = await balances(t.service, merchantId);
      const transfers = await transferCount();
      assert.deepEqual(await api.check(body), { status: 503, body: UNAVAILABLE.fx });
      assert.equal(await quoteCount(body.id), 0);
      troubles.fx.set('KES', 'hang');
      assert.deepEqual(await api.execute(body), { status: 503, body: UNAVAILABLE.fx });
      assert.equal(await transferCount(), transfers);
      assert.deepEqual(await balances(t.service, merchantId), start);

      troubles.fx.clear();
      const quoted = transferBody();
      assert.equal((await api.check(quoted)).status, 200);
      troubles.fx.set('KES', 'throw');
      assert.deepEqual(await api.execute(quoted), { status: 200, body: created(quoted.id) });
      await assertLedgerOk(t.service);
    });

    it('a refusal the request earns before any look-up is still that refusal', async () => {
      const body = transferBody({ amount: '10.001' });
      troubles.receiver.set(body.receiver_phone, 'throw');
      assert.equal((await api.execute(body)).status, 400);
      assert.equal(lookups.receiver, 0);
    });
  });
}
