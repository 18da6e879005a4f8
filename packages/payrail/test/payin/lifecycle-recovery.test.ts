// Unknown outcomes of lifecycle operations (docs/api-decisions.md section 10),
// on both stores. A capture, void, refund or verify whose processor call never
// answers (test/helpers/hanging-card-processor.ts) is answered as pending and
// resolved later by the worker, never guessed; a request that crashes right
// after writing its pending record (the processor may have acted) leaves
// nothing half-done: the ledger verifies at every step, and the worker
// records the processor's answer exactly once. Time moves by the ManualClock.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OPERATION_RECOVERY_AFTER_MS } from '../../src/flows/payin/operation-common.ts';
import { keyedRequest } from '../../src/flows/common/idempotency-replay.ts';
import { reserveOperation } from '../../src/flows/payin/capture-void.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { reserveRefundOnly } from '../../src/flows/payin/refund.ts';
import { OUTCOME_UNKNOWN } from '../../src/store/idempotency.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { answerHungCalls, hangOperationsOf, operationCallsOf } from '../helpers/hanging-card-processor.ts';
import { availableCents, chargeCard, closeSandboxBatch, operate, postingCount, statusOf, verifyCard } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const HANGING_PROCESSOR = path.join(import.meta.dirname, '..', 'helpers', 'hanging-card-processor.ts');
/** Fails a hung test instead of blocking the run; passing never depends on it. */
const HANG_GUARD = { timeout: 30_000 };

async function ledgerClean(t: TestApp): Promise<void> {
  assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
}

async function keyOf(t: TestApp, sourceId: string, idemKey: string) {
  return t.service.db.read((tx) =>
    tx.get<{ status_code: number; response_json: string }>('SELECT status_code, response_json FROM idempotency_keys WHERE source_id = ? AND idem_key = ?', [
      sourceId,
      idemKey,
    ]),
  );
}

