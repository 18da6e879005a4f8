// How check transactions read in lists (behaviour.md section 17): the
// payment_type filter, the status filter by entry state in both dialects,
// and WooCommerce's hourly ACH job (GET /transactions?order=asc&limit=100
// &date_from=...&date_to=...&offset=N), which reads id,
// status_details.status and, for a returned check, status_details
// .error_message. Card transactions keep their card_details. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { EVENT_VIEWS } from '../../src/flows/events/emit.ts';
import { returnAchEntry } from '../../src/store/ach/transitions.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { acceptBlueMerchant } from '../helpers/acceptblue.ts';
import { chargeCard } from '../helpers/lifecycle.ts';
import { caller, failure, transferBody } from '../helpers/transfers.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { achBalances, chargeCheck, get, MONDAY_10_UTC_MS, originateAndSettle } from './check-helpers.ts';

type Item = {
  id: number;
  status_details: { status: string; error_message: string | null };
  card_details?: unknown;
  check_details?: { returned_code: string | null; returned_at: string | null };
};

for (const kind of STORE_KINDS) {
  describe(`check transactions in lists (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MONDAY_10_UTC_MS) });
    });
    after(() => t.close());

    it("filters by payment_type and by the check's entry status; WooCommerce's hourly job reads settled and returned checks", async () => {
      const merchant = await acceptBlueMerchant(t, 100_000);
      const card = await chargeCard(t, merchant, { amount: 7 });
      const pending = (await chargeCheck(t, merchant)).reference_number;
      const settled = (await chargeCheck(t, merchant, { amount: 30 })).reference_number;
      const returned = (await chargeCheck(t, merchant, { amount: 40, account_number: '77770002' })).reference_number;
      // The returned one first: the merchant's ACH clock only moves forward.
      await originateAndSettle(t, merchant, returned, 'originated');
      const moved = await returnAchEntry(t.service.db, {
        chargePk: returned,
        merchantId: merchant.merchant_id,
        nowMs: t.clock.nowMs(),
        views: EVENT_VIEWS,
        nextCheckAtMs: null,
        returnedAtMs: Date.UTC(2026, 11, 1, 21, 0, 0),
        returnCode: 'R02',
        returnReason: 'Account closed',
      });
      assert.equal(moved.kind, 'moved');
      await originateAndSettle(t, merchant, settled, 'settled');

      const list = async (query: string): Promise<Item[]> => {
        const response = await get(t, merchant, `/api/v2/transactions?${query}`);
        assert.equal(response.statusCode, 200, response.body);
        return response.json() as Item[];
      };
      const ids = (items: Item[]) => items.map((item) => item.id);
      assert.deepEqual(ids(await list('payment_type=check&order=asc')), [pending, settled, returned]);
      assert.deepEqual(ids(await list('payment_type=credit_card')), [card]);
      assert.deepEqual(ids(await list('payment_type=credit_card,check&order=asc')), [card, pending, settled, returned]);
      assert.deepEqual(ids(await list('status=pending')), [pending]);
      assert.deepEqual(ids(await list('status=settled')), [settled]);
      assert.deepEqual(ids(await list('status=returned')), [returned]);
      assert.deepEqual(ids(await list('status=captured')), [card]);
      assert.deepEqual(ids(await list('status=originated')), []);

      // WooCommerce's hourly ACH job, as it pages.
      const from = new Date(MONDAY_10_UTC_MS - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const to = new Date(MONDAY_10_UTC_MS + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const page = await list(`order=asc&limit=100&date_from=${from}&date_to=${to}&offset=0`);
      const byId = new Map(page.map((item) => [item.id, item]));
      assert.equal(byId.get(settled)!.status_details.status, 'settled');
      assert.equal(byId.get(pending)!.status_details.status, 'pending');
      assert.deepEqual(byId.get(returned)!.status_details, { status: 'returned', error_code: 'R02', error_message: 'Account closed' });
      assert.equal(byId.get(returned)!.check_details!.returned_code, 'R02');
      assert.equal(byId.get(returned)!.check_details!.returned_at, '2026-12-01');
      assert.equal(byId.get(card)!.check_details, undefined);
      assert.notEqual(byId.get(card)!.card_details, undefined);
      assert.deepEqual(await list(`order=asc&limit=100&date_from=${from}&date_to=${to}&offset=100`), []);

      // The returned check gave its money back before settling; the settled one is available.
      assert.deepEqual(await achBalances(t, merchant.merchant_id), {
        available: 100_000 + 700 + 3000,
        ach_pending: 2500,
        ach_payins: -5500,
        ach_returns_due: 0,
      });
    });

    it('spec dialect: the status filter takes originated and returned; a check shows check_details and a null batch', async () => {
      const merchant = await t.newMerchant({ fundCents: 0 });
      const pk = (await chargeCheck(t, merchant)).reference_number;
      await originateAndSettle(t, merchant, pk, 'originated');
      const response = await get(t, merchant, '/api/v2/transactions?status=originated');
      assert.equal(response.statusCode, 200, response.body);
      const items = response.json() as Array<{
        reference_number: number;
        transaction: { status_details: { status: string }; transaction_details: { batch_id: number | null } };
      }>;
      assert.deepEqual(
        items.map((item) => item.reference_number),
        [pk],
      );
      assert.equal(items[0]!.transaction.status_details.status, 'originated');
      assert.equal(items[0]!.transaction.transaction_details.batch_id, null);
    });

    it('refuses a settled check as a gatewayId: only card payins fund transfers', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const pk = (await chargeCheck(t, merchant, { amount: 60 })).reference_number;
      await originateAndSettle(t, merchant, pk, 'settled');
      const api = caller(t.app, merchant.transfer_api_key);
      const body = transferBody({ amount: '10.00', attribute: [{ name: 'gatewayId', value: String(pk) }] });
      assert.deepEqual(await api.execute(body), {
        status: 400,
        body: failure('invalid_request', `attribute gatewayId ${pk} names a check (ACH) payment; only card payins can fund a transfer`),
      });
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: 16_000, ach_pending: 0, ach_payins: -6000, ach_returns_due: 0 });
    });

    it('leaves ledger verify clean after check money moved', async () => {
      const report = await verifyLedger(t.service.db);
      assert.deepEqual(report.problems, []);
    });
  });
}
