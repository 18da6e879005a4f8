// Transactions and batches as accept.blue's shop integrations read them
// (behaviour section 16 "Transactions", docs/acceptblue-compatibility.md), on
// both stores, for a source in the `acceptblue` dialect: GET
// /api/v2/transactions/:id as the bare transaction object (WooCommerce's
// refund routing reads its top-level status_details), every transaction list
// as a bare array with accept.blue's parameters (WooCommerce's hourly ACH
// cron, Pinelab's schedule transactions, Formidable's undocumented
// parameters ignored), the status filter agreeing with the status shown, and
// batches as accept.blue's Batch. The spec dialect's answers stay as they were.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCEPTBLUE_TRANSACTION_STATUSES, TRANSACTION_STATUSES } from '../../src/domain/card-lifecycle.ts';
import { DAY_MS, ManualClock } from '../../src/domain/clock.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch, getJson, operateOk, verifyCard } from '../helpers/lifecycle.ts';
import { callOk, type Json, newCustomer, runScheduleNow, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { caller, created, transferBody } from '../helpers/transfers.ts';

const HOUR_MS = 60 * 60_000;
/** Noon UTC on 10 March 2026: the test's days are whole UTC days. */
const MARCH_10_NOON = Date.UTC(2026, 2, 10, 12);

/** A merchant whose source answers in the accept.blue dialect (set before its first request, so no credential is cached). */
async function acceptBlueMerchant(t: TestApp, fundCents = 0): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant({ fundCents });
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
  return merchant;
}

async function listOk(t: TestApp, merchant: CreatedMerchant, url: string): Promise<Json[]> {
  const response = await getJson(t, merchant, url);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  const body = response.json() as unknown;
  assert.ok(Array.isArray(body), `${url}: a bare array`);
  return body as Json[];
}

const idsOf = (items: Json[]): number[] => items.map((item) => item.id as number);

/** A transfer attribute naming the charge that funds it (gatewayId). */
const gateway = (pk: number) => [{ name: 'gatewayId', value: String(pk) }];

/** WooCommerce writes its cron's bounds with gmdate('Y-m-d\TH:i:s\Z'). */
const wooTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

