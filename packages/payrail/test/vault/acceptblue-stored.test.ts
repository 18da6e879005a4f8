// Stored customers, payment methods and schedules for accept.blue's shop
// integrations (behaviour.md section 16; reference A.5, B.1, B.5): the
// Vendure plugin's (Pinelab's) checkout in its order and with its bodies,
// its returning shopper, its subscription and payment-method management,
// and the Formidable plugin's customer and card. Each answer is checked for
// what the plugin reads from it, in accept.blue's shapes. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CreatedMerchant, createSource, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { PinelabClient, type ShopError, useAcceptBlueDialect } from '../helpers/acceptblue-shop.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BILLING, basicOf, chargeBody, EXPIRY_MONTH, EXPIRY_YEAR, nonceFor, postCharge, tokenizeRaw } from '../helpers/payin.ts';
import { call, dayOf, type Json, runScheduleNow } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const EMAIL = 'ada+shop@example.com';
const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  street: '12 Analytical Way',
  street2: 'Flat 2',
  zip: '10001',
  state: 'NY',
  phone: '+15550100',
  city: 'New York',
  country: 'US',
};
/** What the plugin sends to create or update its customer (B.1 step 2). */
const CUSTOMER_BODY = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  identifier: EMAIL,
  email: EMAIL,
  phone: '+15550100',
  billing_info: ADDRESS,
  shipping_info: ADDRESS,
};
const NULL_ADDRESS = { first_name: null, last_name: null, street: null, street2: null, state: null, city: null, zip: null, country: null, phone: null };

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

/** A nonce for a card tokenized with this expiry. */
async function nonceWithExpiry(t: TestApp, merchant: CreatedMerchant, card: string, month: number, year: number): Promise<string> {
  const response = await tokenizeRaw(t.app, merchant.source.tokenization_token, { card_number: card, expiry_month: month, expiry_year: year, cvv2: '123' });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().nonce;
}

/** Steps 1 to 4 of the plugin's checkout (B.1): the customer, the card, a subscription. */
async function checkout(t: TestApp, shop: PinelabClient, merchant: CreatedMerchant, card = '4111111111111111') {
  const found: Json[] = await shop.request('GET', `customers?active=true&customer_number=${encodeURIComponent(EMAIL)}`);
  if (found.length > 1) throw new Error('more than one customer');
  let customerId: number;
  if (found[0] !== undefined) {
    customerId = found[0].id;
    await shop.request('PATCH', `customers/${customerId}`, CUSTOMER_BODY);
  } else {
    customerId = (await shop.request('POST', 'customers', { ...CUSTOMER_BODY, customer_number: EMAIL, active: true })).id;
  }
  const input = { expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR, last4: card.slice(-4) };
  const methods: Json[] = (await shop.request('GET', `customers/${customerId}/payment-methods?limit=100`)) ?? [];
  if (methods.length === 100) throw new Error('too many payment methods');
  let method = methods.find((m) => m.last4 === input.last4 && m.expiry_month === input.expiry_month && m.expiry_year === input.expiry_year);
  if (method === undefined) {
    const source = await nonceFor(t.app, merchant, card);
    method = await shop.request('POST', `customers/${customerId}/payment-methods`, { source, ...input, avs_address: ADDRESS.street, avs_zip: ADDRESS.zip });
  }
  if (method.payment_method_type !== 'check' && !['Visa', 'MasterCard', 'Amex', 'Discover'].includes(method.card_type)) throw new Error('card not allowed');
  const again: Json[] = await shop.request('GET', `customers?active=true&customer_number=${encodeURIComponent(EMAIL)}`);
  const schedule = await shop.request('POST', `customers/${again[0].id}/recurring-schedules`, {
    title: 'Coffee club',
    active: true,
    amount: 9.99,
    frequency: 'monthly',
    num_left: 12,
    payment_method_id: method.id,
    receipt_email: EMAIL,
  });
  assert.equal(typeof schedule.id, 'number');
  return { customerId, method, schedule };
}

