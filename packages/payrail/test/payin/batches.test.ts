// Settlement batches, authorization expiry and the transaction list
// (docs/api-decisions.md sections 10 and 14), on both stores: the worker closes
// batches daily at PAYRAIL_BATCH_CLOSE_UTC on the injected clock, `payrail
// batch close` closes them at once, authorizations expire after 7 days, and
// GET /api/v2/transactions filters by status, type and time, newest first,
// each item as GET /api/v2/transactions/:id shows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DAY_MS, ManualClock } from '../../src/domain/clock.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { runCliJson } from '../helpers/cli.ts';
import { chargeCard, closeSandboxBatch, getJson, operateOk, statusOf, verifyCard } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const HOUR_MS = 60 * 60_000;
const MARCH_10 = Date.UTC(2026, 2, 10);

for (const kind of STORE_KINDS) {
  describe(`settlement batches and the daily close (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_BATCH_CLOSE_UTC: '18:30' }, clock: new ManualClock(MARCH_10 + 12 * HOUR_MS) });
    });
    after(() => t.close());

    it('closes the open batch at the configured time, not before, and settles its transactions with that day as settled_date', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 10 });
      await t.worker.drain();
      t.clock.set(MARCH_10 + 18 * HOUR_MS + 29 * 60_000);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, sale), 'captured');
      t.clock.set(MARCH_10 + 18 * HOUR_MS + 31 * 60_000);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, sale), 'settled');
      assert.equal((await getJson(t, merchant, `/api/v2/transactions/${sale}`)).json().transaction.settled_date, '2026-03-10');

      // A capture after the close joins a new batch, which waits for the next day's close.
      const later = await chargeCard(t, merchant, { amount: 4 });
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, later), 'captured');
      t.clock.advance(DAY_MS);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, later), 'settled');
      const batches = (await getJson(t, merchant, '/api/v2/batches')).json() as Array<{ status: string; sales_amount: number }>;
      assert.deepEqual(
        batches.map((b) => [b.status, b.sales_amount]),
        [
          ['closed', 4],
          ['closed', 10],
        ],
      );
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('expires an authorization not captured within 7 days, on the worker, and not a moment before', async () => {
      const merchant = await t.newMerchant();
      const authorization = await chargeCard(t, merchant, { amount: 15, capture: false });
      t.clock.advance(7 * DAY_MS - 1);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, authorization), 'approved');
      t.clock.advance(1);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, authorization), 'expired');
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('payrail batch close closes the open batches at once', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 6 });
      const result = await runCliJson<{ batches: Array<{ id: number; sales_amount: number }> }>(
        ['batch', 'close', '--merchant', merchant.merchant_id],
        t.store.env,
      );
      assert.deepEqual(
        result.batches.map((b) => b.sales_amount),
        [6],
      );
      assert.equal(await statusOf(t, merchant, sale), 'settled');
      // Another merchant's batch reads as unknown.
      const other = await t.newMerchant();
      assert.equal((await getJson(t, other, `/api/v2/batches/${result.batches[0]!.id}`)).statusCode, 404);
      assert.equal((await getJson(t, other, `/api/v2/batches/${result.batches[0]!.id}/transactions`)).statusCode, 404);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('reads PAYRAIL_BATCH_CLOSE_UTC: 00:00 by default, a bad value is refused naming it', () => {
      assert.equal(loadConfig({}).batchCloseMinuteOfDay, 0);
      assert.equal(loadConfig({ PAYRAIL_BATCH_CLOSE_UTC: '23:59' }).batchCloseMinuteOfDay, 23 * 60 + 59);
      assert.throws(
        () => loadConfig({ PAYRAIL_BATCH_CLOSE_UTC: '24:00' }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /PAYRAIL_BATCH_CLOSE_UTC must be a UTC time of day as HH:MM/);
          return true;
        },
      );
    });
  });

  describe(`the transaction list (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MARCH_10) });
    });
    after(() => t.close());

    it('lists newest first with filters by status, type, date and time, limit and offset, each item as GET shows it', async () => {
      const merchant = await t.newMerchant();
      const at = (day: number, hour: number) => t.clock.set(MARCH_10 + day * DAY_MS + hour * HOUR_MS);
      at(0, 9);
      const settled = await chargeCard(t, merchant, { amount: 20 });
      await closeSandboxBatch(t, merchant);
      at(1, 9);
      const refund = (await operateOk(t, merchant, 'refund', { reference_number: settled, amount: 5 })).reference_number as number;
      at(1, 10);
      const authorization = await chargeCard(t, merchant, { amount: 7, capture: false });
      at(2, 9);
      const declined = await chargeCard(t, merchant, { card: '4000000000000002', amount: 3 });
      const failed = await chargeCard(t, merchant, { card: '4000000000000119', amount: 3 });
      at(2, 11);
      const verification = (await verifyCard(t, merchant)).json().reference_number as number;
      const refsOf = async (query: string) => {
        const response = await getJson(t, merchant, `/api/v2/transactions${query}`);
        assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
        return (response.json() as Array<{ reference_number?: number; id?: string }>).map((item) => item.reference_number ?? Number(item.id));
      };
      assert.deepEqual(await refsOf(''), [verification, failed, declined, authorization, refund, settled]);
      assert.deepEqual(await refsOf('?status=approved'), [verification, authorization]);
      assert.deepEqual(await refsOf('?status=settled'), [settled]);
      assert.deepEqual(await refsOf('?status=captured'), [refund]);
      assert.deepEqual(await refsOf('?status=declined'), [declined]);
      assert.deepEqual(await refsOf('?status=error'), [failed]);
      assert.deepEqual(await refsOf('?type=refund'), [refund]);
      assert.deepEqual(await refsOf('?type=verify'), [verification]);
      assert.deepEqual(await refsOf('?type=charge&status=approved'), [authorization]);
      assert.deepEqual(await refsOf('?date_from=2026-03-11&date_to=2026-03-11'), [authorization, refund]);
      assert.deepEqual(await refsOf('?date_from=2026-03-11T09:30:00Z'), [verification, failed, declined, authorization]);
      assert.deepEqual(await refsOf('?created_from=2026-03-11T09:00:00Z&created_to=2026-03-11T09:00:00Z'), [refund]);
      assert.deepEqual(await refsOf('?date_to=2026-03-10'), [settled]);
      assert.deepEqual(await refsOf('?limit=2&offset=1'), [failed, declined]);
      // Each item is exactly the transaction's own GET.
      const list = (await getJson(t, merchant, '/api/v2/transactions')).json() as unknown[];
      for (const [i, pk] of [verification, failed, declined, authorization, refund, settled].entries()) {
        assert.deepEqual(list[i], (await getJson(t, merchant, `/api/v2/transactions/${pk}`)).json());
      }
      // Another merchant sees none of them.
      assert.deepEqual(await (async () => (await getJson(t, await t.newMerchant(), '/api/v2/transactions')).json())(), []);
    });

    it('answers 10 by default and at most 100', async () => {
      const merchant = await t.newMerchant();
      for (let i = 1; i <= 12; i++) await chargeCard(t, merchant, { amount: i });
      assert.equal(((await getJson(t, merchant, '/api/v2/transactions')).json() as unknown[]).length, 10);
      assert.equal(((await getJson(t, merchant, '/api/v2/transactions?limit=100')).json() as unknown[]).length, 12);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
