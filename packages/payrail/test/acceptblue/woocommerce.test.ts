// The WooCommerce accept.blue plugin's calls, replayed against a source in the
// acceptblue dialect on both stores (docs/acceptblue-compatibility.md). Its
// validated calls succeed only when `status_code` is "A" (a body without
// one falls back to the HTTP status, where anything above 200 fails); its
// refund path reads the transaction's top-level `status_details` and then
// voids or refunds, failing on any non-empty `error_message` and succeeding
// only on status "Approved". Card numbers are sent raw on checkout and on
// "add payment method" (a verify with save_card), and renewals charge the
// saved token `tkn-<card_ref>` with no expiry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { acceptBlueMerchant, CARDS, type Loose, type PluginAnswer, pluginCall } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { closeSandboxBatch } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

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

/** WC_Acceptblue_API::request with validation on: the error test the plugin applies. */
function validated(answer: PluginAnswer): { ok: boolean; body: Loose } {
  const code = answer.body?.status_code ?? answer.status;
  const failed = typeof code === 'string' ? code !== 'A' : code > 200;
  return { ok: !failed, body: answer.body };
}

/** The order checkout body (authorize_card_request). */
function checkoutBody(orderId: number, amount: number, capture: boolean, payment: Record<string, unknown>): Record<string, unknown> {
  return {
    amount,
    amount_details: { tax: 1.5 },
    name: 'Ada Lovelace',
    billing_info: BILLING,
    shipping_info: SHIPPING,
    custom_fields: {},
    capture,
    save_card: true,
    customer: { email: 'ada@example.com' },
    transaction_details: { order_number: String(orderId) },
    ...payment,
  };
}

