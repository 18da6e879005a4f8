// The Formidable Forms accept.blue plugin's calls, replayed against a source
// in the acceptblue dialect on both stores (docs/acceptblue-compatibility.md).
// Its checkout is always an authorization (capture false) and sends fields
// accept.blue does not document (currency, a top-level email, description,
// invoice_number and customer_id, customer.customer_number, three_ds,
// line_items[].unit_cost and total_amount): they are ignored, not refused.
// It fails a payment when lower(status) is error or declined or status_code
// is E or D, and otherwise reads reference_number, transaction.id,
// auth_amount and the status_details status (top level, else the
// transaction's), mapping queued to "auth" and captured/settled to "complete".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { acceptBlueMerchant, CARDS, type Loose, pluginCall, pluginOk } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { closeSandboxBatch } from '../helpers/lifecycle.ts';
import { nonceFor } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** The plugin's reading of a charge answer. */
function formidable(body: Loose): { failed: boolean; state: string; reference: number; authAmount: number } {
  const failed = ['error', 'declined'].includes(String(body?.status).toLowerCase()) || ['E', 'D'].includes(String(body?.status_code).toUpperCase());
  const status = body?.status_details?.status ?? body?.transaction?.status_details?.status;
  const states: Record<string, string> = {
    captured: 'complete',
    settled: 'complete',
    originated: 'complete',
    approved: 'complete',
    queued: 'auth',
    pending: 'auth',
    reserve: 'auth',
    voided: 'voided',
    returned: 'refunded',
    refunded: 'refunded',
  };
  return { failed, state: states[status] ?? 'failed', reference: body?.reference_number ?? body?.id, authAmount: body?.auth_amount };
}

