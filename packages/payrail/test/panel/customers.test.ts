// Stored customers in the control panel (docs/api-decisions.md section 15),
// on both stores: the customer list, a customer with its saved cards,
// schedules and transactions, a schedule's run history, pausing and
// resuming it (CSRF-checked posts), and merchant scoping of every page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient, textOf } from '../helpers/panel.ts';
import { callOk, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';
const DAY_MS = 86_400_000;

function rowsOf(body: string, caption: string): string[][] {
  const table = new RegExp(`<caption class="visually-hidden">${caption}</caption>[\\s\\S]*?<tbody>([\\s\\S]*?)</tbody>`).exec(body);
  if (table === null) return [];
  return [...table[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      decodeEntities(
        cell[1]!
          .replace(/<[^>]+>/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    ),
  );
}

for (const kind of STORE_KINDS) {
  describe(`panel: customers, saved cards and schedules (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let other: CreatedMerchant;
    let panel: PanelClient;
    let customerId = 0;
    let scheduleId = 0;
    let theirCustomerId = 0;
    let theirScheduleId = 0;

    before(async () => {
      t = await createTestApp(kind);
      t.clock.set(Date.UTC(2030, 0, 15, 12));
      shop = await t.newMerchant({ name: 'Shop' });
      other = await t.newMerchant({ name: 'Other' });
      await createUser({ db: t.service.db, clock: t.clock }, { email: 'shop@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      const customer = await newCustomer(t, shop, { customer_number: 'C-9', email: 'ada@example.com' });
      customerId = customer.id;
      const method = await saveCardFor(t, shop, customer.id, '4111111111111111', { name: 'Ada L' });
      const schedule = await callOk(
        t,
        shop,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        {
          title: 'Coffee club',
          amount: 9.99,
          frequency: 'weekly',
          next_run_date: '2030-01-15',
          num_left: 3,
          payment_method_id: method.id,
        },
        201,
      );
      scheduleId = schedule.id;
      await t.worker.drain();
      const theirs = await newCustomer(t, other, { identifier: 'Not yours' });
      theirCustomerId = theirs.id;
      const theirMethod = await saveCardFor(t, other, theirs.id);
      theirScheduleId = (
        await callOk(
          t,
          other,
          'POST',
          `/api/v2/customers/${theirs.id}/recurring-schedules`,
          {
            title: 'Theirs',
            amount: 1,
            frequency: 'daily',
            next_run_date: '2030-01-20',
            payment_method_id: theirMethod.id,
          },
          201,
        )
      ).id;
      panel = new PanelClient(t.app);
      assert.equal((await panel.signIn('shop@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it("lists the merchant's customers and shows one with its saved cards, schedules and transactions", async () => {
      const list = await panel.get('/dashboard/customers');
      assert.equal(list.status, 200);
      assert.deepEqual(
        rowsOf(list.body, 'Customers, oldest first').map((r) => r.slice(0, 5)),
        [[String(customerId), 'Ada Lovelace', 'C-9', 'ada@example.com', 'yes']],
      );
      const page = await panel.get(`/dashboard/customers/${customerId}`);
      assert.equal(page.status, 200);
      const cards = rowsOf(page.body, 'Saved cards');
      assert.deepEqual(
        cards.map((r) => r.slice(0, 4)),
        [[cards[0]![0]!, 'Visa ···· 1111', '12/2035', 'Ada L']],
      );
      assert.match(cards[0]![0]!, /^pm-[0-9]+$/);
      assert.deepEqual(rowsOf(page.body, 'Recurring schedules'), [[String(scheduleId), 'Coffee club', '9.99 USD', 'weekly', '2030-01-22', '2', 'active']]);
      const transactions = rowsOf(page.body, 'Latest transactions');
      assert.equal(transactions.length, 1);
      assert.deepEqual(transactions[0]!.slice(1, 5), ['captured', '9.99 USD', 'Visa ···· 1111', String(scheduleId)]);
      // The charge's own page links back to its customer and schedule.
      const charge = await panel.get(`/dashboard/charges/${transactions[0]![0]}`);
      assert.match(charge.body, new RegExp(`<dt>Customer</dt><dd><a href="/dashboard/customers/${customerId}">`));
      assert.match(charge.body, new RegExp(`<dt>Recurring schedule</dt><dd><a href="/dashboard/schedules/${scheduleId}">`));
    });

    it('shows a schedule with its run history, pauses and resumes it', async () => {
      const page = await panel.get(`/dashboard/schedules/${scheduleId}`);
      assert.equal(page.status, 200);
      const history = rowsOf(page.body, 'Run history, newest first');
      assert.deepEqual(
        history.map((r) => [r[0], r[2], r[3]]),
        [['2030-01-15', 'approved', '9.99 USD']],
      );
      const paused = await panel.post(`/dashboard/schedules/${scheduleId}/pause`);
      assert.equal(paused.status, 303);
      assert.equal(paused.location, `/dashboard/schedules/${scheduleId}?notice=schedule_paused`);
      const after = await panel.get(paused.location!);
      assert.equal(textOf(after.body, 'notice'), 'Schedule paused. It charges nothing until it is resumed.');
      assert.match(after.body, /Resume schedule/);
      assert.equal((await callOk(t, shop, 'GET', `/api/v2/recurring-schedules/${scheduleId}`)).active, false);
      // Paused: the next date passes with no charge (a week on, the session has ended: sign in again).
      t.clock.advance(8 * DAY_MS);
      await t.worker.drain();
      panel = new PanelClient(t.app);
      assert.equal((await panel.signIn('shop@example.com', PASSWORD)).status, 303);
      assert.equal(rowsOf((await panel.get(`/dashboard/schedules/${scheduleId}`)).body, 'Run history, newest first').length, 1);
      const resumed = await panel.post(`/dashboard/schedules/${scheduleId}/resume`);
      assert.equal(resumed.location, `/dashboard/schedules/${scheduleId}?notice=schedule_resumed`);
      await t.worker.drain();
      const runs = rowsOf((await panel.get(`/dashboard/schedules/${scheduleId}`)).body, 'Run history, newest first');
      assert.deepEqual(
        runs.map((r) => r[0]),
        ['2030-01-22', '2030-01-15'],
      );
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('refuses a post without the CSRF token, changing nothing', async () => {
      const refused = await panel.post(`/dashboard/schedules/${scheduleId}/pause`, {}, { csrf: false });
      assert.equal(refused.status, 403);
      assert.equal((await callOk(t, shop, 'GET', `/api/v2/recurring-schedules/${scheduleId}`)).active, true);
    });

    it("answers another merchant's customer and schedule as not found, and changes nothing", async () => {
      assert.equal((await panel.get(`/dashboard/customers/${theirCustomerId}`)).status, 404);
      assert.equal((await panel.get(`/dashboard/schedules/${theirScheduleId}`)).status, 404);
      assert.equal((await panel.post(`/dashboard/schedules/${theirScheduleId}/pause`)).status, 404);
      assert.equal((await callOk(t, other, 'GET', `/api/v2/recurring-schedules/${theirScheduleId}`)).active, true);
      assert.equal((await panel.get('/dashboard/customers/abc')).status, 404);
      const list = await panel.get('/dashboard/customers');
      assert.doesNotMatch(list.body, /Not yours/);
    });
  });
}