for (const kind of STORE_KINDS) {
  describe(`accept.blue transaction reads (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MARCH_10_NOON) });
    });
    after(() => t.close());

    it('GET /transactions/:id answers the bare transaction, status_details at its top level, for every kind (WooCommerce refund routing)', async () => {
      t.clock.set(MARCH_10_NOON);
      const merchant = await acceptBlueMerchant(t);
      const sale = await chargeCard(t, merchant, { amount: 20 });
      const authorization = await chargeCard(t, merchant, { amount: 7, capture: false });
      const declined = await chargeCard(t, merchant, { card: '4000000000000002', amount: 3 });
      const verification = (await verifyCard(t, merchant)).json().reference_number as number;
      const read = async (id: number): Promise<Json> => {
        const response = await getJson(t, merchant, `/api/v2/transactions/${id}`);
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json();
        // WooCommerce: "Transaction not found" unless status_details is a top-level key.
        assert.ok('status_details' in body, response.body);
        assert.equal(body.transaction, undefined, 'no charge envelope');
        assert.equal(body.reference_number, undefined, 'no charge envelope');
        assert.equal(body.id, id);
        assert.match(body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        return body;
      };
      // WooCommerce voids queued, captured and pending transactions and refunds settled ones.
      assert.equal((await read(authorization)).status_details.status, 'queued');
      assert.equal((await read(sale)).status_details.status, 'captured');
      assert.equal((await read(declined)).status_details.status, 'declined');
      assert.equal((await read(verification)).status_details.status, 'approved');
      await operateOk(t, merchant, 'void', { reference_number: authorization });
      assert.equal((await read(authorization)).status_details.status, 'voided');
      await closeSandboxBatch(t, merchant);
      const settled = await read(sale);
      assert.equal(settled.status_details.status, 'settled');
      assert.equal(settled.settled_date, '2026-03-10');
      const refund = (await operateOk(t, merchant, 'refund', { reference_number: sale, amount: 5 })).reference_number as number;
      const refunded = await read(refund);
      assert.equal(refunded.status_details.status, 'captured');
      assert.equal(refunded.amount_details.amount, 5);

      // Unknown: accept.blue's refusal body, HTTP 404.
      const missing = await getJson(t, merchant, '/api/v2/transactions/999999999');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().status, 'Error');
      assert.equal(missing.json().status_code, 'E');

      // The spec dialect still answers the charge answer (shape A, B).
      const spec = await t.newMerchant();
      const specSale = await chargeCard(t, spec, { amount: 4 });
      const specBody = (await getJson(t, spec, `/api/v2/transactions/${specSale}`)).json();
      assert.equal(specBody.status, 'Approved');
      assert.equal(specBody.reference_number, specSale);
      assert.equal(specBody.transaction.status_details.status, 'captured');
    });

    it("WooCommerce's hourly ACH cron: order=asc, limit=100, timestamps rounded to whole UTC days, pages by offset", async () => {
      t.clock.set(MARCH_10_NOON - DAY_MS);
      const merchant = await acceptBlueMerchant(t);
      const yesterday = await chargeCard(t, merchant, { amount: 1 });
      t.clock.set(MARCH_10_NOON);
      const today: number[] = [];
      for (let i = 0; i < 103; i++) {
        today.push(await chargeCard(t, merchant, { amount: (100 + i) / 100 }));
        t.clock.advance(60_000);
      }
      t.clock.set(MARCH_10_NOON + DAY_MS);
      const tomorrow = await chargeCard(t, merchant, { amount: 2 });
      // The cron asks for the last hours; accept.blue widens the bounds to their whole days.
      const from = wooTime(MARCH_10_NOON + HOUR_MS);
      const to = wooTime(MARCH_10_NOON + 2 * HOUR_MS);
      const seen: Json[] = [];
      for (let offset = 0; offset <= 1000; offset += 100) {
        const page = await listOk(t, merchant, `/api/v2/transactions?order=asc&limit=100&date_from=${from}&date_to=${to}&offset=${offset}`);
        seen.push(...page);
        if (page.length < 100) break;
      }
      assert.deepEqual(idsOf(seen), today);
      for (const item of seen) {
        // What the cron reads of each item.
        assert.equal(typeof item.id, 'number');
        assert.equal(item.status_details.status, 'captured');
      }
      assert.ok(!idsOf(seen).includes(yesterday) && !idsOf(seen).includes(tomorrow));
      // Epoch milliseconds and days are bounds too.
      assert.deepEqual(
        idsOf(await listOk(t, merchant, `/api/v2/transactions?limit=100&date_from=${MARCH_10_NOON - DAY_MS}&date_to=${MARCH_10_NOON - DAY_MS}`)),
        [yesterday],
      );
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&date_from=2026-03-11')), [tomorrow]);
    });

    it('lists oldest first by default, 10 at most unless limit says (1 to 100), newest first with order=desc; Formidable parameters ignored', async () => {
      t.clock.set(MARCH_10_NOON);
      const merchant = await acceptBlueMerchant(t);
      const refs: number[] = [];
      for (let i = 0; i < 12; i++) {
        refs.push(await chargeCard(t, merchant, { amount: 2 }));
        t.clock.advance(1000);
      }
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions')), refs.slice(0, 10));
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?offset=10')), refs.slice(10));
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?order=desc&limit=3')), refs.slice(-3).reverse());
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100')), refs);
      // Formidable's list wrapper sends page, customer_id, start_date and end_date, which accept.blue does not document.
      assert.deepEqual(
        idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=5&page=2&customer_id=7&start_date=2020-01-01&end_date=2020-01-02')),
        refs.slice(0, 5),
      );
      for (const [query, field, message] of [
        ['limit=101', 'limit', 'limit must be an integer from 1 to 100'],
        ['limit=0', 'limit', 'limit must be an integer from 1 to 100'],
        ['offset=-1', 'offset', 'offset must be an integer from 0 to 100000'],
        ['order=newest', 'order', 'order must be one of asc, desc'],
        ['status=captured,refunded', 'status', `status must be one of ${ACCEPTBLUE_TRANSACTION_STATUSES.join(', ')}`],
        ['payment_type=card', 'payment_type', 'payment_type must be one of credit_card, check'],
        ['date_field=updated_at', 'date_field', 'date_field must be one of created_at, settled_at'],
        [
          'date_from=yesterday',
          'date_from',
          'date_from must be epoch milliseconds, a date (YYYY-MM-DD) or an ISO 8601 timestamp with a time zone, for example 2026-01-31T00:00:00Z',
        ],
        ['settled_date=2026-02-30', 'settled_date', 'settled_date must be a date (YYYY-MM-DD)'],
        [
          'date_from=2026-03-11&date_to=2026-03-10',
          'date_to',
          'the date range ends before it starts: date_from/created_from must not be after date_to/created_to',
        ],
      ] as const) {
        const response = await getJson(t, merchant, `/api/v2/transactions?${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.deepEqual(
          response.json(),
          { version: '2.0.0', status: 'Error', status_code: 'E', error_message: message, error_code: 'invalid_request', error_details: { [field]: [message] } },
          query,
        );
      }
      // The spec dialect: newest first, and an undocumented parameter is still refused with its name.
      const spec = await t.newMerchant();
      const first = await chargeCard(t, spec, { amount: 1 });
      t.clock.advance(1000);
      const second = await chargeCard(t, spec, { amount: 1 });
      const specList = (await getJson(t, spec, '/api/v2/transactions')).json() as Json[];
      assert.deepEqual(
        specList.map((item) => item.reference_number),
        [second, first],
      );
      assert.deepEqual(
        ((await getJson(t, spec, '/api/v2/transactions?order=asc')).json() as Json[]).map((item) => item.reference_number),
        [first, second],
      );
      const refused = await getJson(t, spec, '/api/v2/transactions?page=2');
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json(), { error: { code: 'invalid_request', message: 'unknown field page' } });
    });

    it('filters by status as each transaction shows it, in both dialects, by payment type and by settlement day', async () => {
      t.clock.set(MARCH_10_NOON);
      const merchant = await acceptBlueMerchant(t);
      const settled = await chargeCard(t, merchant, { amount: 20 });
      const voided = await chargeCard(t, merchant, { amount: 6, capture: false });
      await operateOk(t, merchant, 'void', { reference_number: voided });
      await closeSandboxBatch(t, merchant);
      t.clock.advance(DAY_MS);
      const queued = await chargeCard(t, merchant, { amount: 7, capture: false });
      const captured = await chargeCard(t, merchant, { amount: 8 });
      const declined = await chargeCard(t, merchant, { card: '4000000000000002', amount: 3 });
      const failed = await chargeCard(t, merchant, { card: '4000000000000119', amount: 3 });
      const verification = (await verifyCard(t, merchant)).json().reference_number as number;
      const all = [settled, voided, queued, captured, declined, failed, verification];
      const everything = await listOk(t, merchant, '/api/v2/transactions?limit=100');
      assert.deepEqual(idsOf(everything), all);
      const shown = new Map(everything.map((item) => [item.id as number, item.status_details.status as string]));
      assert.deepEqual([...shown.values()], ['settled', 'voided', 'queued', 'captured', 'declined', 'error', 'approved']);
      // Every status of accept.blue's filter finds exactly the transactions that show it.
      for (const status of ACCEPTBLUE_TRANSACTION_STATUSES) {
        const expected = all.filter((id) => shown.get(id) === status);
        assert.deepEqual(idsOf(await listOk(t, merchant, `/api/v2/transactions?limit=100&status=${status}`)), expected, status);
      }
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&status=queued,captured,pending')), [queued, captured]);
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&payment_type=credit_card,check')), all);
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&payment_type=check')), []);
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&settled_date=2026-03-10')), [settled]);
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&settled_date=2026-03-11')), []);
      assert.deepEqual(
        idsOf(await listOk(t, merchant, `/api/v2/transactions?limit=100&date_field=settled_at&date_from=${wooTime(MARCH_10_NOON)}&date_to=2026-03-11`)),
        [settled],
      );
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/transactions?limit=100&key=pay-link-key')), []);

      // The spec dialect shows and filters by its own names (an authorization is "approved").
      const spec = await t.newMerchant();
      const specAuthorization = await chargeCard(t, spec, { amount: 7, capture: false });
      const specSale = await chargeCard(t, spec, { amount: 8 });
      const specItems = (await getJson(t, spec, '/api/v2/transactions?order=asc')).json() as Json[];
      assert.deepEqual(
        specItems.map((item) => item.transaction.status_details.status),
        ['approved', 'captured'],
      );
      for (const status of TRANSACTION_STATUSES) {
        const expected = specItems.filter((item) => item.transaction.status_details.status === status).map((item) => item.reference_number);
        const found = (await getJson(t, spec, `/api/v2/transactions?order=asc&status=${status}`)).json() as Json[];
        assert.deepEqual(
          found.map((item) => item.reference_number),
          expected,
          status,
        );
      }
      assert.deepEqual(
        ((await getJson(t, spec, '/api/v2/transactions?status=approved,captured&order=asc')).json() as Json[]).map((item) => item.reference_number),
        [specAuthorization, specSale],
      );
    });

    it('shows in each list item the transfers a charge funds, as GET /transactions/:id does, read for the page at once', async () => {
      t.clock.set(MARCH_10_NOON);
      for (const acceptBlue of [false, true]) {
        const merchant = acceptBlue ? await acceptBlueMerchant(t, 10_000) : await t.newMerchant({ fundCents: 10_000 });
        const api = caller(t.app, merchant.transfer_api_key);
        const first = await chargeCard(t, merchant, { amount: 50 });
        const unlinked = await chargeCard(t, merchant, { amount: 5 });
        const second = await chargeCard(t, merchant, { amount: 40 });
        const funds = [transferBody({ amount: '20.00', attribute: gateway(first) }), transferBody({ amount: '7.50', attribute: gateway(second) })];
        funds.push(transferBody({ amount: '2.00', attribute: gateway(first) }));
        for (const body of funds) assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
        const listed = await listOk(t, merchant, '/api/v2/transactions?order=asc');
        const read = async (id: number) => (await getJson(t, merchant, `/api/v2/transactions/${id}`)).json();
        const customFields = (item: Json) => (acceptBlue ? item : item.transaction).custom_fields;
        assert.deepEqual(listed.map(customFields), [
          {
            transfers: [
              { id: funds[0]!.id, amount: '20.00' },
              { id: funds[2]!.id, amount: '2.00' },
            ],
          },
          {},
          { transfers: [{ id: funds[1]!.id, amount: '7.50' }] },
        ]);
        assert.deepEqual(listed, [await read(first), await read(unlinked), await read(second)]);
      }
    });

    it("Pinelab's schedule transactions (no parameters), a customer's and a batch's: bare transactions, oldest first", async () => {
      t.clock.set(MARCH_10_NOON);
      const merchant = await acceptBlueMerchant(t);
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      const schedule = await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        {
          title: 'Coffee club',
          amount: 9.99,
          frequency: 'daily',
          next_run_date: '2026-03-10',
          num_left: 0,
          payment_method_id: method.id,
        },
        201,
      );
      const runs: number[] = [];
      for (let day = 0; day < 3; day++) {
        const run = await runScheduleNow(t, merchant, schedule.id);
        assert.equal(run.statusCode, 200, run.body);
        runs.push(run.json().transaction.reference_number ?? run.json().transaction.transaction.id);
        t.clock.advance(DAY_MS);
      }
      await closeSandboxBatch(t, merchant);
      const items = await listOk(t, merchant, `/api/v2/recurring-schedules/${schedule.id}/transactions`);
      assert.deepEqual(idsOf(items), runs);
      for (const item of items) {
        // What Pinelab's getTransactionsForRecurringSchedule maps.
        assert.equal(item.amount_details.amount, 9.99);
        assert.match(item.created_at, /^\d{4}-\d{2}-\d{2}T/);
        assert.match(item.settled_date, /^\d{4}-\d{2}-\d{2}$/);
        assert.equal(item.card_details.last4, '1111');
        assert.equal(typeof item.card_details.card_type, 'string');
        assert.equal(item.card_details.expiry_month, 12);
        assert.equal(item.card_details.expiry_year, 2035);
        assert.ok('name' in item.card_details);
        assert.equal(item.status_details.status, 'settled');
      }
      assert.deepEqual(
        idsOf(await listOk(t, merchant, `/api/v2/recurring-schedules/${schedule.id}/transactions?order=desc&limit=2`)),
        runs.slice(-2).reverse(),
      );
      assert.deepEqual(idsOf(await listOk(t, merchant, `/api/v2/customers/${customer.id}/transactions`)), runs);
      const batches = await listOk(t, merchant, '/api/v2/batches?status=closed');
      assert.equal(batches.length, 1);
      assert.deepEqual(idsOf(await listOk(t, merchant, `/api/v2/batches/${batches[0]!.id}/transactions?status=settled`)), runs);
      assert.deepEqual(idsOf(await listOk(t, merchant, `/api/v2/batches/${batches[0]!.id}/transactions?status=captured`)), []);
      // Another merchant's schedule, customer and batch read as unknown.
      const other = await acceptBlueMerchant(t);
      for (const url of [
        `/api/v2/recurring-schedules/${schedule.id}/transactions`,
        `/api/v2/customers/${customer.id}/transactions`,
        `/api/v2/batches/${batches[0]!.id}/transactions`,
      ]) {
        const response = await getJson(t, other, url);
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.json().status, 'Error', url);
      }
    });

    it("batches as accept.blue's Batch: oldest first, filtered by status and opening day; the spec dialect's unchanged", async () => {
      t.clock.set(MARCH_10_NOON);
      const merchant = await acceptBlueMerchant(t);
      await chargeCard(t, merchant, { amount: 10 });
      const refunded = await chargeCard(t, merchant, { amount: 4 });
      await closeSandboxBatch(t, merchant);
      t.clock.advance(HOUR_MS);
      await operateOk(t, merchant, 'refund', { reference_number: refunded, amount: 1.5 });
      await closeSandboxBatch(t, merchant);
      t.clock.set(MARCH_10_NOON + DAY_MS);
      await chargeCard(t, merchant, { amount: 3 });
      const batches = await listOk(t, merchant, '/api/v2/batches');
      assert.equal(batches.length, 3);
      assert.ok(batches[0]!.id < batches[1]!.id && batches[1]!.id < batches[2]!.id);
      assert.deepEqual(batches[0], {
        id: batches[0]!.id,
        opened_at: '2026-03-10T12:00:00.000Z',
        auto_close_date: null,
        closed_at: '2026-03-10T12:00:00.000Z',
        platform: null,
        charges_sum: 14,
        charges_count: 2,
        credits_sum: 0,
        credits_count: 0,
        transactions_count: 2,
      });
      assert.equal(batches[1]!.credits_sum, 1.5);
      assert.equal(batches[1]!.credits_count, 1);
      assert.equal(batches[1]!.transactions_count, 1);
      // The open batch closes at the next daily close (PAYRAIL_BATCH_CLOSE_UTC, 00:00 by default).
      assert.equal(batches[2]!.closed_at, null);
      assert.equal(batches[2]!.auto_close_date, '2026-03-12T00:00:00.000Z');
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/batches?status=open')), [batches[2]!.id]);
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/batches?status=closed&order=desc')), [batches[1]!.id, batches[0]!.id]);
      assert.deepEqual(idsOf(await listOk(t, merchant, `/api/v2/batches?date_from=${MARCH_10_NOON + DAY_MS}`)), [batches[2]!.id]);
      assert.deepEqual(idsOf(await listOk(t, merchant, '/api/v2/batches?date_to=2026-03-10&limit=1&offset=1')), [batches[1]!.id]);
      assert.deepEqual((await getJson(t, merchant, `/api/v2/batches/${batches[1]!.id}`)).json(), batches[1]);
      const refused = await getJson(t, merchant, '/api/v2/batches?status=settled');
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json().error_details, { status: ['status must be one of open, closed'] });

      const spec = await t.newMerchant();
      await chargeCard(t, spec, { amount: 10 });
      await closeSandboxBatch(t, spec);
      const specBatches = (await getJson(t, spec, '/api/v2/batches')).json() as Json[];
      assert.deepEqual(Object.keys(specBatches[0]!), [
        'id',
        'status',
        'opened_at',
        'closed_at',
        'transaction_count',
        'sales_count',
        'sales_amount',
        'refunds_count',
        'refunds_amount',
        'net_amount',
      ]);
      assert.equal(specBatches[0]!.status, 'closed');
    });
  });
}
