// The charge API end to end through app.inject(): every sandbox test card
// with its exact reply shape, the ledger credit of approvals, reading a
// charge back, and verifyLedger after all of it. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, chargeBody, getTransaction, nonceFor, postCharge, openBatchIdOf, shapeA, shapeB, shapeC } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const AUTH_CODE = /^[0-9A-F]{6}$/;

interface ApprovedCase {
  card: string;
  avs: string;
  cvv: string;
}

const APPROVED: ApprovedCase[] = [
  { card: '4111111111111111', avs: 'Y', cvv: 'M' },
  { card: '5555555555554444', avs: 'Y', cvv: 'M' },
  { card: '378282246310005', avs: 'Y', cvv: 'M' },
  { card: '6011111111111117', avs: 'Y', cvv: 'M' },
  { card: '4000000000000101', avs: 'Y', cvv: 'N' },
  { card: '4000000000000036', avs: 'Z', cvv: 'M' },
  // Any other number passing Luhn is approved.
  { card: '4242424242424242', avs: 'Y', cvv: 'M' },
];

const REFUSED = [
  { card: '4000000000000002', status: 'declined' as const, code: 'card_declined', message: 'The card was declined by the issuer' },
  { card: '4000000000009995', status: 'declined' as const, code: 'insufficient_funds', message: 'The card has insufficient funds' },
  { card: '4000000000000069', status: 'declined' as const, code: 'invalid_card', message: 'The card has expired or is not valid at the issuer' },
  {
    card: '4000000000000119',
    status: 'failed' as const,
    code: 'processor_error',
    message: 'The card processor could not complete the charge; no money moved. Try again with a new nonce',
  },
];

async function availableCents(t: TestApp, merchantId: string): Promise<number> {
  const account = await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available')));
  return account!.balance_cents;
}

