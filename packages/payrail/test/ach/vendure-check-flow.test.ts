// The Pinelab Vendure accept.blue plugin's checkout with a bank account,
// replayed against a source in the acceptblue dialect on both stores, each
// answer read as the plugin's client class reads it
// (docs/acceptblue-compatibility.md): the customer looked up and created,
// the shopper's saved methods listed and a check matched by name,
// routing_number, last4 and account_type (case-sensitive), the check saved
// with the storefront's body verbatim (`account_type: "Checking"`, no
// sec_code), a subscription on it, then `POST transactions/charge` with
// `source: "pm-<id>"` and the transaction read back; a returning shopper
// finds the same check again instead of saving it twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { acceptBlueMerchant, type Loose, pluginCall, pluginOk } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const ACCOUNT = '70000012344321';
/** The storefront's check metadata, sent verbatim (Vendure's `sec_code?` left out). */
const CHECK_INPUT = { name: 'Ada Lovelace', routing_number: '021000021', account_number: ACCOUNT, account_type: 'Checking' };
const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  street: '1 Main St',
  zip: '10001',
  state: 'NY',
  city: 'New York',
  country: 'US',
  phone: '5551234567',
};

/** The plugin's check comparison: name and routing_number equal, the account number ends with last4, account_type strictly equal. */
const isSameCheck = (input: typeof CHECK_INPUT, method: Loose) =>
  method.name === input.name &&
  method.routing_number === input.routing_number &&
  input.account_number.endsWith(method.last4) &&
  method.account_type === input.account_type;

for (const kind of STORE_KINDS) {
  describe(`the Vendure plugin's checkout with a saved check (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('saves the check, finds it again, subscribes on it and charges it as pm-<id>', async () => {
      const merchant = await acceptBlueMerchant(t);
      const email = 'ada@example.com';

      // upsertCustomer.
      assert.deepEqual(await pluginOk(t, merchant, 'GET', `customers?active=true&customer_number=${encodeURIComponent(email)}`, undefined, [200]), []);
      const customer = await pluginOk(t, merchant, 'POST', 'customers', {
        first_name: 'Ada',
        last_name: 'Lovelace',
        identifier: email,
        customer_number: email,
        email,
        active: true,
        billing_info: ADDRESS,
        shipping_info: ADDRESS,
      });

      // getOrCreatePaymentMethod: list, compare, create with the storefront's body verbatim.
      const methods = await pluginOk(t, merchant, 'GET', `customers/${customer.id}/payment-methods?limit=100`, undefined, [200]);
      assert.ok(Array.isArray(methods) && methods.length < 100);
      assert.equal(methods.filter((m: Loose) => isSameCheck(CHECK_INPUT, m)).length, 0);
      const pm = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, CHECK_INPUT);
      assert.equal(typeof pm.id, 'number');
      assert.equal(String(pm.customer_id), String(customer.id));
      // The allowed-method check: a check by its type; card_type is not read then.
      assert.equal(pm.payment_method_type, 'check');
      assert.equal(pm.card_type, null);
      // The GraphQL type requires these present.
      for (const field of ['id', 'created_at', 'expiry_month', 'expiry_year']) assert.ok(field in pm, `payment method ${field}`);
      assert.deepEqual([pm.account_type, pm.last4, pm.sec_code, pm.account_number], ['Checking', '4321', 'WEB', null]);

      // The returning shopper: the same check is found, not saved again.
      const again = await pluginOk(t, merchant, 'GET', `customers/${customer.id}/payment-methods?limit=100`, undefined, [200]);
      assert.deepEqual(
        again.filter((m: Loose) => isSameCheck(CHECK_INPUT, m)).map((m: Loose) => m.id),
        [pm.id],
      );
      const saved = await pluginOk(t, merchant, 'GET', `payment-methods/${pm.id}`, undefined, [200]);
      assert.deepEqual([String(saved.customer_id), saved.payment_method_type, saved.card_type], [String(customer.id), 'check', null]);

      // The subscription line: a schedule on the check.
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
      assert.equal(schedule.payment_method_id, pm.id);

      // The order's charge.
      const charge = await pluginCall(t, merchant, 'POST', 'transactions/charge', {
        source: `pm-${pm.id}`,
        amount: 49.99,
        custom_fields: { custom1: '["1"]' },
        transaction_details: { order_number: 'ORD-1', description: 'Order ORD-1' },
        billing_info: ADDRESS,
        shipping_info: ADDRESS,
      });
      assert.equal(charge.status, 200, charge.text);
      // The plugin's success test, then transaction.id (read without optional chaining).
      assert.ok(charge.body.status !== 'Error' && charge.body.status !== 'Declined', charge.text);
      assert.equal(typeof charge.body.transaction.id, 'number');
      const transaction = await pluginOk(t, merchant, 'GET', `transactions/${charge.body.transaction.id}`, undefined, [200]);
      assert.equal(transaction.status_details.status, 'pending', 'an approved check is pending until it settles');
      assert.equal(transaction.amount_details.amount, 49.99);
      assert.equal(transaction.custom_fields.custom1, '["1"]');
      assert.deepEqual(
        [transaction.check_details.name, transaction.check_details.routing_number, transaction.check_details.account_number_last4],
        ['Ada Lovelace', '021000021', '4321'],
      );
      assert.equal(transaction.card_details ?? null, null, 'a check has no card details');
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);

      for (const line of t.logLines) assert.ok(!line.includes(ACCOUNT), `a log line shows the account number: ${line.slice(0, 200)}`);
      assert.ok(!JSON.stringify([charge.body, transaction]).includes(ACCOUNT));
    });
  });
}
