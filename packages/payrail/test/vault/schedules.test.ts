// Recurring schedules over HTTP (docs/api-decisions.md section 15), on both
// stores: every endpoint and refusal, the worker charging due schedules once
// per run date (UTC) with `transaction_details.schedule_id`, num_left
// counting down to finished, a decline retried on the next 3 days and then
// failed, pause and resume, and the sandbox run; the ledger verifies after each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents } from '../helpers/lifecycle.ts';
import { shapeC } from '../helpers/payin.ts';
import { call, callOk, dayOf, type Json, newCustomer, runScheduleNow, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const DAY_MS = 86_400_000;
/** Noon UTC, so the test's day is the same day whatever the time zone. */
const START_MS = Date.UTC(2030, 0, 31, 12);

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

async function scheduleFor(t: TestApp, merchant: CreatedMerchant, card = '4111111111111111', fields: Record<string, unknown> = {}) {
  const customer = await newCustomer(t, merchant);
  const method = await saveCardFor(t, merchant, customer.id, card);
  const schedule = await callOk(
    t,
    merchant,
    'POST',
    `/api/v2/customers/${customer.id}/recurring-schedules`,
    {
      title: 'Coffee club',
      amount: 9.99,
      frequency: 'monthly',
      next_run_date: dayOf(t),
      num_left: 0,
      payment_method_id: method.id,
      ...fields,
    },
    201,
  );
  return { customer, method, schedule };
}

/** The schedule events of this schedule, oldest first, as `type` names (docs/api-decisions.md section 15). */
async function scheduleEventsOf(t: TestApp, merchant: CreatedMerchant, scheduleId: number): Promise<string[]> {
  const page = (await callOk(t, merchant, 'GET', '/api/v2/events?limit=100')) as unknown as { data: Array<{ type: string; data: { id?: number } }> };
  return page.data
    .filter((event) => event.type.startsWith('schedule.') && event.data.id === scheduleId)
    .map((event) => event.type)
    .reverse();
}

async function transactionsOf(t: TestApp, merchant: CreatedMerchant, scheduleId: number) {
  return (await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${scheduleId}/transactions?limit=100`)) as Json[];
}

for (const kind of STORE_KINDS) {
  describe(`recurring schedules (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('creates, reads, lists, updates and deletes a schedule', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { customer, method, schedule } = await scheduleFor(t, merchant, '4111111111111111', { next_run_date: dayOf(t, 5), num_left: 12 });
      assert.deepEqual(schedule, {
        id: schedule.id,
        customer_id: customer.id,
        title: 'Coffee club',
        receipt_email: null,
        amount: 9.99,
        frequency: 'monthly',
        next_run_date: '2030-02-05',
        num_left: 12,
        payment_method_id: method.id,
        active: true,
        status: 'active',
        created_at: new Date(START_MS).toISOString(),
      });
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`), schedule);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/recurring-schedules`), [schedule]);
      const second = await saveCardFor(t, merchant, customer.id, '5555555555554444');
      const updated = await callOk(t, merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, {
        amount: 12.5,
        frequency: 'weekly',
        next_run_date: '2030-02-10',
        payment_method_id: second.id,
        active: false,
      });
      assert.deepEqual(updated, {
        ...schedule,
        amount: 12.5,
        frequency: 'weekly',
        next_run_date: '2030-02-10',
        payment_method_id: second.id,
        active: false,
      });
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}/transactions`), []);
      assert.equal(await callOk(t, merchant, 'DELETE', `/api/v2/recurring-schedules/${schedule.id}`, undefined, 204), undefined);
      assert.equal((await call(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`)).statusCode, 404);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/recurring-schedules`), []);
      await ledgerClean(t);
    });

    it("refuses bad frequencies, past dates, another customer's method (400 naming the field) and unknown or foreign ids (404), changing nothing", async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      const { customer, method, schedule } = await scheduleFor(t, merchant);
      const neighbour = await newCustomer(t, merchant, { identifier: 'Neighbour' });
      const neighbourMethod = await saveCardFor(t, merchant, neighbour.id, '5555555555554444');
      const theirs = await scheduleFor(t, other);
      const base = { title: 'Plan', amount: 5, frequency: 'monthly', next_run_date: dayOf(t), payment_method_id: method.id };
      const url = `/api/v2/customers/${customer.id}/recurring-schedules`;
      const refusals: Array<[string, string, unknown, number, unknown]> = [
        [
          'POST',
          url,
          { ...base, frequency: 'fortnightly' },
          400,
          shapeC('invalid_request', 'frequency must be one of daily, weekly, biweekly, monthly, bimonthly, quarterly, biannually, annually'),
        ],
        ['POST', url, { ...base, next_run_date: dayOf(t, -1) }, 400, shapeC('invalid_request', 'next_run_date must be today (2030-01-31, UTC) or later')],
        ['POST', url, { ...base, next_run_date: '2030-02-30' }, 400, shapeC('invalid_request', 'next_run_date must be a date written YYYY-MM-DD')],
        [
          'POST',
          url,
          { ...base, payment_method_id: neighbourMethod.id },
          400,
          shapeC('invalid_request', `payment_method_id ${neighbourMethod.id} is not a payment method of customer ${customer.id}`),
        ],
        ['POST', url, { ...base, amount: 0.1 }, 400, shapeC('invalid_amount', 'amount must be at least 0.50')],
        ['POST', url, { ...base, num_left: -1 }, 400, shapeC('invalid_request', 'num_left must be >= 0')],
        ['POST', url, { ...base, payment_method_id: theirs.method.id }, 404, shapeC('not_found', `payment method ${theirs.method.id} not found`)],
        ['POST', `/api/v2/customers/${theirs.customer.id}/recurring-schedules`, base, 404, shapeC('not_found', `customer ${theirs.customer.id} not found`)],
        [
          'PATCH',
          `/api/v2/recurring-schedules/${schedule.id}`,
          { frequency: 'hourly' },
          400,
          shapeC('invalid_request', 'frequency must be one of daily, weekly, biweekly, monthly, bimonthly, quarterly, biannually, annually'),
        ],
        [
          'PATCH',
          `/api/v2/recurring-schedules/${schedule.id}`,
          { next_run_date: '2029-12-31' },
          400,
          shapeC('invalid_request', 'next_run_date must be today (2030-01-31, UTC) or later'),
        ],
        [
          'PATCH',
          `/api/v2/recurring-schedules/${schedule.id}`,
          { payment_method_id: neighbourMethod.id },
          400,
          shapeC('invalid_request', `payment_method_id ${neighbourMethod.id} is not a payment method of customer ${customer.id}`),
        ],
        [
          'PATCH',
          `/api/v2/recurring-schedules/${theirs.schedule.id}`,
          { amount: 1 },
          404,
          shapeC('not_found', `recurring schedule ${theirs.schedule.id} not found`),
        ],
        ['GET', `/api/v2/recurring-schedules/${theirs.schedule.id}`, undefined, 404, shapeC('not_found', `recurring schedule ${theirs.schedule.id} not found`)],
        [
          'DELETE',
          `/api/v2/recurring-schedules/${theirs.schedule.id}`,
          undefined,
          404,
          shapeC('not_found', `recurring schedule ${theirs.schedule.id} not found`),
        ],
        [
          'GET',
          `/api/v2/recurring-schedules/${theirs.schedule.id}/transactions`,
          undefined,
          404,
          shapeC('not_found', `recurring schedule ${theirs.schedule.id} not found`),
        ],
        ['GET', `/api/v2/customers/${theirs.customer.id}/recurring-schedules`, undefined, 404, shapeC('not_found', `customer ${theirs.customer.id} not found`)],
        ['GET', '/api/v2/recurring-schedules/x1', undefined, 404, shapeC('not_found', 'recurring schedule x1 not found')],
      ];
      for (const [method_, target, body, status, expected] of refusals) {
        const response = await call(t, merchant, method_ as 'POST', target, body);
        assert.equal(response.statusCode, status, `${method_} ${target} ${JSON.stringify(body)}: ${response.body}`);
        assert.deepEqual(response.json(), expected);
      }
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/customers/${customer.id}/recurring-schedules`), [schedule]);
      assert.deepEqual(await callOk(t, other, 'GET', `/api/v2/recurring-schedules/${theirs.schedule.id}`), theirs.schedule);
      const sandbox = await runScheduleNow(t, merchant, theirs.schedule.id);
      assert.equal(sandbox.statusCode, 404);
      await ledgerClean(t);
    });

    it('the worker charges a due schedule once per run date, records schedule_id, and moves on one period', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { schedule } = await scheduleFor(t, merchant, '4111111111111111', { num_left: 0 });
      await t.worker.drain();
      await t.worker.drain();
      const first = await transactionsOf(t, merchant, schedule.id);
      assert.equal(first.length, 1);
      assert.equal(first[0]!.status, 'Approved');
      assert.equal(first[0]!.transaction.transaction_details.schedule_id, String(schedule.id));
      assert.equal(first[0]!.transaction.transaction_details.description, 'Coffee club');
      assert.equal(first[0]!.transaction.amount_details.amount, 9.99);
      // Jan 31 monthly: next Feb 28, then Mar 31 (counted from the cycle date).
      const moved = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
      assert.equal(moved.next_run_date, '2030-02-28');
      assert.equal(moved.num_left, 0);
      assert.equal(moved.status, 'active');
      t.clock.advance(27 * DAY_MS);
      await t.worker.drain();
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 1, 'Feb 27 is not due');
      t.clock.advance(DAY_MS);
      await t.worker.drain();
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 2);
      assert.equal((await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`)).next_run_date, '2030-03-31');
      assert.equal(await availableCents(t, merchant.merchant_id), 2 * 999);
      await ledgerClean(t);
    });

    it('counts num_left down and finishes at 0, inactive', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { schedule } = await scheduleFor(t, merchant, '4111111111111111', { num_left: 2, frequency: 'daily' });
      await t.worker.drain();
      assert.equal((await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`)).num_left, 1);
      t.clock.advance(DAY_MS);
      await t.worker.drain();
      const finished = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
      assert.deepEqual([finished.num_left, finished.status, finished.active], [0, 'finished', false]);
      t.clock.advance(DAY_MS);
      await t.worker.drain();
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 2);
      // Resuming a finished schedule needs a number of runs (0 would mean unlimited).
      const resume = await call(t, merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { active: true });
      assert.deepEqual([resume.statusCode, resume.json()], [400, shapeC('invalid_request', 'num_left is required to resume a finished schedule')]);
      assert.deepEqual(await scheduleEventsOf(t, merchant, schedule.id), ['schedule.charged', 'schedule.charged', 'schedule.finished']);
      await ledgerClean(t);
    });

    it('a declined run is retried on each of the next 3 days, then the schedule fails and stops', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { schedule } = await scheduleFor(t, merchant, '4000000000000002', { frequency: 'weekly' });
      await t.worker.drain();
      let current = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
      assert.deepEqual([current.status, current.next_run_date, current.active], ['declined', '2030-02-01', true]);
      for (const day of ['2030-02-02', '2030-02-03']) {
        t.clock.advance(DAY_MS);
        await t.worker.drain();
        current = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
        assert.deepEqual([current.status, current.next_run_date], ['declined', day]);
      }
      t.clock.advance(DAY_MS);
      await t.worker.drain();
      current = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
      assert.deepEqual([current.status, current.active], ['failed', false]);
      t.clock.advance(DAY_MS);
      await t.worker.drain();
      const transactions = await transactionsOf(t, merchant, schedule.id);
      assert.equal(transactions.length, 4);
      assert.ok(transactions.every((tx) => tx.status === 'declined'));
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      assert.deepEqual(await scheduleEventsOf(t, merchant, schedule.id), ['schedule.declined', 'schedule.declined', 'schedule.declined', 'schedule.failed']);
      await ledgerClean(t);
    });

    it('a paused schedule is not charged; resumed, it is', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { schedule } = await scheduleFor(t, merchant);
      await callOk(t, merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { active: false });
      await t.worker.drain();
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 0);
      const paused = await runScheduleNow(t, merchant, schedule.id);
      assert.deepEqual([paused.statusCode, paused.json().error.code], [400, 'invalid_request']);
      assert.equal(paused.json().error.message, `recurring schedule ${schedule.id} is not active: it is paused (active: false)`);
      await callOk(t, merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { active: true });
      await t.worker.drain();
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 1);
      await ledgerClean(t);
    });

    it('POST /sandbox/schedules/:id/run charges the next run now and moves the date; a date is charged at most once', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { schedule } = await scheduleFor(t, merchant, '4111111111111111', { next_run_date: '2030-03-15' });
      const ran = await runScheduleNow(t, merchant, schedule.id);
      assert.equal(ran.statusCode, 200, ran.body);
      const body = ran.json();
      assert.equal(body.success, true);
      assert.equal(body.charged, true);
      assert.equal(body.schedule.next_run_date, '2030-04-15');
      assert.equal(body.transaction.status, 'Approved');
      assert.equal(body.transaction.transaction.transaction_details.schedule_id, String(schedule.id));

      // A run whose charge is still pending keeps its date: running again charges nothing.
      const pending = await scheduleFor(t, merchant, '4000000000000259', { next_run_date: '2030-03-15' });
      const firstRun = (await runScheduleNow(t, merchant, pending.schedule.id)).json();
      assert.equal(firstRun.transaction.status, 'Pending');
      assert.equal(firstRun.schedule.next_run_date, '2030-03-15');
      const secondRun = (await runScheduleNow(t, merchant, pending.schedule.id)).json();
      assert.equal(secondRun.charged, false);
      assert.equal(secondRun.transaction.reference_number, firstRun.transaction.reference_number);
      assert.equal((await transactionsOf(t, merchant, pending.schedule.id)).length, 1);

      const noKey = await t.app.inject({ method: 'POST', url: `/sandbox/schedules/${schedule.id}/run` });
      assert.equal(noKey.statusCode, 401);
      assert.equal(noKey.json().success, 'false');
      await ledgerClean(t);
    });

    it('deleting the payment method stops its schedules', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      const { method, schedule } = await scheduleFor(t, merchant);
      await callOk(t, merchant, 'DELETE', `/api/v2/payment-methods/${method.id}`, undefined, 204);
      assert.equal((await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`)).active, false);
      await t.worker.drain();
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 0);
      // Resumed alone it would only fail at its next run: refused, naming what to give.
      const resumed = await call(t, merchant, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { active: true });
      assert.equal(resumed.statusCode, 400, resumed.body);
      assert.equal(
        resumed.json().error.message,
        `payment method ${method.id} of recurring schedule ${schedule.id} was deleted; give a payment_method_id to resume it`,
      );
      assert.equal((await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`)).active, false);
      await ledgerClean(t);
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`recurring schedules: a card that can no longer be charged (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('a schedule whose saved card has expired by its run date fails and stops, charging nothing', async () => {
      t.clock.set(START_MS);
      const merchant = await t.newMerchant();
      // The card expires at the end of 12/2035; the schedule's first run is after that.
      const { schedule } = await scheduleFor(t, merchant, '4111111111111111', { next_run_date: '2036-01-15' });
      t.clock.set(Date.UTC(2036, 0, 15, 12));
      await t.worker.drain();
      const current = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}`);
      assert.deepEqual([current.status, current.active, current.next_run_date], ['failed', false, '2036-01-15']);
      assert.equal((await transactionsOf(t, merchant, schedule.id)).length, 0);
      await ledgerClean(t);
    });
  });
}
