// Nonces are single-use, bound to their source and live 15 minutes
// (docs/api-decisions.md section 8): used, expired, foreign and unknown nonces are
// invalid_nonce (shape C, 400); a nonce charged 20 times at once yields one
// charge; the security code is erased when the nonce is used. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { hashNonce } from '../../src/domain/nonce.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createSource, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, basicOf, chargeBody, countCharges, nonceFor, postCharge, shapeC } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const NOT_VALID = shapeC('invalid_nonce', 'source is not a valid nonce of this payin source');
const USED = shapeC('invalid_nonce', 'source nonce has already been used; tokenize the card again');
const EXPIRED = shapeC('invalid_nonce', 'source nonce has expired; tokenize the card again');
const CONCURRENT_CHARGES = 20;

for (const kind of STORE_KINDS) {
  describe(`nonces (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('a used nonce is refused, and using it erased its security code', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      const first = await postCharge(t.app, basicOf(merchant), chargeBody(nonce));
      assert.equal(first.statusCode, 200, first.body);
      const row = await t.service.db.read((tx) =>
        tx.get<{ cvv_enc: Buffer | null; used_at_ms: number | null }>('SELECT cvv_enc, used_at_ms FROM nonces WHERE nonce_hash = ?', [hashNonce(nonce)]),
      );
      assert.deepEqual(row, { cvv_enc: null, used_at_ms: t.clock.nowMs() });
      const second = await postCharge(t.app, basicOf(merchant), chargeBody(nonce));
      assert.equal(second.statusCode, 400);
      assert.deepEqual(second.json(), USED);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
    });

    it('a nonce works until 15 minutes have passed and is refused from then on', async () => {
      const merchant = await t.newMerchant();
      const fresh = await nonceFor(t.app, merchant);
      const stale = await nonceFor(t.app, merchant);
      t.clock.advance(15 * 60_000 - 1);
      const inTime = await postCharge(t.app, basicOf(merchant), chargeBody(fresh));
      assert.equal(inTime.statusCode, 200, inTime.body);
      t.clock.advance(1);
      const late = await postCharge(t.app, basicOf(merchant), chargeBody(stale));
      assert.equal(late.statusCode, 400);
      assert.deepEqual(late.json(), EXPIRED);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
    });

    it("another merchant's nonce reads exactly like an unknown one", async () => {
      const owner = await t.newMerchant();
      const other = await t.newMerchant();
      const nonce = await nonceFor(t.app, owner);
      const foreign = await postCharge(t.app, basicOf(other), chargeBody(nonce));
      assert.equal(foreign.statusCode, 400);
      assert.deepEqual(foreign.json(), NOT_VALID);
      const unknown = await postCharge(t.app, basicOf(other), chargeBody('nonce-0123456789abcdefghijABCDEFGHIJ01'));
      assert.equal(unknown.statusCode, 400);
      assert.deepEqual(unknown.json(), NOT_VALID);
      // Refusing it did not use it up: its own source still charges it.
      const own = await postCharge(t.app, basicOf(owner), chargeBody(nonce));
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(await countCharges(t, other.merchant_id), 0);
    });

    it('another source of the same merchant cannot use the nonce', async () => {
      const merchant = await t.newMerchant();
      const second = await createSource(issuingDeps(t.service), { merchantId: merchant.merchant_id, name: 'Kiosk' });
      const nonce = await nonceFor(t.app, merchant);
      const response = await postCharge(t.app, basic(second.api_key, second.pin), chargeBody(nonce));
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), NOT_VALID);
    });

    it('a source that is not a nonce at all is refused without a lookup', async () => {
      const merchant = await t.newMerchant();
      for (const source of ['tok_123', 'nonce-short', `nonce-${'x'.repeat(33)}`, '']) {
        const response = await postCharge(t.app, basicOf(merchant), chargeBody(source));
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(
          response.json(),
          source === ''
            ? shapeC('invalid_request', 'source must NOT have fewer than 1 characters')
            : shapeC('invalid_nonce', 'source is not a nonce from tokenization'),
        );
      }
    });

    it(`a nonce charged ${CONCURRENT_CHARGES} times at once yields exactly one charge and one credit`, async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT_CHARGES }, () => postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 40 }))),
      );
      const approved = responses.filter((r) => r.statusCode === 200);
      const refused = responses.filter((r) => r.statusCode === 400);
      assert.equal(approved.length, 1);
      assert.equal(approved[0]!.json().status, 'Approved');
      assert.equal(refused.length, CONCURRENT_CHARGES - 1);
      for (const r of refused) assert.deepEqual(r.json(), USED);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
      const available = await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchant.merchant_id, 'available')));
      assert.equal(available!.balance_cents, 4000);
    });

    it(`${CONCURRENT_CHARGES} different nonces charged at once all succeed`, async () => {
      const merchant = await t.newMerchant();
      const nonces = await Promise.all(Array.from({ length: CONCURRENT_CHARGES }, () => nonceFor(t.app, merchant)));
      const responses = await Promise.all(nonces.map((n) => postCharge(t.app, basicOf(merchant), chargeBody(n, { amount: 1.25 }))));
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        responses.map(() => 200),
      );
      const references = new Set(responses.map((r) => r.json().reference_number as number));
      assert.equal(references.size, CONCURRENT_CHARGES);
      const available = await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchant.merchant_id, 'available')));
      assert.equal(available!.balance_cents, 125 * CONCURRENT_CHARGES);
    });

    it('expired nonces are pruned by the worker, sealed card data with them', async () => {
      const merchant = await t.newMerchant();
      await nonceFor(t.app, merchant);
      const count = () =>
        t.service.db.read(async (tx) =>
          Number((await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM nonces WHERE merchant_id = ?', [merchant.merchant_id]))!.n),
        );
      await t.worker.drain();
      assert.equal(await count(), 1);
      t.clock.advance(15 * 60_000);
      await t.worker.drain();
      assert.equal(await count(), 0);
    });

    it('leaves a ledger that verifies', async () => {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
