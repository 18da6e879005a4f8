// The card lifecycle end to end with the built-in Authorize.net connector
// (PAYRAIL_CARD_PROCESSOR=authorize-net, behaviour.md section 18) against the
// Authorize.net stand-in, through the public HTTP API, on both stores:
// authorize, capture in full and in part, void, refund after settlement,
// verify, a saved card (pm-) and a schedule's run with stored-credential
// flags, a decline, and charges held for review resolved by a signed webhook
// at /providers/authorize-net/callbacks and, separately, by the worker's
// polling. After each, the merchant's balance and the stand-in's record
// agree to the cent, and the ledger verifies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { REVIEW_RETRY_AFTER_MS } from '../../src/providers/authorize-net/settings.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents, chargeCard, closeSandboxBatch, operateOk, statusOf, verifyCard } from '../helpers/lifecycle.ts';
import { BILLING, basicOf, chargeBody, nonceFor, postCharge } from '../helpers/payin.ts';
import { callOk, dayOf, newCustomer, runScheduleNow, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { type AuthorizeNetStandIn, DECLINE_ZIP, HELD_ZIP, type StandInTransaction, startAuthorizeNetStandIn } from '../providers/authorize-net/stand-in.ts';

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

for (const kind of STORE_KINDS) {
  describe(`card lifecycle at Authorize.net (${kind})`, () => {
    let standIn: AuthorizeNetStandIn;
    let t: TestApp;
    before(async () => {
      standIn = await startAuthorizeNetStandIn();
      t = await createTestApp(kind, {
        env: {
          PAYRAIL_CARD_PROCESSOR: 'authorize-net',
          PAYRAIL_AUTHORIZE_NET_URL: standIn.url,
          PAYRAIL_AUTHORIZE_NET_LOGIN_ID: standIn.loginId,
          PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY: standIn.transactionKey,
          PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY: standIn.signatureKey,
        },
      });
    });
    after(async () => {
      await t.close();
      await standIn.close();
    });

    /** The stand-in's transactions that appeared while `work` ran. */
    async function newAtStandIn(work: () => Promise<void>): Promise<StandInTransaction[]> {
      const before = new Set(standIn.transactions().map((transaction) => transaction.transId));
      await work();
      return standIn.transactions().filter((transaction) => !before.has(transaction.transId));
    }
    const current = (transId: string) => standIn.transactions().find((transaction) => transaction.transId === transId)!;

    /** A charge whose billing ZIP chooses the stand-in's answer; returns Payrail's reply body. */
    async function chargeWithZip(merchant: CreatedMerchant, amount: number, zip: string) {
      const nonce = await nonceFor(t.app, merchant);
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount, billing_info: { ...BILLING, zip } }));
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    }

    it('authorizes, then captures in full: one authOnly at Authorize.net, captured for the amount, credited once', async () => {
      const merchant = await t.newMerchant();
      let pk = 0;
      const [auth] = await newAtStandIn(async () => {
        pk = await chargeCard(t, merchant, { amount: 30, capture: false });
      });
      assert.equal(auth?.type, 'authOnlyTransaction');
      assert.equal(auth.status, 'authorizedPendingCapture');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await operateOk(t, merchant, 'capture', { reference_number: pk });
      assert.deepEqual([current(auth.transId).status, current(auth.transId).settleAmountCents], ['capturedPendingSettlement', 3000]);
      assert.equal(await availableCents(t, merchant.merchant_id), 3000);
      await ledgerClean(t);
    });

    it('captures less than authorized: Authorize.net settles the part, Payrail credits the part', async () => {
      const merchant = await t.newMerchant();
      let pk = 0;
      const [auth] = await newAtStandIn(async () => {
        pk = await chargeCard(t, merchant, { amount: 40, capture: false });
      });
      const captured = await operateOk(t, merchant, 'capture', { reference_number: pk, amount: 12.5 });
      assert.equal(captured.transaction.amount_details.amount, 12.5);
      assert.equal(current(auth!.transId).settleAmountCents, 1250);
      assert.equal(await availableCents(t, merchant.merchant_id), 1250);
      await ledgerClean(t);
    });

    it('voids an authorization and a sale at Authorize.net; the sale credit goes back', async () => {
      const merchant = await t.newMerchant();
      const made = await newAtStandIn(async () => {
        await operateOk(t, merchant, 'void', { reference_number: await chargeCard(t, merchant, { amount: 20, capture: false }) });
        await operateOk(t, merchant, 'void', { reference_number: await chargeCard(t, merchant, { amount: 15 }) });
      });
      assert.deepEqual(
        made.map((transaction) => [transaction.type, current(transaction.transId).status]),
        [
          ['authOnlyTransaction', 'voided'],
          ['authCaptureTransaction', 'voided'],
        ],
      );
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
    });

    it('refunds part of a sale once Authorize.net has settled it: a refundTransaction naming the sale', async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, { amount: 30 });
      const sale = standIn.transactions().at(-1)!;
      standIn.settle();
      await closeSandboxBatch(t, merchant);
      const [refund] = await newAtStandIn(async () => {
        const refunded = await operateOk(t, merchant, 'refund', { reference_number: pk, amount: 10 });
        assert.equal(refunded.status, 'Approved');
      });
      assert.deepEqual([refund?.type, refund?.refTransId, refund?.authAmountCents], ['refundTransaction', sale.transId, 1000]);
      assert.equal(await availableCents(t, merchant.merchant_id), 2000);
      await ledgerClean(t);
    });

    it('verifies a card without moving money', async () => {
      const merchant = await t.newMerchant();
      const response = await verifyCard(t, merchant);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'Approved');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
    });

    it('charges a saved card (pm-) as a stored credential, and a schedule run names that first network transaction id', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const methodId = (await saveCardFor(t, merchant, customer.id)).id;
      const schedule = await callOk(
        t,
        merchant,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        { title: 'Coffee club', amount: 9.99, frequency: 'monthly', next_run_date: dayOf(t), num_left: 0, payment_method_id: methodId },
        201,
      );
      const [saved, run] = await newAtStandIn(async () => {
        const charged = await postCharge(t.app, basicOf(merchant), { source: `pm-${methodId}`, amount: 15 });
        assert.equal(charged.json().status, 'Approved', charged.body);
        const ran = await runScheduleNow(t, merchant, schedule.id);
        assert.equal(ran.json().charged, true, ran.body);
      });
      // The card was saved without an authorization: its first charge is its initial use on record.
      assert.deepEqual([saved?.authAmountCents, saved?.storedCredential?.isFirstSubsequentAuth], [1500, true]);
      assert.ok(saved?.networkTransId, 'the first charge of the saved card got a network transaction id');
      assert.deepEqual(
        [run?.authAmountCents, run?.storedCredential?.isSubsequentAuth, run?.storedCredential?.originalNetworkTransId],
        [999, true, saved?.networkTransId],
      );
      assert.equal(await availableCents(t, merchant.merchant_id), 1500 + 999);
      await ledgerClean(t);
    });

    it('answers a decline as declined, and nothing is credited', async () => {
      const merchant = await t.newMerchant();
      const body = await chargeWithZip(merchant, 25, DECLINE_ZIP);
      assert.deepEqual([body.status, body.error?.code], ['declined', 'card_declined'], JSON.stringify(body));
      assert.equal(standIn.transactions().at(-1)!.status, 'declined');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
    });

    it('approves a charge held for review when the signed webhook of its approval arrives', async () => {
      const merchant = await t.newMerchant();
      const held = await chargeWithZip(merchant, 41.25, HELD_ZIP);
      assert.equal(held.status, 'Pending', JSON.stringify(held));
      const transaction = standIn.transactions().at(-1)!;
      assert.equal(transaction.status, 'FDSPendingReview');
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      standIn.webhookTo(`${address}/providers/authorize-net/callbacks`);
      try {
        standIn.resolveHeld(transaction.transId, 'approve');
        await standIn.webhooksIdle();
      } finally {
        standIn.webhookTo(null);
      }
      assert.equal(await statusOf(t, merchant, held.reference_number), 'captured');
      assert.equal(await availableCents(t, merchant.merchant_id), 4125);
      await ledgerClean(t);
    });

    it('declines a charge held for review when the worker polls after the review is declined', async () => {
      const merchant = await t.newMerchant();
      const held = await chargeWithZip(merchant, 17, HELD_ZIP);
      assert.equal(held.status, 'Pending', JSON.stringify(held));
      t.clock.advance(REVIEW_RETRY_AFTER_MS);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, held.reference_number), 'pending', 'still under review: polled, left pending');
      standIn.resolveHeld(standIn.transactions().at(-1)!.transId, 'decline');
      t.clock.advance(REVIEW_RETRY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await statusOf(t, merchant, held.reference_number), 'declined');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
    });
  });
}