for (const kind of STORE_KINDS) {
  describe(`lifecycle calls that never answer (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      // Each store numbers its transactions from the same first reference.
      operationCallsOf.clear();
      hangOperationsOf.clear();
      t = await createTestApp(kind, { env: { PAYRAIL_CARD_PROCESSOR: HANGING_PROCESSOR } });
    });
    after(async () => {
      answerHungCalls();
      await t.close();
    });

    it('a capture without an answer is pending (nothing credited), replays at once, and the worker captures it exactly once', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, { amount: 40, capture: false });
      hangOperationsOf.set(t.service.providerKeys.key('charge', pk), 2);
      const first = await operate(t, merchant, 'capture', { reference_number: pk }, { 'idempotency-key': 'hung-capture' });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().transaction.status_details.status, 'pending');
      assert.equal(await statusOf(t, merchant, pk), 'pending');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      assert.deepEqual(await keyOf(t, merchant.source.id, 'hung-capture'), { status_code: OUTCOME_UNKNOWN, response_json: first.body });
      const replay = await operate(t, merchant, 'capture', { reference_number: pk }, { 'idempotency-key': 'hung-capture' });
      assert.equal(replay.body, first.body);
      assert.equal(operationCallsOf.get(t.service.providerKeys.key('charge', pk)), 1, 'a replay asks the processor nothing');
      await ledgerClean(t);

      // The worker's first try hangs too; after the lease it asks again and records the capture.
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await statusOf(t, merchant, pk), 'pending');
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS * 2);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await statusOf(t, merchant, pk), 'captured');
      assert.equal(await availableCents(t, merchant.merchant_id), 4000);
      const key = await keyOf(t, merchant.source.id, 'hung-capture');
      assert.equal(key?.status_code, 200);
      assert.equal(JSON.parse(key!.response_json).transaction.status_details.status, 'captured');

      // The hung calls answer late: nothing moves again.
      answerHungCalls();
      await new Promise((resolve) => setImmediate(resolve));
      await t.worker.drain();
      assert.equal(await postingCount(t, pk, 'charge.capture'), 1);
      assert.equal(await availableCents(t, merchant.merchant_id), 4000);
      await ledgerClean(t);
    });

    it('a refund without an answer holds its amount as pending; the worker approves it once', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 30 });
      await closeSandboxBatch(t, merchant);
      // The refund's reference is the next one: the charge's plus one (a verify takes none from this range).
      hangOperationsOf.set(t.service.providerKeys.key('charge', sale + 1), 1);
      const response = await operate(t, merchant, 'refund', { reference_number: sale, amount: 10 });
      assert.equal(response.statusCode, 200, response.body);
      const refund = response.json();
      assert.equal(refund.reference_number, sale + 1);
      assert.equal(refund.status, 'Pending');
      assert.equal(await availableCents(t, merchant.merchant_id), 2000);
      // What the pending refund holds is not refundable again.
      assert.equal((await operate(t, merchant, 'refund', { reference_number: sale, amount: 20.01 })).json().error.code, 'invalid_amount');
      await ledgerClean(t);
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await statusOf(t, merchant, refund.reference_number), 'captured');
      assert.equal(await postingCount(t, refund.reference_number, 'refund.debit'), 1);
      assert.equal(await availableCents(t, merchant.merchant_id), 2000);
      await ledgerClean(t);
    });

    it('a void of a capture without an answer holds the credit back; the worker voids it once', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 12 });
      hangOperationsOf.set(t.service.providerKeys.key('charge', sale), 1);
      const response = await operate(t, merchant, 'void', { reference_number: sale });
      assert.equal(response.json().transaction.status_details.status, 'pending');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, sale), 'voided');
      assert.equal(await postingCount(t, sale, 'charge.void'), 1);
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
    });

    it('a verify without an answer is pending; the worker records the check', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const firstVerification = 900000000000001;
      const already = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM verifications'));
      const pk = firstVerification + Number(already?.n ?? 0);
      hangOperationsOf.set(t.service.providerKeys.key('verification', pk), 1);
      const response = await verifyCard(t, merchant);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().reference_number, pk);
      assert.equal(response.json().status, 'Pending');
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, pk), 'approved');
      await ledgerClean(t);
    });
  });

  describe(`a crash between the processor's answer and the write (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    const deps = () => ({
      db: t.service.db,
      clock: t.clock,
      log: t.service.log,
      processor: t.service.providers.cardProcessor,
      providerKeys: t.service.providerKeys,
    });

    it('a capture whose request died after writing it is pending, then captured once by the worker; its key replays the answer', async () => {
      const merchant = await t.newMerchant();
      const pk = await chargeCard(t, merchant, { amount: 18, capture: false });
      const caller = { merchantId: merchant.merchant_id, sourceId: merchant.source.id };
      const idem = keyedRequest('crash-capture', 'capture', { reference_number: pk, amount: null });
      await reserveOperation(deps(), 'capture', caller, pk, null, idem);
      // The request is gone (the processor may have captured): nothing is credited or guessed yet.
      assert.equal(await statusOf(t, merchant, pk), 'pending');
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
      assert.equal(await t.worker.drain(), 0, 'not before the request surely gave up');
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      assert.ok((await t.worker.drain()) >= 1);
      assert.equal(await statusOf(t, merchant, pk), 'captured');
      assert.equal(await availableCents(t, merchant.merchant_id), 1800);
      const retry = await operate(t, merchant, 'capture', { reference_number: pk }, { 'idempotency-key': 'crash-capture' });
      assert.equal(retry.json().transaction.status_details.status, 'captured');
      assert.equal(await postingCount(t, pk, 'charge.capture'), 1);
      await ledgerClean(t);
    });

    it('a refund whose request died after writing it holds its amount, then the worker records it once', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 50 });
      await closeSandboxBatch(t, merchant);
      const caller = { merchantId: merchant.merchant_id, sourceId: merchant.source.id };
      const refund = await reserveRefundOnly(deps(), caller, sale, 2000, null);
      assert.equal(await statusOf(t, merchant, refund.pk), 'pending');
      assert.equal(await availableCents(t, merchant.merchant_id), 3000);
      await ledgerClean(t);
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, refund.pk), 'captured');
      assert.equal(await postingCount(t, refund.pk, 'refund.debit'), 1);
      assert.equal(await postingCount(t, refund.pk, 'refund.release'), 0);
      assert.equal(await availableCents(t, merchant.merchant_id), 3000);
      await ledgerClean(t);
    });

    it('a declined refund whose request died gives its amount back when the worker records the decline', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { card: '4000000000005126', amount: 50 });
      await closeSandboxBatch(t, merchant);
      const caller = { merchantId: merchant.merchant_id, sourceId: merchant.source.id };
      const refund = await reserveRefundOnly(deps(), caller, sale, 5000, null);
      assert.equal(await availableCents(t, merchant.merchant_id), 0);
      await ledgerClean(t);
      t.clock.advance(OPERATION_RECOVERY_AFTER_MS);
      await t.worker.drain();
      assert.equal(await statusOf(t, merchant, refund.pk), 'declined');
      assert.equal(await availableCents(t, merchant.merchant_id), 5000);
      assert.equal(await postingCount(t, refund.pk, 'refund.release'), 1);
      await ledgerClean(t);
    });
  });
}
