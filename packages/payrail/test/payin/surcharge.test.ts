// accept.blue's surcharge (reference A.5, A.7, B.1; behaviour.md section 16):
// Pinelab's Vendure plugin reads GET /surcharge's `card` and `check`, both
// non-null; POST /surcharge answers what would apply to a source; a
// merchant's card surcharge adds to a charge's amount, shown in the
// transaction's amount_details, authorized in full and credited in full.
// Both stores, both wire dialects; the operator's command changes what a
// running server charges at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SurchargeSetting } from '../../src/domain/surcharge.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { showMerchant } from '../../src/flows/merchants/merchants.ts';
import { changeSurcharges } from '../../src/flows/merchants/surcharges.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { runCliJson } from '../helpers/cli.ts';
import { basicOf, chargeBody, getTransaction, nonceFor, postCharge } from '../helpers/payin.ts';
import { call, callOk, type Json, newCustomer, runScheduleNow, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { ACCOUNT, chargeCheck, ROUTING } from '../ach/check-helpers.ts';

for (const kind of STORE_KINDS) {
  describe(`surcharge (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    async function setSurcharge(merchant: CreatedMerchant, changes: { card?: SurchargeSetting; check?: SurchargeSetting }) {
      await changeSurcharges(t.service, { merchantId: merchant.merchant_id, changes });
    }

    async function useAcceptBlue(merchant: CreatedMerchant) {
      await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE id = ?", [merchant.source.id]));
    }

    async function balanceCents(merchant: CreatedMerchant): Promise<number> {
      return (await showMerchant({ db: t.service.db, environment: 'sandbox', clock: t.clock }, merchant.merchant_id)).balance_cents;
    }

    it('GET /surcharge shows both payment types, none as {type: "percent", value: 0}, as Pinelab reads them', async () => {
      const merchant = await t.newMerchant();
      const none = await callOk(t, merchant, 'GET', '/api/v2/surcharge');
      assert.deepEqual(none, { card: { type: 'percent', value: 0 }, check: { type: 'percent', value: 0 } });

      await setSurcharge(merchant, { card: { kind: 'percent', thousandthsOfPercent: 3500 }, check: { kind: 'currency', amountCents: 150 } });
      const set: Json = await callOk(t, merchant, 'GET', '/api/v2/surcharge');
      assert.deepEqual(set, { card: { type: 'percent', value: 3.5 }, check: { type: 'currency', value: 1.5 } });
      // Pinelab: `card{type,value}` and `check{type,value}`, both non-null.
      for (const type of ['card', 'check'] as const) assert.ok(set[type] !== null && typeof set[type].value === 'number');

      // Another merchant's settings are its own.
      const other = await t.newMerchant();
      assert.deepEqual(await callOk(t, other, 'GET', '/api/v2/surcharge'), none);

      await useAcceptBlue(merchant);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/surcharge'), set);
    });

    it('POST /surcharge answers per source type, and 404 for a source the merchant does not have', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      await setSurcharge(merchant, { card: { kind: 'percent', thousandthsOfPercent: 2999 } });
      const cardAnswer = { surcharge: { type: 'percent', value: 2.999 }, bin_type: 'C', payment_type: 'card' };

      // A partial card number is enough.
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'card', source: '411111' }), cardAnswer);
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'pm', source: String(method.id) }), cardAnswer);
      const charged: Json = (await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)))).json();
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'ref', source: String(charged.reference_number) }), cardAnswer);
      const saved: Json = await callOk(t, merchant, 'POST', '/api/v2/saved-cards', { card: '4111111111111111', expiry_month: 12, expiry_year: 2035 }, 201);
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'tkn', source: saved.cardRef }), cardAnswer);

      // Unknown, deleted or another merchant's: not found.
      const other = await t.newMerchant();
      await callOk(t, merchant, 'DELETE', `/api/v2/payment-methods/${method.id}`, undefined, 204);
      for (const [who, body] of [
        [merchant, { source_type: 'pm', source: String(method.id) }],
        [merchant, { source_type: 'pm', source: '999999' }],
        [merchant, { source_type: 'ref', source: '999999999' }],
        [merchant, { source_type: 'tkn', source: 'AB12CD34EF56GH78' }],
        [other, { source_type: 'ref', source: String(charged.reference_number) }],
        [other, { source_type: 'tkn', source: saved.cardRef }],
      ] as const) {
        const refused = await call(t, who, 'POST', '/api/v2/surcharge', body);
        assert.equal(refused.statusCode, 404, `${JSON.stringify(body)}: ${refused.body}`);
        assert.equal(refused.json().error.code, 'not_found');
      }

      // The request's limits: the bare source (no prefix, letters and digits, at most 16), a known type.
      for (const body of [
        { source_type: 'pm', source: 'pm-1' },
        { source_type: 'card', source: '41111111111111111' },
        { source_type: 'nonce', source: 'abc' },
        { source_type: 'card' },
        { source_type: 'card', source: '4111', extra: true },
      ]) {
        const refused = await call(t, merchant, 'POST', '/api/v2/surcharge', body);
        assert.equal(refused.statusCode, 400, `${JSON.stringify(body)}: ${refused.body}`);
      }
    });

    it('POST /surcharge answers a saved check (pm) and a check (ref) with the check setting', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      await setSurcharge(merchant, { card: { kind: 'percent', thousandthsOfPercent: 2999 }, check: { kind: 'currency', amountCents: 125 } });
      const checkAnswer = { surcharge: { type: 'currency', value: 1.25 }, bin_type: null, payment_type: 'check' };
      const customer = await newCustomer(t, merchant);
      const method: Json = await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/payment-methods`,
        { name: 'Ada Lovelace', routing_number: ROUTING, account_number: ACCOUNT, account_type: 'Checking' },
        201,
      );
      assert.equal(method.payment_method_type, 'check');
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'pm', source: String(method.id) }), checkAnswer);
      const check = await chargeCheck(t, merchant);
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'ref', source: String(check.reference_number) }), checkAnswer);
      await useAcceptBlue(merchant);
      assert.deepEqual(await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'ref', source: String(check.reference_number) }), checkAnswer);
    });

    it('answers the accept.blue dialect: undocumented fields and nulls ignored, refusals in its envelope', async () => {
      const merchant = await t.newMerchant();
      await useAcceptBlue(merchant);
      await setSurcharge(merchant, { card: { kind: 'currency', amountCents: 100 } });
      const answer = await callOk(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'card', source: '4111', last4: '1111', note: null });
      assert.deepEqual(answer, { surcharge: { type: 'currency', value: 1 }, bin_type: 'C', payment_type: 'card' });
      const refused = await call(t, merchant, 'POST', '/api/v2/surcharge', { source_type: 'pm', source: '424242' });
      assert.equal(refused.statusCode, 404);
      const body: Json = refused.json();
      assert.equal(body.status, 'Error');
      assert.equal(body.status_code, 'E');
      assert.equal(body.error_code, 'not_found');
      assert.deepEqual(Object.keys(body.error_details), ['source']);
    });

    it('a percent card surcharge adds to the charge: auth_amount is the total, amount_details shows it, the ledger credits the total', async () => {
      const merchant = await t.newMerchant();
      await setSurcharge(merchant, { card: { kind: 'percent', thousandthsOfPercent: 3500 } });
      const before = await balanceCents(merchant);
      // 3.5 % of 10.30 is 36.05 cents: 36 cents.
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 10.3 }));
      assert.equal(response.statusCode, 200, response.body);
      const charged: Json = response.json();
      assert.equal(charged.status, 'Approved');
      assert.equal(charged.auth_amount, 10.66);
      const details = charged.transaction.amount_details;
      assert.equal(details.amount, 10.66);
      assert.equal(details.surcharge, 0.36);
      assert.equal(details.original_requested_amount, 10.3);
      assert.equal(details.original_authorized_amount, 10.66);
      // The transaction reads the same afterwards.
      const read: Json = (await getTransaction(t.app, basicOf(merchant), charged.reference_number)).json();
      assert.equal(read.transaction.amount_details.surcharge, 0.36);
      assert.equal(read.transaction.amount_details.original_requested_amount, 10.3);
      assert.equal((await balanceCents(merchant)) - before, 1066);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('a currency card surcharge adds its amount; a check surcharge leaves card charges alone', async () => {
      const merchant = await t.newMerchant();
      await setSurcharge(merchant, { card: { kind: 'currency', amountCents: 100 }, check: { kind: 'percent', thousandthsOfPercent: 5000 } });
      const before = await balanceCents(merchant);
      const charged: Json = (await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 25.5 }))).json();
      assert.equal(charged.auth_amount, 26.5);
      assert.equal(charged.transaction.amount_details.surcharge, 1);
      assert.equal(charged.transaction.amount_details.original_requested_amount, 25.5);
      assert.equal((await balanceCents(merchant)) - before, 2650);

      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('rounds a percentage half up to the cent; without a surcharge the charge is unchanged', async () => {
      const merchant = await t.newMerchant();
      const plain: Json = (await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 1 }))).json();
      assert.equal(plain.auth_amount, 1);
      assert.equal(plain.transaction.amount_details.surcharge, 0);
      assert.equal(plain.transaction.amount_details.original_requested_amount, 1);
      // 1.5 % of 1.00 is 1.5 cents: 2 cents. 1.4 % of 1.00 is 1.4 cents: 1 cent.
      for (const [thousandths, total] of [
        [1500, 1.02],
        [1400, 1.01],
      ] as const) {
        await setSurcharge(merchant, { card: { kind: 'percent', thousandthsOfPercent: thousandths } });
        const charged: Json = (await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 1 }))).json();
        assert.equal(charged.auth_amount, total, `${thousandths / 1000} %`);
      }
      // Removed: the next charge has none (the setting kept in memory is dropped on change).
      await setSurcharge(merchant, { card: { kind: 'none' } });
      const after: Json = (await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 1 }))).json();
      assert.equal(after.auth_amount, 1);
    });

    it('a schedule run is a card charge: its amount plus the surcharge, credited in full', async () => {
      const merchant = await t.newMerchant();
      await setSurcharge(merchant, { card: { kind: 'currency', amountCents: 50 } });
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      const schedule: Json = await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        {
          title: 'Coffee club',
          amount: 9.99,
          frequency: 'monthly',
          next_run_date: new Date(t.clock.nowMs()).toISOString().slice(0, 10),
          payment_method_id: method.id,
        },
        201,
      );
      const before = await balanceCents(merchant);
      const ran = await runScheduleNow(t, merchant, schedule.id);
      assert.equal(ran.statusCode, 200, ran.body);
      const transaction: Json = ran.json().transaction;
      assert.equal(transaction.auth_amount, 10.49);
      assert.equal(transaction.transaction.amount_details.surcharge, 0.5);
      assert.equal(transaction.transaction.amount_details.original_requested_amount, 9.99);
      assert.equal((await balanceCents(merchant)) - before, 1049);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('payrail merchant surcharge sets it from another process, and the running server charges it at once', async () => {
      const merchant = await t.newMerchant();
      await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 10 }));
      const set = await runCliJson(
        ['merchant', 'surcharge', '--merchant', merchant.merchant_id, '--card', 'percent:3.5', '--check', 'currency:1.00'],
        t.store.env,
      );
      assert.deepEqual(set, { merchant_id: merchant.merchant_id, card: { type: 'percent', value: 3.5 }, check: { type: 'currency', value: 1 } });
      const charged: Json = (await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 10 }))).json();
      assert.equal(charged.auth_amount, 10.35);
      const shown = await runCliJson(['merchant', 'surcharge', '--merchant', merchant.merchant_id], t.store.env);
      assert.deepEqual(shown, set);
      await runCliJson(['merchant', 'surcharge', '--merchant', merchant.merchant_id, '--card', 'none'], t.store.env);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/surcharge'), {
        card: { type: 'percent', value: 0 },
        check: { type: 'currency', value: 1 },
      });
    });
  });
}
