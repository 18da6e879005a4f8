// radicalloop/omnipay-acceptblue's calls, replayed against a source in the
// acceptblue dialect on both stores (docs/acceptblue-compatibility.md). The
// driver's response constructor throws unless the body's `status_code` is
// one of A, P, D, E, so every answer it can get, refusals included, must
// carry one; success is `status_code === "A"`. Its authorize is a verify,
// and its capture charges `ref-<the verify's reference_number>`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { acceptBlueMerchant, CARDS, type Loose, type PluginAnswer, pluginCall } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { closeSandboxBatch } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** The driver's Response: throws InvalidResponseException without a known status_code. */
function response(answer: PluginAnswer): { successful: boolean; body: Loose } {
  const code = answer.body?.status_code;
  if (!['A', 'P', 'D', 'E'].includes(code)) throw new Error(`InvalidResponseException: HTTP ${answer.status} ${answer.text}`);
  return { successful: code === 'A', body: answer.body };
}

const CARD = { card: CARDS.visa, expiry_month: 12, expiry_year: 2035, cvv2: '123' };

for (const kind of STORE_KINDS) {
  describe(`the radicalloop Omnipay driver's calls (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('authorize (a verify), capture (a charge of ref-<verify>), purchase, refund, void and credit', async () => {
      const merchant = await acceptBlueMerchant(t);
      const authorized = response(await pluginCall(t, merchant, 'POST', 'transactions/verify', CARD));
      assert.ok(authorized.successful, JSON.stringify(authorized.body));
      assert.equal(typeof authorized.body.reference_number, 'number');

      const captured = response(
        await pluginCall(t, merchant, 'POST', 'transactions/charge', { source: `ref-${authorized.body.reference_number}`, amount: 20 }),
      );
      assert.ok(captured.successful, JSON.stringify(captured.body));

      const purchase = response(
        await pluginCall(t, merchant, 'POST', 'transactions/charge', {
          amount: 35.5,
          ...CARD,
          billing_info: {
            first_name: 'Ada',
            last_name: 'Lovelace',
            street: '1 Main St',
            street2: '',
            city: 'New York',
            state: 'NY',
            zip: '10001',
            country: 'US',
          },
          customer: { email: 'ada@example.com' },
          transaction_details: { invoice_number: 'INV-9' },
        }),
      );
      assert.ok(purchase.successful, JSON.stringify(purchase.body));
      assert.equal(purchase.body.transaction.transaction_details.invoice_number, 'INV-9');

      // chargeStoredCard: a caller-given source string.
      const stored = response(
        await pluginCall(t, merchant, 'POST', 'transactions/charge', {
          source: `ref-${purchase.body.reference_number}`,
          amount: 4,
          customer: { email: 'ada@example.com' },
        }),
      );
      assert.ok(stored.successful, JSON.stringify(stored.body));

      const voided = response(await pluginCall(t, merchant, 'POST', 'transactions/void', { reference_number: stored.body.reference_number }));
      assert.ok(voided.successful, JSON.stringify(voided.body));

      await closeSandboxBatch(t, merchant);
      const refunded = response(await pluginCall(t, merchant, 'POST', 'transactions/refund', { reference_number: purchase.body.reference_number, amount: 10 }));
      assert.ok(refunded.successful, JSON.stringify(refunded.body));

      const creditRef = response(await pluginCall(t, merchant, 'POST', 'transactions/credit', { source: `ref-${purchase.body.reference_number}`, amount: 2 }));
      assert.ok(creditRef.successful, JSON.stringify(creditRef.body));
      const creditCard = response(await pluginCall(t, merchant, 'POST', 'transactions/credit', { ...CARD, amount: 1.25 }));
      assert.ok(creditCard.successful, JSON.stringify(creditCard.body));
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('every refusal the driver can meet carries status_code, so it reports a message instead of throwing', async () => {
      const merchant = await acceptBlueMerchant(t);
      const declined = response(
        await pluginCall(t, merchant, 'POST', 'transactions/charge', { amount: 5, card: CARDS.declined, expiry_month: 12, expiry_year: 2035, cvv2: '123' }),
      );
      assert.equal(declined.successful, false);
      assert.equal(declined.body.status_code, 'D');

      const invalid = await pluginCall(t, merchant, 'POST', 'transactions/charge', { amount: 'ten', ...CARD });
      assert.equal(invalid.status, 400);
      assert.equal(response(invalid).body.status_code, 'E');
      assert.equal(typeof invalid.body.error_message, 'string');

      const unknown = await pluginCall(t, merchant, 'POST', 'transactions/refund', { reference_number: 999_999_999, amount: 1 });
      assert.equal(unknown.status, 404);
      assert.equal(response(unknown).body.status_code, 'E');

      const unsettled = response(await pluginCall(t, merchant, 'POST', 'transactions/charge', { amount: 5, ...CARD }));
      const early = await pluginCall(t, merchant, 'POST', 'transactions/refund', { reference_number: unsettled.body.reference_number, amount: 1 });
      assert.equal(response(early).body.status_code, 'E');
      assert.equal(response(early).successful, false);

      // Wrong credentials: the driver still finds status_code.
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/api/v2/transactions/charge',
        headers: { authorization: `Basic ${Buffer.from(`${merchant.source.api_key}:00000000`).toString('base64')}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ amount: 5, ...CARD }),
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal(JSON.parse(wrong.body).status_code, 'E');
    });
  });
}
