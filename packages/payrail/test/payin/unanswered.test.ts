// Card processor calls that never answer (docs/api-decisions.md section 8). A connector
// stuck on a dead connection (test/helpers/hanging-card-processor.ts: its
// calls never settle and ignore their abort signal) must not hold up a
// charge request, its same-key retries, nor the worker: every call is bounded
// by the connector's deadline, a call that times out is an unknown outcome
// (the charge stays pending, never guessed declined or approved), a retry
// with the same Idempotency-Key answers the pending charge at once, and the
// worker settles it later, exactly once. Outcomes only: time moves by the
// ManualClock, and nothing here measures how long anything took. Both stores.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { chargeKeyedRequest, reserveCharge, type ChargeRequest } from '../../src/flows/payin/charge.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Db } from '../../src/store/db.ts';
import { OUTCOME_UNKNOWN } from '../../src/store/idempotency.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { answerHungCalls, callsOf, hangAuthorizationsOf, hangPollsOf } from '../helpers/hanging-card-processor.ts';
import { basicOf, chargeBody, countCharges, getTransaction, nonceFor, postCharge, openBatchIdOf, shapeA } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const HANGING_PROCESSOR = path.join(import.meta.dirname, '..', 'helpers', 'hanging-card-processor.ts');
/** When the worker first asks about a charge whose request recorded no answer (and its claim lease). */
const RECOVERY_AFTER_MS = 60_000;
/**
 * Fails a test that hangs instead of letting it block the run: before the
 * fix, a hung connector held a charge request (and the worker) forever, and a
 * same-key retry waited 35 s for a 500. Passing never depends on it.
 */
const HANG_GUARD = { timeout: 30_000 };

