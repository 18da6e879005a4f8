// The worker's side of charges: the pending-review card approved after 10
// sandbox steps with its ledger credit; charges whose request crashed (or
// whose processor did not answer) between consuming the nonce and recording
// the answer are recovered by asking the processor again with the same
// reference. Time moves only by the ManualClock. Both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { reserveCharge, type ChargeRequest } from '../../src/flows/payin/charge.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { unreachableFor } from '../helpers/flaky-card-processor.ts';
import { basicOf, chargeBody, getTransaction, nonceFor, postCharge, openBatchIdOf, shapeA, shapeB } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const STEP_MS = 1000;
const RECOVERY_AFTER_MS = 60_000;
const FLAKY_PROCESSOR = path.join(import.meta.dirname, '..', 'helpers', 'flaky-card-processor.ts');

async function available(t: TestApp, merchantId: string): Promise<number> {
  return (await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available'))))!.balance_cents;
}

async function sealedBytes(t: TestApp, pk: number): Promise<number> {
  const row = await t.service.db.read((tx) => tx.get<{ card_number_enc: Buffer }>('SELECT card_number_enc FROM charges WHERE pk = ?', [pk]));
  return Buffer.from(row!.card_number_enc).length;
}

/** Step 1 of a charge only, as if the process died before calling the processor. */
async function chargeThenCrash(t: TestApp, merchant: CreatedMerchant, card: string, idemKey: string | null): Promise<number> {
  const nonce = await nonceFor(t.app, merchant, card);
  const request = chargeBody(nonce, { amount: 30 }) as unknown as ChargeRequest;
  const reservation = await reserveCharge(
    { db: t.service.db, clock: t.clock, cipher: cardCipherFor(t.service.config) },
    { merchantId: merchant.merchant_id, sourceId: merchant.source.id },
    request,
    3000,
    idemKey === null ? null : { key: idemKey, requestHash: 'crash-test', legacyHash: () => 'crash-test' },
  );
  assert.equal(reservation.kind, 'reserved');
  return reservation.kind === 'reserved' ? reservation.charge.pk : 0;
}

for (const kind of STORE_KINDS) {
  describe(`pending charges and recovery (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_SANDBOX_DELAY_MS: String(STEP_MS), PAYRAIL_CARD_PROCESSOR: FLAKY_PROCESSOR } });
    });
    after(async () => {
      await t.close();
    });

    it('approves the pending-review card after 10 sandbox steps, crediting in the same step', async () => {
      const merchant = await t.newMerchant();
      const card = '4000000000000259';
      const createdAtMs = t.clock.nowMs();
      const body = chargeBody(await nonceFor(t.app, merchant, card), { amount: 50 });
      const first = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'review' });
      const pk = first.json().reference_number as number;
      const pending = shapeA({ pk, createdAtMs, amount: 50, cardNumber: card, status: 'Pending', authCode: '', avs: 'Y', cvv: 'M' });
      assert.deepEqual(first.json(), pending);

      assert.equal(await t.worker.drain(), 0);
      t.clock.advance(10 * STEP_MS - 1);
      assert.equal(await t.worker.drain(), 0);
      assert.deepEqual((await getTransaction(t.app, basicOf(merchant), pk)).json(), pending);
      assert.equal(await available(t, merchant.merchant_id), 0);

      t.clock.advance(1);
      assert.ok((await t.worker.drain()) >= 1);
      const approved = (await getTransaction(t.app, basicOf(merchant), pk)).json();
      const authCode: string = approved.auth_code;
      assert.match(authCode, /^[0-9A-F]{6}$/);
      assert.deepEqual(
        approved,
        shapeA({
          pk,
          createdAtMs,
          amount: 50,
          cardNumber: card,
          status: 'Approved',
          authCode,
          avs: 'Y',
          cvv: 'M',
          batchId: await openBatchIdOf(t, merchant.merchant_id),
        }),
      );
      assert.equal(await available(t, merchant.merchant_id), 5000);
      const posting = await t.service.db.read((tx) =>
        tx.get<{ kind: string; amount_cents: number; created_at_ms: number }>(
          "SELECT kind, amount_cents, created_at_ms FROM postings WHERE ref_type = 'charge' AND ref_id = ?",
          [String(pk)],
        ),
      );
      assert.deepEqual(posting, { kind: 'charge.approve', amount_cents: 5000, created_at_ms: t.clock.nowMs() });

      // The key keeps the first reply; the current state is read with GET.
      const replay = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'review' });
      assert.equal(replay.body, first.body);
    });

    it('recovers a charge whose request died before the processor answered: approved, credited, key completed', async () => {
      const merchant = await t.newMerchant();
      const createdAtMs = t.clock.nowMs();
      const pk = await chargeThenCrash(t, merchant, '4111111111111111', 'crashed');
      const limbo = shapeA({ pk, createdAtMs, amount: 30, cardNumber: '4111111111111111', status: 'Pending', authCode: '', avs: '', cvv: '' });
      assert.deepEqual((await getTransaction(t.app, basicOf(merchant), pk)).json(), limbo);

      // The pending charge keeps its sealed card number for this recovery; the outcome erases it.
      assert.ok((await sealedBytes(t, pk)) > 0);
      // The request might still be waiting for the processor: the worker leaves it alone.
      t.clock.advance(RECOVERY_AFTER_MS - 1);
      assert.equal(await t.worker.drain(), 0);
      t.clock.advance(1);
      assert.ok((await t.worker.drain()) >= 1);

      const read = await getTransaction(t.app, basicOf(merchant), pk);
      const approved = read.json();
      assert.deepEqual(
        approved,
        shapeA({
          pk,
          createdAtMs,
          amount: 30,
          cardNumber: '4111111111111111',
          status: 'Approved',
          authCode: approved.auth_code,
          avs: 'Y',
          cvv: 'M',
          batchId: await openBatchIdOf(t, merchant.merchant_id),
        }),
      );
      assert.equal(await available(t, merchant.merchant_id), 3000);
      assert.equal(await sealedBytes(t, pk), 0);
      const key = await t.service.db.read((tx) =>
        tx.get<{ status_code: number; response_json: string }>('SELECT status_code, response_json FROM idempotency_keys WHERE source_id = ? AND idem_key = ?', [
          merchant.source.id,
          'crashed',
        ]),
      );
      assert.deepEqual(key, { status_code: 200, response_json: read.body });
    });

    it('recovers a crashed charge of a declining card as declined, moving nothing', async () => {
      const merchant = await t.newMerchant();
      const createdAtMs = t.clock.nowMs();
      const pk = await chargeThenCrash(t, merchant, '4000000000009995', null);
      t.clock.advance(RECOVERY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      const read = await getTransaction(t.app, basicOf(merchant), pk);
      assert.deepEqual(
        read.json(),
        shapeB({
          pk,
          createdAtMs,
          amount: 30,
          cardNumber: '4000000000009995',
          status: 'declined',
          code: 'insufficient_funds',
          message: 'The card has insufficient funds',
        }),
      );
      assert.equal(await available(t, merchant.merchant_id), 0);
    });

    it('answers Pending when the processor does not answer, and the worker settles the charge later', async () => {
      const merchant = await t.newMerchant();
      const card = '5555555555554444';
      unreachableFor.set(card, 2);
      const createdAtMs = t.clock.nowMs();
      const response = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant, card), { amount: 30 }));
      assert.equal(response.statusCode, 200, response.body);
      const pk = response.json().reference_number as number;
      assert.deepEqual(response.json(), shapeA({ pk, createdAtMs, amount: 30, cardNumber: card, status: 'Pending', authCode: '', avs: '', cvv: '' }));
      assert.ok(t.logLines.some((line) => line.includes('card processor did not answer; charge left pending for recovery')));

      // Still unreachable at the first recovery: the charge stays pending and comes back after its lease.
      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      assert.equal((await getTransaction(t.app, basicOf(merchant), pk)).json().status, 'Pending');
      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      const read = (await getTransaction(t.app, basicOf(merchant), pk)).json();
      assert.equal(read.status, 'Approved');
      assert.equal(read.card_type, 'MasterCard');
      assert.equal(await available(t, merchant.merchant_id), 3000);
    });

    it('answers a same-key replay of a charge the processor did not answer with its Pending at once, and with the answer once settled', async () => {
      const merchant = await t.newMerchant();
      const card = '6011111111111117';
      unreachableFor.set(card, 1);
      const body = chargeBody(await nonceFor(t.app, merchant, card), { amount: 30 });
      const first = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'unanswered' });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().status, 'Pending');
      const pk = first.json().reference_number as number;

      // Once waited for the request's time (about 35 s) and answered 500.
      const replay = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'unanswered' });
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.body, first.body);

      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      const read = await getTransaction(t.app, basicOf(merchant), pk);
      assert.equal(read.json().status, 'Approved');
      const settled = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'unanswered' });
      assert.equal(settled.statusCode, 200, settled.body);
      assert.equal(settled.body, read.body);
      assert.equal(await available(t, merchant.merchant_id), 3000);
    });

    it('leaves a ledger that verifies', async () => {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