for (const kind of STORE_KINDS) {
  describe(`stored payment data for accept.blue integrations (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it("replays the Vendure plugin's checkout: [] for an unknown e-mail, the customer, its card from a nonce, a schedule without a first date", async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      assert.deepEqual(await shop.request('GET', `customers?active=true&customer_number=${encodeURIComponent(EMAIL)}`), []);
      const { customerId, method, schedule } = await checkout(t, shop, merchant);
      const now = new Date(t.clock.nowMs()).toISOString();
      assert.deepEqual(await shop.request('GET', `customers/${customerId}`), {
        id: customerId,
        identifier: EMAIL,
        customer_number: EMAIL,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: EMAIL,
        website: null,
        phone: '+15550100',
        alternate_phone: null,
        billing_info: ADDRESS,
        shipping_info: ADDRESS,
        active: true,
        note: null,
        created_at: now,
      });
      // The undocumented last4 the plugin adds is ignored; the card is accept.blue's PaymentMethod.
      assert.deepEqual(method, {
        id: method.id,
        customer_id: customerId,
        created_at: now,
        payment_method_type: 'card',
        name: null,
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
        avs_address: ADDRESS.street,
        avs_zip: ADDRESS.zip,
        card_type: 'Visa',
        bin: '411111',
        bin_details: { type: null },
        last4: '1111',
      });
      // No next_run_date: tomorrow (UTC), never today.
      assert.deepEqual(schedule, {
        id: schedule.id,
        customer_id: customerId,
        title: 'Coffee club',
        receipt_email: EMAIL,
        amount: 9.99,
        frequency: 'monthly',
        next_run_date: dayOf(t, 1),
        num_left: 12,
        payment_method_id: method.id,
        active: true,
        status: 'active',
        created_at: now,
        prev_run_date: null,
        transaction_count: 0,
      });
      // The charge of the order: pm- with only {source, amount}; the plugin reads transaction.id.
      const charged = await shop.request('POST', 'transactions/charge', { source: `pm-${method.id}`, amount: 20 });
      assert.ok(charged.status !== 'Error' && charged.status !== 'Declined', JSON.stringify(charged));
      assert.equal(typeof charged.transaction.id, 'number');
      // A run of the schedule is counted on it.
      t.clock.advance(86_400_000);
      const run = await runScheduleNow(t, merchant, schedule.id);
      assert.equal(run.statusCode, 200, run.body);
      const read = await shop.request('GET', `recurring-schedules/${schedule.id}`);
      assert.deepEqual([read.prev_run_date, read.transaction_count, read.num_left], [dayOf(t), 1, 11]);
      await ledgerClean(t);
    });

    it('finds the returning shopper and its card, saves a renewed card as a new method, and answers a duplicate as accept.blue does', async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      const first = await checkout(t, shop, merchant);
      const second = await checkout(t, shop, merchant);
      assert.equal(second.customerId, first.customerId);
      assert.equal(second.method.id, first.method.id, 'found by last4 and expiry: not saved again');
      // The saved-method path: the method's customer compared with the shopper's (the plugin uses !=; an integer either way).
      const saved = await shop.request('GET', `payment-methods/${first.method.id}`);
      assert.equal(saved.customer_id, first.customerId);
      assert.deepEqual([saved.payment_method_type, saved.card_type], ['card', 'Visa']);
      assert.equal((await shop.request('GET', `customers?active=true&customer_number=${encodeURIComponent(EMAIL)}`)).length, 1);
      // The same card with a new expiry is a new method.
      const renewed = await shop.request('POST', `customers/${first.customerId}/payment-methods`, {
        source: await nonceWithExpiry(t, merchant, '4111111111111111', 6, 2036),
        expiry_month: 6,
        expiry_year: 2036,
        last4: '1111',
      });
      assert.notEqual(renewed.id, first.method.id);
      assert.deepEqual([renewed.expiry_month, renewed.expiry_year, renewed.last4], [6, 2036, '1111']);
      // The same card and expiry again: 409, accept.blue's body with the existing method.
      const duplicate = await call(t, merchant, 'POST', `/api/v2/customers/${first.customerId}/payment-methods`, {
        source: await nonceFor(t.app, merchant),
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
      });
      assert.equal(duplicate.statusCode, 409, duplicate.body);
      assert.deepEqual(duplicate.json(), {
        version: '2.0.0',
        status: 'Error',
        status_code: 'E',
        error_message: 'Invalid state error',
        error_code: 'duplicate_payment_method',
        error_details: { error: 'A payment method with these details already exists for this customer', payment_method: saved },
      });
      // Changing the renewed card's expiry to the first one's is the same duplicate.
      const patched = await call(t, merchant, 'PATCH', `/api/v2/payment-methods/${renewed.id}`, { expiry_month: EXPIRY_MONTH, expiry_year: EXPIRY_YEAR });
      assert.equal(patched.statusCode, 409, patched.body);
      assert.deepEqual(patched.json().error_details.payment_method, saved);
      const methods = await shop.request('GET', `customers/${first.customerId}/payment-methods?limit=100`);
      assert.deepEqual(
        methods.map((m: Json) => m.id),
        [first.method.id, renewed.id],
      );
    });

    it("reads, updates and deletes a subscription; lists every method and schedule of the merchant and a method's schedules", async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      const { customerId, method, schedule } = await checkout(t, shop, merchant);
      const read = await shop.request('GET', `recurring-schedules/${schedule.id}`);
      for (const field of ['id', 'customer_id', 'title', 'frequency', 'amount', 'payment_method_id', 'created_at', 'next_run_date', 'num_left']) {
        assert.notEqual(read[field], undefined, field);
      }
      assert.equal(read.prev_run_date, null);
      const changed = await shop.request('PATCH', `recurring-schedules/${schedule.id}`, {
        title: 'Coffee club (large)',
        amount: 14.5,
        frequency: 'biannually',
        next_run_date: dayOf(t, 10),
        num_left: 4,
        active: true,
        receipt_email: 'ada@example.com',
        payment_method_id: method.id,
      });
      assert.deepEqual(
        [changed.title, changed.amount, changed.frequency, changed.next_run_date, changed.num_left, changed.receipt_email],
        ['Coffee club (large)', 14.5, 'biannually', dayOf(t, 10), 4, 'ada@example.com'],
      );
      const bimonthly = await shop.request('POST', `customers/${customerId}/recurring-schedules`, {
        title: 'Beans',
        amount: 5,
        frequency: 'bimonthly',
        payment_method_id: method.id,
        next_run_date: dayOf(t, 3),
      });
      assert.deepEqual([bimonthly.frequency, bimonthly.next_run_date], ['bimonthly', dayOf(t, 3)]);

      // A method's schedules: an array. The merchant's methods and schedules: order, limit, offset.
      assert.deepEqual(
        (await shop.request('GET', `payment-methods/${method.id}/recurring-schedules`)).map((s: Json) => s.id),
        [schedule.id, bimonthly.id],
      );
      const other = await shop.request('POST', 'customers', { identifier: 'Other', customer_number: 'other' });
      const otherMethod = await shop.request('POST', `customers/${other.id}/payment-methods`, {
        source: await nonceFor(t.app, merchant, '5555555555554444'),
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
      });
      assert.equal(otherMethod.card_type, 'MasterCard');
      assert.deepEqual(
        (await shop.request('GET', 'payment-methods')).map((m: Json) => m.id),
        [method.id, otherMethod.id],
      );
      assert.deepEqual(
        (await shop.request('GET', 'payment-methods?order=desc&limit=1')).map((m: Json) => m.id),
        [otherMethod.id],
      );
      assert.deepEqual(
        (await shop.request('GET', 'recurring-schedules?order=desc')).map((s: Json) => s.id),
        [bimonthly.id, schedule.id],
      );
      assert.deepEqual(
        (await shop.request('GET', 'recurring-schedules?limit=1&offset=1')).map((s: Json) => s.id),
        [bimonthly.id],
      );
      assert.deepEqual(
        (await shop.request('GET', 'customers?order=desc')).map((c: Json) => c.id),
        [other.id, customerId],
      );
      assert.deepEqual(await shop.request('GET', `payment-methods/${otherMethod.id}/recurring-schedules`), []);
      const badOrder = await call(t, merchant, 'GET', '/api/v2/payment-methods?order=up');
      assert.equal(badOrder.statusCode, 400);
      assert.deepEqual(badOrder.json().error_details, { order: ['order must be asc or desc'] });
      // Another merchant's method: 404 (the plugin reads undefined).
      const stranger = new PinelabClient(t, await useAcceptBlueDialect(t, await t.newMerchant()));
      assert.equal(await stranger.request('GET', `payment-methods/${method.id}/recurring-schedules`), undefined);
      assert.deepEqual(await stranger.request('GET', 'payment-methods'), []);

      // The plugin deletes the schedules of a failed order.
      assert.equal(await shop.request('DELETE', `recurring-schedules/${bimonthly.id}`), undefined);
      assert.equal(await shop.request('GET', `recurring-schedules/${bimonthly.id}`), undefined);
    });

    it('updates a card (name, expiry, AVS) and refuses to delete a card or customer while an active schedule charges it (409)', async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      const { customerId, method, schedule } = await checkout(t, shop, merchant);
      const updated = await shop.request('PATCH', `payment-methods/${method.id}`, {
        name: 'Ada L',
        expiry_month: 1,
        expiry_year: 2037,
        avs_address: '1 Engine Road',
        avs_zip: '10002',
      });
      assert.deepEqual(updated, { ...method, name: 'Ada L', expiry_month: 1, expiry_year: 2037, avs_address: '1 Engine Road', avs_zip: '10002' });
      await assert.rejects(shop.request('DELETE', `payment-methods/${method.id}`), (error: ShopError) => {
        assert.equal(error.statusCode, 409);
        assert.deepEqual(error.body, {
          version: '2.0.0',
          status: 'Error',
          status_code: 'E',
          error_message: `payment method ${method.id} is charged by active recurring schedules; delete or deactivate them first`,
          error_code: 'invalid_state',
          error_details: null,
        });
        return true;
      });
      const refusedCustomer = await call(t, merchant, 'DELETE', `/api/v2/customers/${customerId}`);
      assert.equal(refusedCustomer.statusCode, 409, refusedCustomer.body);
      assert.equal(refusedCustomer.json().error_code, 'invalid_state');
      // Nothing changed: the card is there, the schedule active.
      assert.equal((await shop.request('GET', `payment-methods/${method.id}`)).id, method.id);
      assert.equal((await shop.request('GET', `recurring-schedules/${schedule.id}`)).active, true);
      // Paused, the schedule no longer holds the card.
      await shop.request('PATCH', `recurring-schedules/${schedule.id}`, { active: false });
      assert.equal(await shop.request('DELETE', `payment-methods/${method.id}`), undefined);
      assert.equal(await shop.request('GET', `payment-methods/${method.id}`), undefined);
      assert.equal(await shop.request('DELETE', `customers/${customerId}`), undefined);
      assert.equal(await shop.request('GET', `customers/${customerId}`), undefined);
      assert.equal(await shop.request('DELETE', 'payment-methods/999999999'), undefined);
    });

    it("creates Formidable's customer (its undocumented name ignored) and its card from a nonce; saves Pinelab's check body beside it", async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      const customer = await shop.request('POST', 'customers', {
        email: 'grace@example.com',
        name: 'Grace Hopper',
        phone: '+15550123',
        identifier: 'frm-ab-lite-0123456789ab',
        customer_number: 'grace@example.com',
      });
      assert.deepEqual(
        [customer.identifier, customer.email, customer.first_name, customer.last_name, customer.phone, customer.billing_info],
        ['frm-ab-lite-0123456789ab', 'grace@example.com', null, null, '+15550123', NULL_ADDRESS],
      );
      const method = await shop.request('POST', `customers/${customer.id}/payment-methods`, {
        source: await nonceFor(t.app, merchant, '378282246310005'),
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
        name: 'Grace Hopper',
        avs_zip: '10001',
        avs_address: '1 Navy Way',
        billing_info: { first_name: 'Grace', last_name: 'Hopper' },
      });
      assert.deepEqual([method.card_type, method.name, method.avs_zip, method.last4], ['Amex', 'Grace Hopper', '10001', '0005']);

      // Pinelab's check body: a saved check (test/ach/check-payment-methods.test.ts tells the rest).
      const check = await call(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, {
        name: 'Grace Hopper',
        routing_number: '021000021',
        account_number: '123456789',
        account_type: 'Checking',
        sec_code: 'WEB',
      });
      assert.equal(check.statusCode, 201, check.body);
      assert.deepEqual(
        [check.json().payment_method_type, check.json().account_type, check.json().last4, check.json().account_number],
        ['check', 'Checking', '6789', null],
      );
      assert.equal((await shop.request('GET', `customers/${customer.id}/payment-methods`)).length, 2);
    });

    it('creates a customer from a transaction: its billing details, the transaction linked; a card saved from ref- of it', async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      const charge = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant, '5555555555554444'), { amount: 12 }));
      const reference = charge.json().reference_number as number;
      assert.equal(typeof reference, 'number', charge.body);
      // The transaction names no customer: an identifier is required.
      const bare = await call(t, merchant, 'POST', '/api/v2/customers/create-from-transaction', { reference_number: String(reference) });
      assert.equal(bare.statusCode, 400, bare.body);
      assert.deepEqual(bare.json().error_details, { identifier: ['identifier is required: the transaction has none'] });
      const unknown = await call(t, merchant, 'POST', '/api/v2/customers/create-from-transaction', { reference_number: 999999999, identifier: 'x' });
      assert.equal(unknown.statusCode, 404, unknown.body);

      const created = await call(t, merchant, 'POST', '/api/v2/customers/create-from-transaction', {
        reference_number: String(reference),
        identifier: 'From order 1',
        email: 'buyer@example.com',
      });
      assert.equal(created.statusCode, 201, created.body);
      const customer = created.json();
      const billing = { ...NULL_ADDRESS, ...BILLING };
      assert.deepEqual(
        [customer.identifier, customer.email, customer.first_name, customer.last_name, customer.billing_info, customer.shipping_info],
        ['From order 1', 'buyer@example.com', BILLING.first_name, BILLING.last_name, billing, NULL_ADDRESS],
      );
      const transactions = await shop.request('GET', `customers/${customer.id}/transactions`);
      assert.deepEqual(
        // The list's items name their transaction by id (bare transactions) or reference_number (charge answers).
        transactions.map((tx: Json) => tx.id ?? tx.reference_number),
        [reference],
      );
      // Linked once: a second customer from it leaves the link as it is.
      const second = await shop.request('POST', 'customers/create-from-transaction', { reference_number: reference, identifier: 'Again' });
      assert.deepEqual(await shop.request('GET', `customers/${second.id}/transactions`), []);

      // The card of that transaction saved for the customer (ref-, its expiry), as after a Google Pay charge.
      const fromReference = await shop.request('POST', `customers/${customer.id}/payment-methods`, { source: `ref-${reference}` });
      assert.deepEqual(
        [fromReference.card_type, fromReference.last4, fromReference.expiry_month, fromReference.expiry_year],
        ['MasterCard', '4444', EXPIRY_MONTH, EXPIRY_YEAR],
      );
      const charged = await shop.request('POST', 'transactions/charge', { source: `pm-${fromReference.id}`, amount: 3 });
      assert.equal(typeof charged.transaction.id, 'number');
      const foreign = await call(t, merchant, 'POST', `/api/v2/customers/${customer.id}/payment-methods`, { source: 'ref-999999999' });
      assert.equal(foreign.statusCode, 404, foreign.body);
      await ledgerClean(t);
    });

    it('use_this_source_key charges the runs under the source that created the schedule', async () => {
      const merchant = await useAcceptBlueDialect(t, await t.newMerchant());
      const shop = new PinelabClient(t, merchant);
      const second = await createSource(issuingDeps(t.service), { merchantId: merchant.merchant_id, name: 'Subscriptions' });
      const { customerId, method } = await checkout(t, shop, merchant);
      const secondShop = new PinelabClient(t, { ...merchant, source: second });
      const body = { title: 'Own key', amount: 2, frequency: 'daily', payment_method_id: method.id, next_run_date: dayOf(t) };
      const own = await secondShop.request('POST', `customers/${customerId}/recurring-schedules`, { ...body, use_this_source_key: true });
      const card = await secondShop.request('POST', `customers/${customerId}/recurring-schedules`, body);
      for (const schedule of [own, card]) assert.equal((await runScheduleNow(t, merchant, schedule.id)).statusCode, 200);
      const sourceOf = async (scheduleId: number) =>
        (await t.service.db.read((tx) => tx.get<{ source_id: string }>('SELECT source_id FROM charges WHERE schedule_pk = ?', [scheduleId])))?.source_id;
      assert.equal(await sourceOf(own.id), second.id);
      assert.equal(await sourceOf(card.id), merchant.source.id);
      await ledgerClean(t);
    });

    it('the spec dialect takes the same fields, keeps its section 15 views and shows what was given; creations answer 201', async () => {
      const merchant = await t.newMerchant();
      const created = await call(t, merchant, 'POST', '/api/v2/customers', { identifier: 'Plain' });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(Object.keys(created.json()).sort(), [
        'active',
        'created_at',
        'customer_number',
        'email',
        'first_name',
        'id',
        'identifier',
        'last_name',
        'phone',
      ]);
      const rich = await call(t, merchant, 'POST', '/api/v2/customers', {
        identifier: 'Rich',
        website: 'https://ada.example',
        note: 'VIP',
        billing_info: { city: 'London' },
      });
      assert.deepEqual(
        [rich.json().website, rich.json().note, rich.json().billing_info, rich.json().alternate_phone],
        ['https://ada.example', 'VIP', { city: 'London' }, undefined],
      );
      // Undocumented fields are refused in the spec dialect, naming them.
      const named = await call(t, merchant, 'POST', '/api/v2/customers', { identifier: 'Grace', name: 'Grace Hopper' });
      assert.deepEqual([named.statusCode, named.json().error.message], [400, 'unknown field name']);
      // A duplicate keeps the spec body; a customer with a schedule is deleted with it stopped.
      const customerId = created.json().id;
      const method = await call(t, merchant, 'POST', `/api/v2/customers/${customerId}/payment-methods`, {
        source: await nonceFor(t.app, merchant),
        expiry_month: EXPIRY_MONTH,
        expiry_year: EXPIRY_YEAR,
        last4: '1111',
      });
      assert.equal(method.statusCode, 201, method.body);
      assert.equal(method.json().card_type, 'Visa');
      const scheduled = await call(t, merchant, 'POST', `/api/v2/customers/${customerId}/recurring-schedules`, {
        title: 'Plan',
        amount: 5,
        frequency: 'weekly',
        payment_method_id: method.json().id,
      });
      assert.equal(scheduled.statusCode, 201, scheduled.body);
      assert.equal(scheduled.json().next_run_date, dayOf(t, 1));
      assert.equal(scheduled.json().transaction_count, undefined);
      assert.equal((await call(t, merchant, 'DELETE', `/api/v2/customers/${customerId}`)).statusCode, 204);
    });
  });
}
