// futureecom/omnipay-acceptblue's calls, replayed against a source in the
// acceptblue dialect on both stores (docs/acceptblue-compatibility.md). The
// driver ignores the HTTP status and reads the JSON body: success is
// `status === "Approved"`, the reference is `reference_number`, the message
// `error_message`, the token `card_ref` (`cardRef` from /saved-cards). Its
// defaults: authorize with capture false and save_card true; a token or
// nonce source sends expiry_month and expiry_year as 0 when the caller gave
// none, and cvv2/avs fields as JSON null; reverse sends its amount as a
// string such as "10.00".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { acceptBlueMerchant, CARDS, type Loose, pluginCall } from '../helpers/acceptblue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { closeSandboxBatch } from '../helpers/lifecycle.ts';
import { nonceFor } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** What the driver makes of an answer (AbstractResponse). */
function omnipay(body: Loose) {
  return {
    successful: body?.status === 'Approved',
    code: body?.status_code,
    reference: body?.reference_number,
    message: body?.error_message,
    token: body?.card_ref,
  };
}

for (const kind of STORE_KINDS) {
  describe(`the futureecom Omnipay driver's calls (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('createCard from a nonce, then authorize, capture, refund after settlement, reverse with a string amount, and void', async () => {
      const merchant = await acceptBlueMerchant(t);
      const nonce = await nonceFor(t.app, merchant, CARDS.visa);
      const created = await pluginCall(t, merchant, 'POST', 'saved-cards', { source: nonce, expiry_month: 12, expiry_year: 2035 });
      assert.ok(typeof created.body.cardRef === 'string' && created.body.cardRef.length > 1, created.text);

      // authorize: capture false, save_card true, the token with expiry 0 and null cvv/avs.
      const paymentOf = (cardRef: string) => ({ source: `tkn-${cardRef}`, expiry_month: 0, expiry_year: 0, cvv2: null, avs_address: null, avs_zip: null });
      const authorized = omnipay(
        (
          await pluginCall(t, merchant, 'POST', 'transactions/charge', {
            amount: 25,
            ...paymentOf(created.body.cardRef),
            capture: false,
            save_card: true,
            transaction_details: { order_number: 'F-1' },
          })
        ).body,
      );
      assert.ok(authorized.successful, JSON.stringify(authorized));
      assert.equal(typeof authorized.reference, 'number');
      assert.ok(authorized.message === null || authorized.message === undefined || authorized.message === '');

      const captured = omnipay((await pluginCall(t, merchant, 'POST', 'transactions/capture', { reference_number: authorized.reference })).body);
      assert.ok(captured.successful, JSON.stringify(captured));

      await closeSandboxBatch(t, merchant);
      const refunded = omnipay(
        (await pluginCall(t, merchant, 'POST', 'transactions/refund', { reference_number: authorized.reference, amount: 5, cvv2: null })).body,
      );
      assert.ok(refunded.successful, JSON.stringify(refunded));
      assert.notEqual(refunded.reference, authorized.reference);

      // reverse on a settled charge refunds the amount given as text.
      const reversed = await pluginCall(t, merchant, 'POST', 'transactions/reversal', { reference_number: authorized.reference, amount: '10.00' });
      assert.ok(omnipay(reversed.body).successful, reversed.text);
      assert.equal(String(reversed.body.type).toLowerCase(), 'refund');

      // A second authorization, voided.
      const second = omnipay(
        (await pluginCall(t, merchant, 'POST', 'transactions/charge', { amount: 8, ...paymentOf(created.body.cardRef), capture: false, save_card: true })).body,
      );
      const voided = omnipay((await pluginCall(t, merchant, 'POST', 'transactions/void', { reference_number: second.reference })).body);
      assert.ok(voided.successful, JSON.stringify(voided));
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('authorize with a raw card and null avs fields answers a token; a decline is not successful and carries its message', async () => {
      const merchant = await acceptBlueMerchant(t);
      const approved = omnipay(
        (
          await pluginCall(t, merchant, 'POST', 'transactions/charge', {
            amount: 11,
            card: CARDS.visa,
            expiry_month: 12,
            expiry_year: 2035,
            cvv2: '123',
            avs_address: null,
            avs_zip: null,
            capture: false,
            save_card: true,
          })
        ).body,
      );
      assert.ok(approved.successful, JSON.stringify(approved));
      assert.match(approved.token, /^[A-Z]{2}[A-Z0-9]{14}$/);

      const declined = omnipay(
        (
          await pluginCall(t, merchant, 'POST', 'transactions/charge', {
            amount: 11,
            card: CARDS.declined,
            expiry_month: 12,
            expiry_year: 2035,
            cvv2: '123',
            capture: false,
            save_card: true,
          })
        ).body,
      );
      assert.equal(declined.successful, false);
      assert.equal(declined.code, 'D');
      assert.ok(typeof declined.message === 'string' && declined.message !== '');
    });

    it('credit to a saved token and verify with save_card', async () => {
      const merchant = await acceptBlueMerchant(t);
      const verified = await pluginCall(t, merchant, 'POST', 'transactions/verify', {
        save_card: true,
        source: await nonceFor(t.app, merchant, CARDS.mastercard),
        expiry_month: 12,
        expiry_year: 2035,
      });
      assert.ok(omnipay(verified.body).successful, verified.text);
      const token = verified.body.card_ref as string;
      assert.match(token, /^[A-Z]{2}[A-Z0-9]{14}$/);

      const credited = await pluginCall(t, merchant, 'POST', 'transactions/credit', {
        amount: 3,
        source: `tkn-${token}`,
        expiry_month: 0,
        expiry_year: 0,
        transaction_details: { order_number: 'CR-1' },
      });
      assert.ok(omnipay(credited.body).successful, credited.text);
      assert.equal(typeof credited.body.reference_number, 'number');
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
