// The Pinelab Vendure accept.blue plugin's calls, replayed against a source in
// the acceptblue dialect on both stores, each answer read as the plugin's
// client class reads it (docs/acceptblue-compatibility.md): a new shopper's
// checkout (customer lookup by e-mail, customer, payment method from a nonce,
// deduplication, schedule, charge with custom fields and amount details), a
// returning shopper, the subscription's life, a refund after the batch
// closes, surcharges, webhook registration and a delivery that passes the
// plugin's own signature check. The plugin treats a 404 as "nothing" and any
// other status >= 400 as an error carrying `error_message`.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { acceptBlueMerchant, assertNoError, CARDS, deliverWebhooksNow, type Loose, pluginCall, pluginOk } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { closeSandboxBatch } from '../helpers/lifecycle.ts';
import { nonceFor } from '../helpers/payin.ts';
import { dayOf, runScheduleNow } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  street: '1 Main St',
  street2: '',
  zip: '10001',
  state: 'NY',
  phone: '5551234567',
  city: 'New York',
  country: 'US',
};

/** The plugin's card comparison (util.ts isSameCard): last4 and both expiry numbers strictly equal. */
const isSameCard = (input: { last4: string; expiry_month: number; expiry_year: number }, method: Loose) =>
  input.last4 === method.last4 && input.expiry_month === method.expiry_month && input.expiry_year === method.expiry_year;