for (const kind of STORE_KINDS) {
  describe(`the WooCommerce plugin's calls (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    /** The plugin's refund: GET the transaction, then void (queued/captured/pending) or refund (settled). */
    async function wooRefund(
      merchant: Awaited<ReturnType<typeof acceptBlueMerchant>>,
      reference: number,
      amount: number | null,
    ): Promise<{ ok: boolean; status: string; answer: Loose }> {
      const read = await pluginCall(t, merchant, 'GET', `transactions/${reference}`);
      assert.ok(read.body !== undefined && 'status_details' in read.body, `Transaction not found: ${read.text}`);
      const status = read.body.status_details.status as string;
      let answer: PluginAnswer;
      if (status === 'settled')
        answer = await pluginCall(
          t,
          merchant,
          'POST',
          'transactions/refund',
          amount === null ? { reference_number: reference } : { reference_number: reference, amount },
        );
      else if (['queued', 'captured', 'pending'].includes(status))
        answer = await pluginCall(t, merchant, 'POST', 'transactions/void', { reference_number: reference });
      else return { ok: false, status, answer: read.body };
      const failed = typeof answer.body?.error_message === 'string' && answer.body.error_message !== '';
      return { ok: !failed && answer.body?.status === 'Approved', status, answer: answer.body };
    }

    it('checkout with a raw card and save_card: the order keeps reference_number and a token from card_ref, last_4 and card_type', async () => {
      const merchant = await acceptBlueMerchant(t);
      const answer = validated(
        await pluginCall(
          t,
          merchant,
          'POST',
          'transactions/charge',
          checkoutBody(101, 30, true, { card: CARDS.visa, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
        ),
      );
      assert.ok(answer.ok, JSON.stringify(answer.body));
      assert.equal(typeof answer.body.reference_number, 'number');
      assert.match(answer.body.card_ref, /^[A-Z]{2}[A-Z0-9]{14}$/);
      assert.equal(answer.body.last_4, '1111');
      assert.equal(answer.body.card_type, 'Visa');
      assert.ok(!JSON.stringify(answer.body).includes(CARDS.visa), 'the card number is never echoed');

      // A subscription renewal charges the token with no expiry.
      const renewal = validated(
        await pluginCall(t, merchant, 'POST', 'transactions/charge', checkoutBody(102, 30, true, { source: `tkn-${answer.body.card_ref}` })),
      );
      assert.ok(renewal.ok, JSON.stringify(renewal.body));
      assert.equal(renewal.body.last_4, '1111');

      // A declined card: the plugin's validation fails on status_code "D" (the HTTP status is 200).
      const declined = await pluginCall(
        t,
        merchant,
        'POST',
        'transactions/charge',
        checkoutBody(103, 30, true, { card: CARDS.declined, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
      );
      assert.equal(declined.status, 200, declined.text);
      assert.equal(validated(declined).ok, false);
      assert.equal(declined.body.status_code, 'D');
      assert.ok(declined.body.card_ref === null || declined.body.card_ref === undefined, 'no token for a declined card');
      assert.notEqual(declined.body.error_message, '');
    });

    it('"add payment method": a verify with save_card answers card_ref, last_4, card_type and reference_number', async () => {
      const merchant = await acceptBlueMerchant(t);
      const verify = await pluginCall(t, merchant, 'POST', 'transactions/verify', {
        card: CARDS.mastercard,
        expiry_month: 11,
        expiry_year: 2034,
        cvv2: '123',
        save_card: true,
      });
      assert.equal(verify.status, 200, verify.text);
      assert.match(verify.body.card_ref, /^[A-Z]{2}[A-Z0-9]{14}$/);
      assert.equal(verify.body.last_4, '4444');
      assert.equal(verify.body.card_type, 'MasterCard');
      assert.equal(typeof verify.body.reference_number, 'number');
      const charge = validated(
        await pluginCall(t, merchant, 'POST', 'transactions/charge', checkoutBody(104, 12, true, { source: `tkn-${verify.body.card_ref}` })),
      );
      assert.ok(charge.ok, JSON.stringify(charge.body));
    });

    it('an authorization held on-hold is captured later, and capture answers reference_number', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = validated(
        await pluginCall(
          t,
          merchant,
          'POST',
          'transactions/charge',
          checkoutBody(105, 40, false, { card: CARDS.visa, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
        ),
      );
      assert.ok(auth.ok, JSON.stringify(auth.body));
      const read = await pluginCall(t, merchant, 'GET', `transactions/${auth.body.reference_number}`);
      assert.equal(read.body.status_details.status, 'queued');
      const capture = validated(await pluginCall(t, merchant, 'POST', 'transactions/capture', { reference_number: auth.body.reference_number }));
      assert.ok(capture.ok, JSON.stringify(capture.body));
      assert.equal(capture.body.reference_number, auth.body.reference_number);
      // Capturing again still succeeds (accept.blue's capture is idempotent).
      assert.ok(validated(await pluginCall(t, merchant, 'POST', 'transactions/capture', { reference_number: auth.body.reference_number })).ok);
      assert.equal((await pluginCall(t, merchant, 'GET', `transactions/${auth.body.reference_number}`)).body.status_details.status, 'captured');
    });

    it('an admin edit of the order total adjusts the authorization', async () => {
      const merchant = await acceptBlueMerchant(t);
      const auth = validated(
        await pluginCall(
          t,
          merchant,
          'POST',
          'transactions/charge',
          checkoutBody(106, 50, false, { card: CARDS.visa, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
        ),
      );
      const adjusted = validated(await pluginCall(t, merchant, 'POST', 'transactions/adjust', { reference_number: auth.body.reference_number, amount: 45 }));
      assert.ok(adjusted.ok, JSON.stringify(adjusted.body));
      const read = await pluginCall(t, merchant, 'GET', `transactions/${auth.body.reference_number}`);
      assert.equal(read.body.amount_details.amount, 45);
    });

    it('refunds route by status: queued and captured are voided, settled are refunded; each succeeds with status Approved and no error_message', async () => {
      const merchant = await acceptBlueMerchant(t);
      const charge = async (orderId: number, capture: boolean) =>
        validated(
          await pluginCall(
            t,
            merchant,
            'POST',
            'transactions/charge',
            checkoutBody(orderId, 20, capture, { card: CARDS.visa, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
          ),
        ).body.reference_number as number;
      const queued = await charge(201, false);
      const captured = await charge(202, true);
      const voidedQueued = await wooRefund(merchant, queued, null);
      assert.deepEqual([voidedQueued.status, voidedQueued.ok], ['queued', true], JSON.stringify(voidedQueued.answer));
      const voidedCaptured = await wooRefund(merchant, captured, null);
      assert.deepEqual([voidedCaptured.status, voidedCaptured.ok], ['captured', true], JSON.stringify(voidedCaptured.answer));
      assert.equal((await pluginCall(t, merchant, 'GET', `transactions/${captured}`)).body.status_details.status, 'voided');

      const settled = await charge(203, true);
      await closeSandboxBatch(t, merchant);
      const refunded = await wooRefund(merchant, settled, 5);
      assert.deepEqual([refunded.status, refunded.ok], ['settled', true], JSON.stringify(refunded.answer));
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('the hourly status job lists by date range in ascending order and pages by offset', async () => {
      const merchant = await acceptBlueMerchant(t);
      const references: number[] = [];
      for (let i = 0; i < 3; i++) {
        const answer = await pluginCall(
          t,
          merchant,
          'POST',
          'transactions/charge',
          checkoutBody(300 + i, 10 + i, true, { card: CARDS.visa, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
        );
        references.push(answer.body.reference_number);
      }
      const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
      const from = stamp(t.clock.nowMs() - 86_400_000);
      const to = stamp(t.clock.nowMs() + 86_400_000);
      const page = await pluginCall(t, merchant, 'GET', `transactions?order=asc&limit=2&date_from=${from}&date_to=${to}&offset=0`);
      assert.equal(page.status, 200, page.text);
      assert.ok(Array.isArray(page.body));
      assert.deepEqual(
        page.body.map((tx: Loose) => tx.id),
        references.slice(0, 2),
      );
      for (const tx of page.body) {
        assert.equal(typeof tx.status_details.status, 'string');
        assert.ok('error_message' in tx.status_details || tx.status_details.error_message === undefined);
      }
      const next = await pluginCall(t, merchant, 'GET', `transactions?order=asc&limit=2&date_from=${from}&date_to=${to}&offset=2`);
      assert.deepEqual(
        next.body.map((tx: Loose) => tx.id),
        references.slice(2),
      );
    });
  });
}