for (const kind of STORE_KINDS) {
  describe(`charge API (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    for (const c of APPROVED) {
      it(`approves ${c.card} with AVS ${c.avs} and CVV ${c.cvv}, credits the merchant, and reads back the same`, async () => {
        const merchant = await t.newMerchant();
        const nonce = await nonceFor(t.app, merchant, c.card);
        const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 25.5 }));
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json();
        assert.match(body.auth_code, AUTH_CODE);
        const pk: number = body.reference_number;
        assert.deepEqual(
          body,
          shapeA({
            pk,
            createdAtMs: t.clock.nowMs(),
            amount: 25.5,
            cardNumber: c.card,
            status: 'Approved',
            authCode: body.auth_code,
            avs: c.avs,
            cvv: c.cvv,
            batchId: await openBatchIdOf(t, merchant.merchant_id),
          }),
        );
        assert.equal(await availableCents(t, merchant.merchant_id), 2550);
        const read = await getTransaction(t.app, basicOf(merchant), pk);
        assert.equal(read.statusCode, 200);
        assert.equal(read.body, response.body);
      });
    }

    for (const c of REFUSED) {
      it(`reports ${c.card} as ${c.status} (${c.code}) in shape B and moves no money`, async () => {
        const merchant = await t.newMerchant();
        const nonce = await nonceFor(t.app, merchant, c.card);
        const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 1000 }));
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json();
        assert.match(body.id, /^[0-9]{9,}$/);
        assert.deepEqual(
          body,
          shapeB({ pk: Number(body.id), createdAtMs: t.clock.nowMs(), amount: 1000, cardNumber: c.card, status: c.status, code: c.code, message: c.message }),
        );
        assert.equal(await availableCents(t, merchant.merchant_id), 0);
        const read = await getTransaction(t.app, basicOf(merchant), body.id);
        assert.equal(read.statusCode, 200);
        assert.equal(read.body, response.body);
      });
    }

    it('answers the pending-review card with shape A Pending, and the worker approves it with its credit', async () => {
      const merchant = await t.newMerchant();
      const card = '4000000000000259';
      const nonce = await nonceFor(t.app, merchant, card);
      const createdAtMs = t.clock.nowMs();
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 99.99 }));
      assert.equal(response.statusCode, 200, response.body);
      const pk = response.json().reference_number as number;
      assert.deepEqual(response.json(), shapeA({ pk, createdAtMs, amount: 99.99, cardNumber: card, status: 'Pending', authCode: '', avs: 'Y', cvv: 'M' }));
      assert.equal(await availableCents(t, merchant.merchant_id), 0);

      // Sandbox delay is 0 in tests: the review is over at the next worker round.
      assert.ok((await t.worker.drain()) >= 1);
      const read = await getTransaction(t.app, basicOf(merchant), pk);
      assert.equal(read.statusCode, 200);
      const approved = read.json();
      assert.match(approved.auth_code, AUTH_CODE);
      assert.deepEqual(
        approved,
        shapeA({
          pk,
          createdAtMs,
          amount: 99.99,
          cardNumber: card,
          status: 'Approved',
          authCode: approved.auth_code,
          avs: 'Y',
          cvv: 'M',
          batchId: await openBatchIdOf(t, merchant.merchant_id),
        }),
      );
      assert.equal(await availableCents(t, merchant.merchant_id), 9999);
    });

    it('echoes billing_info and transaction_details, with "" for absent street2/phone and null for absent details', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      const billing = { street2: 'Suite 5', phone: '+12175550100' };
      const details = { description: 'Order 77', order_number: '77', clerk: 'Bea', client_ip: '203.0.113.9', signature: 'c2ln' };
      const response = await postCharge(
        t.app,
        basicOf(merchant),
        chargeBody(nonce, { billing_info: { ...(chargeBody(nonce).billing_info as object), ...billing }, transaction_details: details }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(
        body,
        shapeA({
          pk: body.reference_number,
          createdAtMs: t.clock.nowMs(),
          amount: 25.5,
          cardNumber: '4111111111111111',
          status: 'Approved',
          authCode: body.auth_code,
          avs: 'Y',
          cvv: 'M',
          batchId: await openBatchIdOf(t, merchant.merchant_id),
          billing,
          details: { description: 'Order 77', order_number: '77', clerk: 'Bea', client_ip: '203.0.113.9' },
        }),
      );
    });

    it('credits amounts exactly in cents, from the 0.50 minimum to the 100000.00 maximum', async () => {
      const merchant = await t.newMerchant();
      for (const amount of [0.5, 0.7, 19.99, 100000]) {
        const nonce = await nonceFor(t.app, merchant);
        const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount }));
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().auth_amount, amount);
      }
      assert.equal(await availableCents(t, merchant.merchant_id), 50 + 70 + 1999 + 10_000_000);
    });

    it("reads an unknown, malformed or another merchant's transaction as 404 not_found", async () => {
      const owner = await t.newMerchant();
      const other = await t.newMerchant();
      const nonce = await nonceFor(t.app, owner);
      const charged = await postCharge(t.app, basicOf(owner), chargeBody(nonce));
      const pk = charged.json().reference_number as number;
      const foreign = await getTransaction(t.app, basicOf(other), pk);
      assert.equal(foreign.statusCode, 404);
      assert.deepEqual(foreign.json(), shapeC('not_found', `transaction ${pk} not found`));
      const unknown = await getTransaction(t.app, basicOf(owner), 999999999999);
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), shapeC('not_found', 'transaction 999999999999 not found'));
      const malformed = await getTransaction(t.app, basicOf(owner), 'abc');
      assert.equal(malformed.statusCode, 404);
      assert.deepEqual(malformed.json(), shapeC('not_found', 'transaction abc not found'));
    });

    it('leaves a ledger that verifies, charges reconciled', async () => {
      const report = await verifyLedger(t.service.db);
      assert.deepEqual(report.problems, []);
      assert.equal(report.ok, true);
    });
  });
}