async function available(t: TestApp, merchantId: string): Promise<number> {
  return (await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available'))))!.balance_cents;
}

async function keyOf(t: TestApp, merchant: CreatedMerchant, idemKey: string) {
  return t.service.db.read((tx) =>
    tx.get<{ status_code: number; response_json: string }>('SELECT status_code, response_json FROM idempotency_keys WHERE source_id = ? AND idem_key = ?', [
      merchant.source.id,
      idemKey,
    ]),
  );
}

async function approvalPostings(t: TestApp, pk: number): Promise<number> {
  const row = await t.service.db.read((tx) =>
    tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM postings WHERE ref_type = 'charge' AND ref_id = ? AND kind = 'charge.approve'", [String(pk)]),
  );
  return Number(row?.n ?? 0);
}

function resolvedLogLines(t: TestApp, pk: number): number {
  return t.logLines.filter((line) => line.includes('pending charge resolved') && line.includes(`"charge":${pk},`)).length;
}

for (const kind of STORE_KINDS) {
  describe(`card processor calls that never answer (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      // Each store numbers its charges from the same first reference.
      callsOf.clear();
      hangPollsOf.clear();
      t = await createTestApp(kind, { env: { PAYRAIL_CARD_PROCESSOR: HANGING_PROCESSOR } });
    });
    after(async () => {
      answerHungCalls();
      await t.close();
    });

    it('answers Pending at the deadline; a same-key replay answers the same at once; the worker settles it exactly once', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const auth = basicOf(merchant);
      const card = '5555555555554444';
      const createdAtMs = t.clock.nowMs();
      const body = chargeBody(await nonceFor(t.app, merchant, card), { amount: 40 });
      // The request's call and the worker's first call hang.
      hangAuthorizationsOf.set(card, 2);

      const first = await postCharge(t.app, auth, body, { 'idempotency-key': 'hung-1' });
      assert.equal(first.statusCode, 200, first.body);
      const pk = first.json().reference_number as number;
      const pending = shapeA({ pk, createdAtMs, amount: 40, cardNumber: card, status: 'Pending', authCode: '', avs: '', cvv: '' });
      assert.deepEqual(first.json(), pending);
      assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), 1);
      assert.ok(t.logLines.some((line) => line.includes('card processor did not answer; charge left pending for recovery') && line.includes('TimeoutError')));
      // The key says the outcome is unknown, with the reply given: a replay has nothing to wait for.
      assert.deepEqual(await keyOf(t, merchant, 'hung-1'), { status_code: OUTCOME_UNKNOWN, response_json: first.body });

      const replay = await postCharge(t.app, auth, body, { 'idempotency-key': 'hung-1' });
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.body, first.body);
      assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), 1, 'a replay asks the processor nothing');
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
      assert.deepEqual((await getTransaction(t.app, auth, pk)).json(), pending);

      // The worker's first attempt hangs too: it gives up at the deadline, and the charge stays pending.
      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), 2);
      assert.deepEqual((await getTransaction(t.app, auth, pk)).json(), pending);
      assert.equal((await postCharge(t.app, auth, body, { 'idempotency-key': 'hung-1' })).body, first.body);
      assert.equal(await available(t, merchant.merchant_id), 0);

      // After the claim's lease the worker asks again, with the same reference, and the processor answers.
      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      const read = await getTransaction(t.app, auth, pk);
      const approved = read.json();
      assert.deepEqual(
        approved,
        shapeA({
          pk,
          createdAtMs,
          amount: 40,
          cardNumber: card,
          status: 'Approved',
          authCode: approved.auth_code,
          avs: 'Y',
          cvv: 'M',
          batchId: await openBatchIdOf(t, merchant.merchant_id),
        }),
      );
      assert.equal(await available(t, merchant.merchant_id), 4000);
      // The key now holds the answer.
      assert.deepEqual(await keyOf(t, merchant, 'hung-1'), { status_code: 200, response_json: read.body });
      assert.equal((await postCharge(t.app, auth, body, { 'idempotency-key': 'hung-1' })).body, read.body);

      // The two hung calls answer at last: their answers are ignored, nothing moves twice.
      assert.equal(answerHungCalls(), 2);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(await t.worker.drain(), 0);
      assert.equal(await approvalPostings(t, pk), 1);
      assert.equal(await available(t, merchant.merchant_id), 4000);
      assert.equal(resolvedLogLines(t, pk), 1);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });

    it('a same-key retry in another process while the processor hangs answers the same Pending, charging once', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const auth = basicOf(merchant);
      const card = '378282246310005';
      const secondDb: Db = await openMigratedDb({ databaseUrl: t.store.env.DATABASE_URL ?? null, dataDir: t.store.dataDir, pgPoolSize: 4 });
      const secondService = await createService(t.service.config, { db: secondDb, clock: t.clock, log: createLogger('silent') });
      const secondApp: App = await buildApp(secondService);
      try {
        const body = chargeBody(await nonceFor(t.app, merchant, card), { amount: 20 });
        // Whichever process reserves the key first calls the processor, and that call hangs.
        hangAuthorizationsOf.set(card, 1);
        const [a, b] = await Promise.all([
          postCharge(t.app, auth, body, { 'idempotency-key': 'hung-2' }),
          postCharge(secondApp, auth, body, { 'idempotency-key': 'hung-2' }),
        ]);
        assert.equal(a.statusCode, 200, a.body);
        assert.equal(b.statusCode, 200, b.body);
        assert.equal(a.json().status, 'Pending');
        assert.equal(b.body, a.body);
        const pk = a.json().reference_number as number;
        assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), 1);
        assert.equal(await countCharges(t, merchant.merchant_id), 1);

        t.clock.advance(RECOVERY_AFTER_MS);
        assert.equal(await t.worker.drain(), 1);
        assert.equal((await getTransaction(t.app, auth, pk)).json().status, 'Approved');
        assert.equal(await available(t, merchant.merchant_id), 2000);
        assert.equal(await approvalPostings(t, pk), 1);
      } finally {
        await secondApp.close();
        await secondDb.close();
      }
    });

    it('a same-key retry after its request died answers the charge as it stands, at once, once that request is surely over', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const auth = basicOf(merchant);
      const card = '4111111111111111';
      const createdAtMs = t.clock.nowMs();
      const body = chargeBody(await nonceFor(t.app, merchant, card), { amount: 30 });
      // Step 1 of the charge only, as if the process died before calling the processor.
      const request = body as unknown as ChargeRequest;
      const reservation = await reserveCharge(
        { db: t.service.db, clock: t.clock, cipher: cardCipherFor(t.service.config) },
        { merchantId: merchant.merchant_id, sourceId: merchant.source.id },
        request,
        3000,
        chargeKeyedRequest('died', request),
      );
      assert.equal(reservation.kind, 'reserved');
      const pk = reservation.kind === 'reserved' ? reservation.charge.pk : 0;

      // Well past that request's deadline (and the margin for its transactions), well before recovery.
      t.clock.advance(10_000);
      const retry = await postCharge(t.app, auth, body, { 'idempotency-key': 'died' });
      assert.equal(retry.statusCode, 200, retry.body);
      assert.deepEqual(retry.json(), shapeA({ pk, createdAtMs, amount: 30, cardNumber: card, status: 'Pending', authCode: '', avs: '', cvv: '' }));
      assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), undefined, 'a retry asks the processor nothing');
      assert.equal(await countCharges(t, merchant.merchant_id), 1);

      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      const read = await getTransaction(t.app, auth, pk);
      assert.equal(read.json().status, 'Approved');
      assert.equal((await postCharge(t.app, auth, body, { 'idempotency-key': 'died' })).body, read.body);
      assert.equal(await available(t, merchant.merchant_id), 3000);
    });

    it("a charge whose outcome is still unknown past the processor's resend window is not sent again: it stays pending, reported", async () => {
      const merchant = await t.newMerchant();
      const request = chargeBody(await nonceFor(t.app, merchant, '4111111111111111'), { amount: 20 }) as unknown as ChargeRequest;
      // Step 1 only, as if the process died before calling the processor.
      const reservation = await reserveCharge(
        { db: t.service.db, clock: t.clock, cipher: cardCipherFor(t.service.config) },
        { merchantId: merchant.merchant_id, sourceId: merchant.source.id },
        request,
        2000,
        chargeKeyedRequest('past-window', request),
      );
      assert.equal(reservation.kind, 'reserved');
      const pk = reservation.kind === 'reserved' ? reservation.charge.pk : 0;
      const processor = t.service.providers.cardProcessor as { resendWindowMs?: number };
      const windowMs = 15 * 60_000;
      processor.resendWindowMs = windowMs;
      try {
        t.clock.advance(windowMs);
        await t.worker.drain();
        assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), undefined, 'not sent again');
        const row = await t.service.db.read((tx) =>
          tx.get<{ status: string; next_run_at_ms: number }>('SELECT status, next_run_at_ms FROM charges WHERE pk = ?', [pk]),
        );
        assert.equal(row!.status, 'pending');
        assert.ok(row!.next_run_at_ms >= t.clock.nowMs() + 23 * 60 * 60_000, 'looked at again a day later');
        assert.ok(t.logLines.some((line) => line.includes("past the processor's resend window") && line.includes(`"transaction":${pk},`)));
        await t.worker.drain();
        assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), undefined, 'not claimed again before a day passed');
      } finally {
        delete processor.resendWindowMs;
      }
    });

    it('a poll that never answers does not hold up the worker; the review is polled again after the lease', HANG_GUARD, async () => {
      const merchant = await t.newMerchant();
      const auth = basicOf(merchant);
      const card = '4000000000000259';
      const response = await postCharge(t.app, auth, chargeBody(await nonceFor(t.app, merchant, card), { amount: 10 }));
      assert.equal(response.json().status, 'Pending');
      const pk = response.json().reference_number as number;
      hangPollsOf.set(t.service.providerKeys.key('charge', pk), 1);

      // The sandbox's review is already due (sandbox steps are 0 here), but the poll hangs.
      assert.equal(await t.worker.drain(), 1);
      assert.equal(callsOf.get(t.service.providerKeys.key('charge', pk)), 2);
      assert.equal((await getTransaction(t.app, auth, pk)).json().status, 'Pending');
      assert.equal(await available(t, merchant.merchant_id), 0);

      t.clock.advance(RECOVERY_AFTER_MS);
      assert.equal(await t.worker.drain(), 1);
      assert.equal((await getTransaction(t.app, auth, pk)).json().status, 'Approved');
      assert.equal(await available(t, merchant.merchant_id), 1000);
      assert.equal(await approvalPostings(t, pk), 1);
    });

    it('leaves a ledger that verifies', async () => {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