for (const kind of STORE_KINDS) {
  describe(`the Vendure plugin's calls (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('a new shopper checks out, comes back with the saved card, and the plugin reads every answer it needs', async () => {
      const merchant = await acceptBlueMerchant(t);
      const email = 'ada@example.com';

      // upsertCustomer: the lookup must answer an array, never 404.
      const none = await pluginOk(t, merchant, 'GET', `customers?active=true&customer_number=${encodeURIComponent(email)}`, undefined, [200]);
      assert.deepEqual(none, []);
      const customer = await pluginOk(t, merchant, 'POST', 'customers', {
        first_name: 'Ada',
        last_name: 'Lovelace',
        phone: '5551234567',
        billing_info: ADDRESS,
        shipping_info: ADDRESS,
        identifier: email,
        customer_number: email,
        email,
        active: true,
      });
      assert.equal(typeof customer.id, 'number');
      const foundAgain = await pluginOk(t, merchant, 'GET', `customers?active=true&customer_number=${encodeURIComponent(email)}`, undefined, [200]);
      assert.equal(foundAgain.length, 1);
      assert.equal(foundAgain[0].id, customer.id);
      // The returning shopper's PATCH with the same fields (the answer is ignored, errors only logged).
      const patched = await pluginCall(t, merchant, 'PATCH', `customers/${customer.id}`, {
        first_name: 'Ada',
        last_name: 'Lovelace',
        identifier: email,
        email,
        phone: '5551234567',
        billing_info: ADDRESS,
        shipping_info: ADDRESS,
      });
      assert.equal(patched.status, 200, patched.text);

      // getOrCreatePaymentMethod: list (with the plugin's limit=100), compare, create with its extra `last4`.
      const methods = await pluginOk(t, merchant, 'GET', `customers/${customer.id}/payment-methods?limit=100`, undefined, [200]);
      assert.deepEqual(methods, []);
      const input = { source: await nonceFor(t.app, merchant, CARDS.visa), expiry_month: 12, expiry_year: 2035, last4: '1111' };
      const pm = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, input);
      assert.equal(typeof pm.id, 'number');
      assert.equal(pm.payment_method_type, 'card');
      assert.equal(pm.card_type, 'Visa');
      // The plugin compares customer ids with != (loosely).
      assert.equal(String(pm.customer_id), String(customer.id), 'customer_id (the plugin compares loosely)');
      for (const field of ['id', 'created_at', 'expiry_month', 'expiry_year']) assert.notEqual(pm[field], undefined, `payment method ${field}`);
      const listed = await pluginOk(t, merchant, 'GET', `customers/${customer.id}/payment-methods?limit=100`, undefined, [200]);
      assert.equal(listed.filter((m: Loose) => m.payment_method_type === 'card' && isSameCard(input, m)).length, 1, JSON.stringify(listed));

      // A subscription starting today: no next_run_date.
      const schedule = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/recurring-schedules`, {
        title: 'Monthly box',
        active: true,
        amount: 19.99,
        frequency: 'monthly',
        num_left: 0,
        payment_method_id: pm.id,
        receipt_email: email,
      });
      assert.equal(typeof schedule.id, 'number');
      assert.equal(schedule.next_run_date, dayOf(t, 1), 'next_run_date defaults to tomorrow');

      // The charge: pm- source, custom_fields.custom1, amount details, line items.
      const charge = await pluginOk(
        t,
        merchant,
        'POST',
        'transactions/charge',
        {
          source: `pm-${pm.id}`,
          amount: 49.99,
          custom_fields: { custom1: '["1","2"]' },
          amount_details: { tax: 3, surcharge: 0, shipping: 5, tip: 0, discount: 0 },
          transaction_details: { order_number: 'ORD-1', description: 'Order ORD-1' },
          billing_info: ADDRESS,
          shipping_info: ADDRESS,
          line_items: [
            {
              sku: 'BOX-1',
              name: 'Box',
              description: 'A box',
              cost: 41.99,
              quantity: 1,
              tax_rate: 7,
              tax_amount: 3,
              unit_of_measure: 'EA',
              commodity_code: '12345678',
              discount_rate: 0,
              discount_amount: 0,
            },
          ],
        },
        [200],
      );
      assert.ok(charge.status !== 'Error' && charge.status !== 'Declined', JSON.stringify(charge));
      assert.equal(charge.status, 'Approved');
      assert.equal(typeof charge.transaction.id, 'number');
      assert.equal(charge.reference_number, charge.transaction.id);
      assertNoError(charge, 'approved charge');
      const transaction = await pluginOk(t, merchant, 'GET', `transactions/${charge.transaction.id}`, undefined, [200]);
      assert.equal(transaction.id, charge.transaction.id);
      assert.equal(transaction.status_details.status, 'captured');
      assert.equal(transaction.custom_fields.custom1, '["1","2"]');
      assert.equal(transaction.amount_details.amount, 49.99);
      assert.equal(transaction.amount_details.tax, 3);
      assert.equal(transaction.amount_details.shipping, 5);
      assert.equal(transaction.transaction_details.order_number, 'ORD-1');
      assert.equal(transaction.shipping_info.city, 'New York');

      // The returning shopper: the saved method is read and charged again.
      const saved = await pluginOk(t, merchant, 'GET', `payment-methods/${pm.id}`, undefined, [200]);
      assert.equal(String(saved.customer_id), String(customer.id));
      assert.equal(saved.payment_method_type, 'card');
      assert.equal(saved.card_type, 'Visa');
      const second = await pluginOk(
        t,
        merchant,
        'POST',
        'transactions/charge',
        { source: `pm-${pm.id}`, amount: 15, custom_fields: { custom1: '["3"]' } },
        [200],
      );
      assert.equal(second.status, 'Approved');
      assert.equal(typeof second.transaction.id, 'number');

      // A refund after the batch closes: the plugin fails it only when error_code is truthy, and needs version and reference_number.
      await closeSandboxBatch(t, merchant);
      const refund = await pluginOk(t, merchant, 'POST', 'transactions/refund', { reference_number: charge.transaction.id, amount: 10 }, [200]);
      assert.ok(!refund.error_code, JSON.stringify(refund));
      assert.equal(refund.status, 'Approved');
      assert.equal(typeof refund.version, 'string');
      assert.equal(typeof refund.reference_number, 'number');
      assert.notEqual(refund.reference_number, charge.transaction.id);

      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('a subscription: read, update, its transactions as the plugin maps them, and delete; a method used by it cannot be deleted', async () => {
      const merchant = await acceptBlueMerchant(t);
      const customer = await pluginOk(t, merchant, 'POST', 'customers', {
        identifier: 'sub@example.com',
        customer_number: 'sub@example.com',
        email: 'sub@example.com',
        active: true,
      });
      const pm = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, {
        source: await nonceFor(t.app, merchant, CARDS.mastercard),
        expiry_month: 12,
        expiry_year: 2035,
        last4: '4444',
      });
      assert.equal(pm.card_type, 'MasterCard', 'the plugin allows MasterCard spelled exactly so');
      const schedule = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/recurring-schedules`, {
        title: 'Weekly',
        active: true,
        amount: 5,
        frequency: 'weekly',
        num_left: 3,
        payment_method_id: pm.id,
        next_run_date: dayOf(t, 2),
      });
      const read = await pluginOk(t, merchant, 'GET', `recurring-schedules/${schedule.id}`, undefined, [200]);
      for (const field of ['id', 'customer_id', 'title', 'frequency', 'amount', 'payment_method_id', 'created_at', 'next_run_date', 'num_left']) {
        assert.notEqual(read[field], undefined, `schedule ${field}`);
      }
      assert.ok('prev_run_date' in read, 'schedule prev_run_date');
      const updated = await pluginOk(t, merchant, 'PATCH', `recurring-schedules/${schedule.id}`, { amount: 7.5, next_run_date: dayOf(t, 3) }, [200]);
      assert.equal(updated.amount, 7.5);
      assert.equal(updated.next_run_date, dayOf(t, 3));

      const run = await runScheduleNow(t, merchant, schedule.id);
      assert.equal(run.statusCode, 200, run.body);
      const transactions = await pluginOk(t, merchant, 'GET', `recurring-schedules/${schedule.id}/transactions`, undefined, [200]);
      assert.ok(Array.isArray(transactions) && transactions.length === 1, JSON.stringify(transactions));
      const [tx] = transactions;
      assert.equal(typeof tx.id, 'number');
      assert.equal(tx.amount_details.amount, 7.5);
      assert.equal(typeof tx.created_at, 'string');
      assert.ok('settled_date' in tx);
      assert.equal(tx.card_details.card_type, 'MasterCard');
      assert.equal(tx.card_details.last4, '4444');
      assert.equal(tx.card_details.expiry_month, 12);
      assert.equal(tx.card_details.expiry_year, 2035);
      assert.ok('name' in tx.card_details);
      assert.equal(typeof tx.status_details.status, 'string');
      assert.equal(tx.transaction_details.schedule_id, schedule.id, 'schedule_id is the schedule as an integer');

      const blocked = await pluginCall(t, merchant, 'DELETE', `payment-methods/${pm.id}`);
      assert.equal(blocked.status, 409, blocked.text);
      assert.ok(blocked.contentType.includes('application/json'));
      assert.equal(typeof blocked.body.error_message, 'string');
      assert.notEqual(blocked.body.error_message, '');

      const deleted = await pluginCall(t, merchant, 'DELETE', `recurring-schedules/${schedule.id}`);
      assert.equal(deleted.status, 204, deleted.text);
      // Gone: the plugin reads a 404 as undefined.
      assert.equal((await pluginCall(t, merchant, 'GET', `recurring-schedules/${schedule.id}`)).status, 404);
      const pmDeleted = await pluginCall(t, merchant, 'DELETE', `payment-methods/${pm.id}`);
      assert.equal(pmDeleted.status, 204, pmDeleted.text);
    });

    it('a declined charge answers 200 with status Declined and its error; a refused request answers its 4xx with error_message', async () => {
      const merchant = await acceptBlueMerchant(t);
      const customer = await pluginOk(t, merchant, 'POST', 'customers', {
        identifier: 'd@example.com',
        customer_number: 'd@example.com',
        email: 'd@example.com',
        active: true,
      });
      const pm = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, {
        source: await nonceFor(t.app, merchant, CARDS.declined),
        expiry_month: 12,
        expiry_year: 2035,
        last4: '0002',
      });
      const declined = await pluginCall(t, merchant, 'POST', 'transactions/charge', { source: `pm-${pm.id}`, amount: 5, custom_fields: { custom1: '[]' } });
      assert.equal(declined.status, 200, declined.text);
      assert.equal(declined.body.status, 'Declined');
      assert.equal(declined.body.status_code, 'D');
      assert.equal(typeof declined.body.error_message, 'string');
      assert.notEqual(declined.body.error_message, '');
      assert.equal(typeof declined.body.transaction.id, 'number');

      const refused = await pluginCall(t, merchant, 'POST', 'transactions/charge', { source: `pm-${pm.id}`, amount: -5, custom_fields: { custom1: '[]' } });
      assert.equal(refused.status, 400, refused.text);
      assert.ok(refused.contentType.includes('application/json'));
      assert.equal(typeof refused.body.error_message, 'string');
      assert.equal(refused.body.status, 'Error');

      // Google Pay is not offered: refused with a message, nothing charged.
      const wallet = await pluginCall(t, merchant, 'POST', 'transactions/charge', {
        amount: 5,
        source: 'googlepay',
        token: '{"signature":"x"}',
        custom_fields: { custom1: '[]' },
      });
      assert.equal(wallet.status, 400, wallet.text);
      assert.equal(typeof wallet.body.error_message, 'string');
    });

    it('surcharges, webhook registration, and deliveries that pass the plugin signature check', async () => {
      const merchant = await acceptBlueMerchant(t);
      const surcharge = await pluginOk(t, merchant, 'GET', 'surcharge', undefined, [200]);
      assert.notEqual(surcharge.card, null);
      assert.notEqual(surcharge.check, null);
      assert.equal(typeof surcharge.card.type, 'string');
      assert.equal(typeof surcharge.card.value, 'number');

      const receiver = await startReceiver(() => 201);
      try {
        const url = `${receiver.url.replace('/hooks', '')}/accept-blue/webhook/channel-token`;
        assert.deepEqual(await pluginOk(t, merchant, 'GET', 'webhooks', undefined, [200]), []);
        const created = await pluginOk(t, merchant, 'POST', 'webhooks', {
          webhook_url: url,
          description: 'Notify Vendure of any events on the Accept Blue platform',
          active: true,
        });
        assert.equal(typeof created.signature, 'string');
        assert.ok(created.signature.length >= 16);
        const listed = await pluginOk(t, merchant, 'GET', 'webhooks', undefined, [200]);
        const existing = listed.find((hook: Loose) => hook.webhook_url === url);
        assert.equal(existing?.signature, created.signature);
        const duplicate = await pluginCall(t, merchant, 'POST', 'webhooks', { webhook_url: url, description: 'again', active: true });
        assert.equal(duplicate.status, 409, duplicate.text);

        const customer = await pluginOk(t, merchant, 'POST', 'customers', {
          identifier: 'w@example.com',
          customer_number: 'w@example.com',
          email: 'w@example.com',
          active: true,
        });
        const pm = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, {
          source: await nonceFor(t.app, merchant, CARDS.visa),
          expiry_month: 12,
          expiry_year: 2035,
        });
        const charge = await pluginOk(
          t,
          merchant,
          'POST',
          'transactions/charge',
          { source: `pm-${pm.id}`, amount: 12, custom_fields: { custom1: '["7"]' } },
          [200],
        );
        await deliverWebhooksNow(t);
        assert.ok(receiver.received.length >= 1, 'a delivery arrived');
        for (const delivery of receiver.received) {
          // AcceptBlueService.isValidSignature: hex HMAC-SHA256 of the raw body, keyed by the signature, compared with ===.
          const hash = crypto.createHmac('sha256', created.signature).update(Buffer.from(delivery.body, 'utf8')).digest('hex');
          assert.equal(hash, delivery.headers['x-signature']);
        }
        const bodies = receiver.received.map((d) => JSON.parse(d.body) as Loose);
        const succeeded = bodies.find((b) => b.event === 'transaction' && b.type === 'succeeded' && b.subType === 'charge');
        assert.ok(succeeded, JSON.stringify(bodies.map((b) => [b.event, b.type, b.subType])));
        assert.equal(succeeded.data.transaction.id, charge.transaction.id);
        assert.equal(succeeded.data.transaction.custom_fields.custom1, '["7"]');
        assert.equal(typeof succeeded.id, 'string');
        assert.equal(typeof succeeded.timestamp, 'string');
      } finally {
        await receiver.close();
      }
    });
  });
}
