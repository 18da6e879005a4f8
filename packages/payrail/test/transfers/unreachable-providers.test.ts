// service_unavailable (behaviour.md section 16): a provider a transfer
// request needs (the payout network's receiver look-up, the KYC provider,
// the FX provider) that throws or does not answer in time makes check,
// execute and the KYC look-up answer 503 service_unavailable, never a 500,
// and nothing is written: no transfer, no posting, no quote. The same
// request succeeds once the provider answers again. A hung provider is
// answered within its look-up deadline; one that keeps failing opens its
// circuit breaker, which refuses without calling it, the same 503. Driven
// through a stand-in connector (test/helpers/unreachable-lookups.ts), on both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BREAKER_DEFAULTS } from '../../src/providers/breaker.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, failure, transferBody } from '../helpers/transfers.ts';
import { LOOKUP_DEADLINE_MS, lookups, resetUnreachableLookups, troubles } from '../helpers/unreachable-lookups.ts';

const STAND_IN = path.join(import.meta.dirname, '..', 'helpers', 'unreachable-lookups.ts');
/**
 * How long a request waiting on a hung look-up may take in all: the
 * connector's LOOKUP_DEADLINE_MS plus ample room for a loaded CI machine.
 * Without a deadline the request would never answer.
 */
const ANSWERED_WITHIN_MS = LOOKUP_DEADLINE_MS + 2_000;

async function withinDeadline<T>(request: () => Promise<T>): Promise<T> {
  const startMs = performance.now();
  const answer = await request();
  const tookMs = performance.now() - startMs;
  assert.ok(tookMs < ANSWERED_WITHIN_MS, `answered after ${Math.round(tookMs)} ms`);
  return answer;
}
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

    it('a KYC provider that hangs: check and execute answer 503 within the look-up deadline, nothing is written', async () => {
      const body = transferBody();
      troubles.kyc.set(body.receiver_phone, 'hang');
      const start = await balances(t.service, merchantId);
      const transfers = await transferCount();
      assert.deepEqual(await withinDeadline(() => api.check(body)), { status: 503, body: UNAVAILABLE.kyc });
      assert.deepEqual(await withinDeadline(() => api.execute(body)), { status: 503, body: UNAVAILABLE.kyc });
      assert.equal(await quoteCount(body.id), 0);
      assert.equal(await transferCount(), transfers);
      assert.deepEqual(await balances(t.service, merchantId), start);
      troubles.kyc.clear();
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
    });

    it('an FX provider that fails: check stores no quote, execute writes nothing; an execute with a valid quote needs no rate', async () => {
      const body = transferBody();
      troubles.fx.set('KES', 'throw');
      const start = await balances(t.service, merchantId);
      const transfers = await transferCount();
      assert.deepEqual(await api.check(body), { status: 503, body: UNAVAILABLE.fx });
      assert.equal(await quoteCount(body.id), 0);
      troubles.fx.set('KES', 'hang');
      assert.deepEqual(await withinDeadline(() => api.check(body)), { status: 503, body: UNAVAILABLE.fx });
      assert.equal(await quoteCount(body.id), 0);
      assert.deepEqual(await withinDeadline(() => api.execute(body)), { status: 503, body: UNAVAILABLE.fx });
      assert.equal(await transferCount(), transfers);
      assert.deepEqual(await balances(t.service, merchantId), start);

      troubles.fx.clear();
      const quoted = transferBody();
      assert.equal((await api.check(quoted)).status, 200);
      troubles.fx.set('KES', 'throw');
      assert.deepEqual(await api.execute(quoted), { status: 200, body: created(quoted.id) });
      await assertLedgerOk(t.service);
    });

    // Last: the FX connector's breaker stays open for the rest of this app's life.
    it('an FX provider that keeps failing opens its breaker: look-ups are refused without calling it, still 503 with nothing written', async () => {
      // A rate answered first, so the failures below are the only ones in a row.
      assert.equal((await api.check(transferBody())).status, 200);
      troubles.fx.set('KES', 'throw');
      for (let i = 0; i < BREAKER_DEFAULTS.consecutiveFailuresMax; i++) {
        assert.deepEqual(await api.check(transferBody()), { status: 503, body: UNAVAILABLE.fx });
      }
      assert.equal(lookups.fx, 1 + BREAKER_DEFAULTS.consecutiveFailuresMax);
      troubles.fx.clear();
      const body = transferBody();
      const transfers = await transferCount();
      assert.deepEqual(await api.check(body), { status: 503, body: UNAVAILABLE.fx });
      assert.deepEqual(await api.execute(body), { status: 503, body: UNAVAILABLE.fx });
      assert.equal(lookups.fx, 1 + BREAKER_DEFAULTS.consecutiveFailuresMax, 'an open breaker sends nothing');
      assert.equal(await quoteCount(body.id), 0);
      assert.equal(await transferCount(), transfers);
    });

    it('a refusal the request earns before any look-up is still that refusal', async () => {
      const body = transferBody({ amount: '10.001' });
      troubles.receiver.set(body.receiver_phone, 'throw');
      assert.equal((await api.execute(body)).status, 400);
      assert.equal(lookups.receiver, 0);
    });
  });
}