for (const kind of STORE_KINDS) {
  describe(`the Formidable plugin's calls (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it("checkout: an authorization with the plugin's extra fields, then capture, adjust-capture and reversal through its wrapper", async () => {
      const merchant = await acceptBlueMerchant(t);
      const customer = await pluginOk(t, merchant, 'POST', 'customers', {
        email: 'grace@example.com',
        name: 'Grace Hopper',
        phone: '5550000',
        identifier: 'frm-ab-lite-0123456789ab',
        customer_number: 'C-77',
      });
      const body = {
        source: await nonceFor(t.app, merchant, CARDS.visa),
        amount: 42.5,
        currency: 'USD',
        expiry_month: 12,
        expiry_year: 2035,
        capture: false,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        avs_zip: '10001',
        avs_address: '1 Main St',
        description: 'Form entry 12',
        invoice_number: 'FRM-12',
        billing_info: {
          first_name: 'Grace',
          last_name: 'Hopper',
          street: '1 Main St',
          street2: '',
          city: 'New York',
          state: 'NY',
          zip: '10001',
          country: 'US',
          phone: '5550000',
        },
        customer: { email: 'grace@example.com', identifier: 'frm-ab-lite-0123456789ab', customer_number: 'C-77' },
        customer_id: customer.id,
        save_card: true,
        custom_fields: { custom1: 'entry-12' },
        three_ds: { browser_info: { accept_header: 'text/html' }, preference: 'no_challenge' },
        line_items: [
          { commodity_code: '00000000', sku: 'T-1', unit_of_measure: 'EA', description: 'Ticket', quantity: 1.0, unit_cost: 42.5, total_amount: 42.5 },
        ],
      };
      const answer = await pluginCall(t, merchant, 'POST', 'transactions/charge', body);
      assert.equal(answer.status, 200, answer.text);
      const read = formidable(answer.body);
      assert.deepEqual([read.failed, read.state], [false, 'auth'], answer.text);
      assert.equal(typeof read.reference, 'number');
      assert.equal(answer.body.transaction.id, read.reference);
      assert.equal(read.authAmount, 42.5);
      assert.equal(answer.body.transaction.custom_fields.custom1, 'entry-12');

      const fetched = await pluginOk(t, merchant, 'GET', `transactions/${read.reference}`, undefined, [200]);
      assert.equal(formidable(fetched).state, 'auth');

      const captured = await pluginOk(t, merchant, 'POST', 'transactions/capture', { reference_number: read.reference, amount: 42.5 }, [200]);
      assert.equal(formidable(captured).failed, false, JSON.stringify(captured));
      assert.equal(formidable(await pluginOk(t, merchant, 'GET', `transactions/${read.reference}`, undefined, [200])).state, 'complete');

      // A second entry, adjusted and captured in one call.
      const second = formidable(
        (await pluginCall(t, merchant, 'POST', 'transactions/charge', { ...body, source: await nonceFor(t.app, merchant, CARDS.visa), amount: 30 })).body,
      );
      const adjusted = await pluginOk(t, merchant, 'POST', 'transactions/adjust-capture', { reference_number: second.reference, amount: 25 }, [200]);
      assert.equal(formidable(adjusted).failed, false, JSON.stringify(adjusted));
      assert.equal((await pluginOk(t, merchant, 'GET', `transactions/${second.reference}`, undefined, [200])).amount_details.amount, 25);
      // Its refund is a reversal: in full before settlement (a void), in part after it (a refund).
      const reversed = await pluginOk(t, merchant, 'POST', 'transactions/reversal', { reference_number: read.reference }, [200]);
      assert.equal(formidable(reversed).failed, false, JSON.stringify(reversed));
      assert.equal(formidable(await pluginOk(t, merchant, 'GET', `transactions/${read.reference}`, undefined, [200])).state, 'voided');
      await closeSandboxBatch(t, merchant);
      const refunded = await pluginOk(t, merchant, 'POST', 'transactions/reversal', { reference_number: second.reference, amount: 5 }, [200]);
      assert.equal(formidable(refunded).failed, false, JSON.stringify(refunded));
      assert.equal(String(refunded.type).toLowerCase(), 'refund');
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('a declined authorization fails; a refused request answers HTTP >= 400; its list call with undocumented parameters answers an array', async () => {
      const merchant = await acceptBlueMerchant(t);
      const declined = await pluginCall(t, merchant, 'POST', 'transactions/charge', {
        source: await nonceFor(t.app, merchant, CARDS.declined),
        amount: 9,
        currency: 'USD',
        expiry_month: 12,
        expiry_year: 2035,
        capture: false,
      });
      assert.equal(declined.status, 200, declined.text);
      assert.equal(formidable(declined.body).failed, true);

      const refused = await pluginCall(t, merchant, 'POST', 'transactions/charge', {
        source: 'nonce-doesnotexist000000000',
        amount: 9,
        currency: 'USD',
        expiry_month: 12,
        expiry_year: 2035,
        capture: false,
      });
      assert.ok(refused.status >= 400, refused.text);

      const customer = await pluginOk(t, merchant, 'POST', 'customers', {
        email: 'l@example.com',
        name: 'Lin',
        phone: '1',
        identifier: 'frm-ab-lite-aaaaaaaaaaaa',
        customer_number: 'L-1',
      });
      const pm = await pluginOk(t, merchant, 'POST', `customers/${customer.id}/payment-methods`, {
        source: await nonceFor(t.app, merchant, CARDS.visa),
        expiry_month: 12,
        expiry_year: 2035,
        name: 'Lin',
        avs_zip: '10001',
        avs_address: '1 Main St',
        billing_info: { first_name: 'Lin', last_name: 'Lee' },
      });
      assert.equal(typeof pm.id, 'number');
      const list = await pluginCall(t, merchant, 'GET', `transactions?limit=10&page=1&customer_id=${customer.id}&start_date=2020-01-01&end_date=2099-01-01`);
      assert.equal(list.status, 200, list.text);
      assert.ok(Array.isArray(list.body));
    });
  });
}
