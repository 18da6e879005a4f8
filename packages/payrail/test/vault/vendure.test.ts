// The calls the Vendure accept.blue plugin's client makes when a shopper
// pays for a subscription (docs/api-decisions.md section 15), in its order
// and with its bodies: find the customer by customer_number (an e-mail
// address), create it, list its payment methods and match the card by last4
// and expiry, save the card from a nonce, charge `pm-<id>` with only
// {source, amount}, create a monthly schedule. Every answer is checked for
// what that client reads from it; then the shopper's second order finds the
// customer and the card again instead of creating them. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents } from '../helpers/lifecycle.ts';
import { basicOf, nonceFor } from '../helpers/payin.ts';
import type { Json } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** What the plugin's client does with an answer: 404 reads as "none", any other 4xx/5xx throws. */
class ShopClient {
  constructor(
    private readonly t: TestApp,
    private readonly merchant: CreatedMerchant,
  ) {}

  async request(method: 'GET' | 'POST', path: string, data?: unknown): Promise<Json> {
    const response = await this.t.app.inject({
      method,
      url: `/api/v2/${path}`,
      // The client's axios instance sends these headers on every call.
      headers: { authorization: basicOf(this.merchant), ...(data === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(data === undefined ? {} : { payload: JSON.stringify(data) }),
    });
    if (response.statusCode === 404) return undefined;
    if (response.statusCode >= 400) throw new Error(`${method} ${path}: ${response.statusCode} ${response.body}`);
    return response.json();
  }

  async getOrCreateCustomer(email: string): Promise<Json> {
    const customers = await this.request('GET', `customers?active=true&customer_number=${email}`);
    assert.ok(Array.isArray(customers));
    if (customers.length > 1) throw new Error('more than one customer');
    if (customers[0] !== undefined) return customers[0];
    return this.request('POST', 'customers', { identifier: email, customer_number: email, email, active: true });
  }

  async getOrCreatePaymentMethod(customerId: number, input: { source: string; expiry_month: number; expiry_year: number; last4: string }): Promise<Json> {
    const methods: Json[] = (await this.request('GET', `customers/${customerId}/payment-methods`)) ?? [];
    const same = methods.find(
      (m) => m.payment_method_type === 'card' && m.last4 === input.last4 && m.expiry_month === input.expiry_month && m.expiry_year === input.expiry_year,
    );
    return same ?? this.request('POST', `customers/${customerId}/payment-methods`, input);
  }

  async createCharge(paymentMethodId: number, amountInCents: number): Promise<Json> {
    const result = await this.request('POST', 'transactions/charge', { source: `pm-${paymentMethodId}`, amount: amountInCents / 100 });
    if (result.status === 'Error' || result.status === 'Declined') throw new Error(`charge failed: ${result.error_message}`);
    return result;
  }

  async createRecurringSchedule(customerId: number, input: Record<string, unknown> & { next_run_date: Date }): Promise<Json> {
    return this.request('POST', `customers/${customerId}/recurring-schedules`, { ...input, next_run_date: input.next_run_date.toISOString().split('T')[0] });
  }
}

for (const kind of STORE_KINDS) {
  describe(`the Vendure accept.blue plugin's client (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('creates the customer, saves the card, charges pm-<id> and creates a monthly schedule; a second order reuses both', async () => {
      t.clock.set(Date.UTC(2030, 4, 10, 9));
      const merchant = await t.newMerchant();
      const client = new ShopClient(t, merchant);
      const email = 'shopper@example.com';

      const customer = await client.getOrCreateCustomer(email);
      assert.equal(typeof customer.id, 'number');
      assert.deepEqual([customer.identifier, customer.customer_number, customer.email, customer.active], [email, email, email, true]);

      const nonce = await nonceFor(t.app, merchant, '4111111111111111');
      const card = { source: nonce, expiry_month: 12, expiry_year: 2035, last4: '1111' };
      const method = await client.getOrCreatePaymentMethod(customer.id, card);
      assert.equal(typeof method.id, 'number');
      assert.equal(method.payment_method_type, 'card');
      assert.equal(method.customer_id, customer.id);
      assert.equal(method.card_type, 'Visa');

      const charge = await client.createCharge(method.id, 4999);
      assert.equal(charge.status, 'Approved');
      assert.equal(typeof charge.transaction.id, 'number');
      assert.equal(charge.transaction.amount_details.amount, 49.99);

      const schedule = await client.createRecurringSchedule(customer.id, {
        title: 'Subscription for order ORDER-1',
        amount: 49.99,
        payment_method_id: method.id,
        frequency: 'monthly',
        next_run_date: new Date(Date.UTC(2030, 5, 10)),
        num_left: 0,
        receipt_email: email,
      });
      assert.equal(typeof schedule.id, 'number');
      assert.deepEqual(
        [schedule.customer_id, schedule.frequency, schedule.next_run_date, schedule.amount, schedule.active, schedule.receipt_email],
        [customer.id, 'monthly', '2030-06-10', 49.99, true, email],
      );

      // The second order of the same shopper: same customer, same card, no duplicates.
      const again = await client.getOrCreateCustomer(email);
      assert.equal(again.id, customer.id);
      const sameCard = await client.getOrCreatePaymentMethod(customer.id, { ...card, source: await nonceFor(t.app, merchant, '4111111111111111') });
      assert.equal(sameCard.id, method.id);
      await client.createCharge(sameCard.id, 1000);
      assert.equal(await availableCents(t, merchant.merchant_id), 5999);

      // The schedule runs on its date.
      t.clock.set(Date.UTC(2030, 5, 10, 1));
      await t.worker.drain();
      const runs = await client.request('GET', `recurring-schedules/${schedule.id}/transactions`);
      assert.equal(runs.length, 1);
      assert.equal(runs[0].transaction.transaction_details.schedule_id, String(schedule.id));
      assert.equal(await availableCents(t, merchant.merchant_id), 5999 + 4999);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
