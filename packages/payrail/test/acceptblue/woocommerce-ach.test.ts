// The WooCommerce accept.blue plugin's ACH gateway, replayed against a source
// in the acceptblue dialect on both stores (reference B.2): the checkout
// charges a routing and account number with ignore_duplicates, and the order
// waits on-hold; an hourly job lists transactions (order=asc, limit=100,
// date_from, date_to, offset) and reads each one's status_details (settled
// moves the order on, error fails it); a refund reads the transaction's
// status and created_at, and voids it before the next night or refunds it
// after five weekdays, succeeding only on status_code "A". The sandbox ACH
// clock (POST /sandbox/ach/advance) stands in for the days between.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { acceptBlueMerchant, type Loose, pluginCall } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const ROUTING = '021000021';
const BILLING = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  street: '1 Main St',
  street2: '',
  city: 'New York',
  state: 'NY',
  zip: '10001',
  country: 'US',
  phone: '5551234567',
  email: 'ada@example.com',
};
const SHIPPING = { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', street2: '', city: 'New York', state: 'NY', zip: '10001', country: 'US' };

/** The plugin's ACH checkout body. */
function achCheckout(orderId: number, amount: number, accountNumber: string): Record<string, unknown> {
  return {
    name: 'Ada Lovelace',
    ignore_duplicates: true,
    customer: { email: 'ada@example.com' },
    amount,
    amount_details: { tax: 1.5 },
    routing_number: ROUTING,
    // (string) (int): the plugin casts, so leading zeros are lost; the digits arrive as a string.
    account_number: String(Number(accountNumber)),
    billing_info: BILLING,
    shipping_info: SHIPPING,
    transaction_details: { order_number: String(orderId) },
  };
}

const isoSeconds = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

for (const kind of STORE_KINDS) {
  describe(`the WooCommerce plugin's ACH gateway (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    async function checkout(merchant: CreatedMerchant, orderId: number, amount: number, accountNumber: string): Promise<number> {
      const answer = await pluginCall(t, merchant, 'POST', 'transactions/charge', achCheckout(orderId, amount, accountNumber));
      assert.equal(answer.body?.status_code, 'A', answer.text);
      assert.equal(typeof answer.body.reference_number, 'number');
      assert.doesNotMatch(answer.text, new RegExp(String(Number(accountNumber))), 'the full account number is never answered');
      return answer.body.reference_number;
    }

    /** The hourly job: every page of the window, as the plugin reads it (id -> status, error_message). */
    async function cron(merchant: CreatedMerchant, fromMs: number, toMs: number): Promise<Map<number, { status: string; error: string | null }>> {
      const seen = new Map<number, { status: string; error: string | null }>();
      for (let page = 0; page < 10; page += 1) {
        const query = `order=asc&limit=100&date_from=${isoSeconds(fromMs)}&date_to=${isoSeconds(toMs)}&offset=${page * 100}`;
        const answer = await pluginCall(t, merchant, 'GET', `transactions?${query}`);
        assert.equal(answer.status, 200, answer.text);
        assert.ok(Array.isArray(answer.body), 'the list is a bare array');
        for (const row of answer.body as Loose[]) seen.set(row.id, { status: row.status_details.status, error: row.status_details.error_message ?? null });
        if (answer.body.length < 100) break;
      }
      return seen;
    }

    async function advance(merchant: CreatedMerchant, businessDays: number): Promise<void> {
      const response = await t.app.inject({
        method: 'POST',
        url: '/sandbox/ach/advance',
        headers: { 'api-key': merchant.transfer_api_key, 'content-type': 'application/json' },
        payload: JSON.stringify({ business_days: businessDays }),
      });
      assert.equal(response.statusCode, 200, response.body);
    }

    async function balances(merchant: CreatedMerchant): Promise<Record<string, number>> {
      const rows = await t.service.db.read((tx) =>
        tx.all<{ kind: string; balance_cents: number | string }>('SELECT kind, balance_cents FROM accounts WHERE merchant_id = ?', [merchant.merchant_id]),
      );
      return Object.fromEntries(rows.map((row) => [row.kind, Number(row.balance_cents)]));
    }

    it('checkout on-hold, the hourly job sees pending then settled, and the merchant is credited on settlement only', async () => {
      const merchant = await acceptBlueMerchant(t, 0);
      const fromMs = t.clock.nowMs() - 60_000;
      const settling = await checkout(merchant, 501, 25.5, '000123456789');
      const returning = await checkout(merchant, 502, 10, '555550002');
      const toMs = t.clock.nowMs() + 60_000;

      let seen = await cron(merchant, fromMs, toMs);
      assert.deepEqual(seen.get(settling), { status: 'pending', error: seen.get(settling)?.error ?? null });
      assert.equal(seen.get(returning)?.status, 'pending');
      assert.deepEqual(await balances(merchant).then((b) => [b.available, b.ach_pending]), [0, 3550]);

      await advance(merchant, 1);
      seen = await cron(merchant, fromMs, toMs);
      assert.equal(seen.get(settling)?.status, 'originated');
      await advance(merchant, 2);
      seen = await cron(merchant, fromMs, toMs);
      assert.equal(seen.get(settling)?.status, 'settled', 'settled: the plugin moves the order to processing');
      assert.equal(seen.get(returning)?.status, 'returned');
      assert.match(String(seen.get(returning)?.error), /Account closed/);
      const after = await balances(merchant);
      assert.deepEqual([after.available, after.ach_pending], [2550, 0], 'credited on settlement; the returned check never was');
      const report = await verifyLedger(t.service.db);
      assert.equal(report.ok, true, report.problems.join('\n'));
    });

    it('refund by date: void before origination, refund once settled and five business days old; each answers status_code A', async () => {
      const merchant = await acceptBlueMerchant(t, 0);
      const voiding = await checkout(merchant, 601, 12, '4444333322221111');
      const read = await pluginCall(t, merchant, 'GET', `transactions/${voiding}`);
      assert.equal(read.body.status_details.status, 'pending');
      assert.equal(typeof read.body.created_at, 'string');
      const voided = await pluginCall(t, merchant, 'POST', 'transactions/void', { reference_number: voiding });
      assert.equal(voided.body?.status_code, 'A', voided.text);
      assert.equal((await pluginCall(t, merchant, 'GET', `transactions/${voiding}`)).body.status_details.status, 'voided');

      const refunding = await checkout(merchant, 602, 40, '4444333322221111');
      const early = await pluginCall(t, merchant, 'POST', 'transactions/refund', { reference_number: refunding, amount: 15 });
      assert.notEqual(early.body?.status_code, 'A', 'a pending check is not refunded');
      assert.ok(String(early.body?.error_message ?? '') !== '', early.text);
      await advance(merchant, 6);
      assert.equal((await pluginCall(t, merchant, 'GET', `transactions/${refunding}`)).body.status_details.status, 'settled');
      const refunded = await pluginCall(t, merchant, 'POST', 'transactions/refund', { reference_number: refunding, amount: 15 });
      assert.equal(refunded.body?.status_code, 'A', refunded.text);
      const after = await balances(merchant);
      assert.deepEqual([after.available, after.ach_pending], [2500, 0], '40.00 settled, 15.00 refunded to the account');
      const report = await verifyLedger(t.service.db);
      assert.equal(report.ok, true, report.problems.join('\n'));
    });
  });
}
