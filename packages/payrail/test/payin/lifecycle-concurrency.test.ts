// Concurrent lifecycle operations on one charge (docs/api-decisions.md
// section 10), on both stores, in one process (group commit: on PostgreSQL
// the operations of a batch interleave in one transaction) and across two
// processes sharing the store (separate transactions): refunds beyond the
// refundable amount, duplicate captures, a void racing a capture or the
// batch close, a capture racing the batch close. Each must end in one consistent outcome, checked against the
// balances and the ledger verifier.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Db } from '../../src/store/db.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents, chargeCard, closeSandboxBatch, postingCount, statusOf } from '../helpers/lifecycle.ts';
import { basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Rounds of each race: interleavings differ from round to round. */
const ROUNDS = 4;

function post(app: App, merchant: CreatedMerchant, operation: string, body: unknown) {
  return app.inject({
    method: 'POST',
    url: `/api/v2/transactions/${operation}`,
    headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

function closeBatch(app: App, merchant: CreatedMerchant) {
  return app.inject({ method: 'POST', url: '/sandbox/batches/close', headers: { 'api-key': merchant.transfer_api_key } });
}

for (const kind of STORE_KINDS) {
  describe(`concurrent card lifecycle operations (${kind})`, () => {
    let t: TestApp;
    let secondDb: Db;
    /** A second process on the same store: its writes are separate transactions. */
    let second: App;
    before(async () => {
      t = await createTestApp(kind);
      secondDb = await openMigratedDb({ databaseUrl: t.store.env.DATABASE_URL ?? null, dataDir: t.store.dataDir, pgPoolSize: 4 });
      second = await buildApp(await createService(t.service.config, { db: secondDb, clock: t.clock, log: createLogger('silent') }));
    });
    after(async () => {
      await second.close();
      await secondDb.close();
      await t.close();
    });

    for (const where of ['one process', 'two processes'] as const) {
      const other = () => (where === 'one process' ? t.app : second);

      it(`two refunds together beyond the refundable amount: exactly one succeeds (${where})`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const merchant = await t.newMerchant();
          const sale = await chargeCard(t, merchant, { amount: 20 });
          await closeSandboxBatch(t, merchant);
          const answers = await Promise.all([
            post(t.app, merchant, 'refund', { reference_number: sale, amount: 15 }),
            post(other(), merchant, 'refund', { reference_number: sale, amount: 15 }),
          ]);
          const codes = answers.map((a) => (a.statusCode === 200 ? a.json().status : a.json().error.code)).sort();
          assert.deepEqual(codes, ['Approved', 'invalid_amount'], answers.map((a) => a.body).join('\n'));
          assert.equal(await availableCents(t, merchant.merchant_id), 500);
        }
        assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      });

      it(`several refunds together never take more than the refundable amount (${where})`, async () => {
        const merchant = await t.newMerchant();
        const sale = await chargeCard(t, merchant, { amount: 20 });
        await closeSandboxBatch(t, merchant);
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => post(i % 2 === 0 ? t.app : other(), merchant, 'refund', { reference_number: sale, amount: 3 })),
        );
        assert.equal(answers.filter((a) => a.statusCode === 200).length, 6);
        assert.ok(answers.every((a) => a.statusCode === 200 || a.json().error.code === 'invalid_amount'));
        assert.equal(await availableCents(t, merchant.merchant_id), 200);
        assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      });

      it(`two captures together: one capture, both answer it (${where})`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const merchant = await t.newMerchant();
          const pk = await chargeCard(t, merchant, { amount: 30, capture: false });
          const answers = await Promise.all([
            post(t.app, merchant, 'capture', { reference_number: pk }),
            post(other(), merchant, 'capture', { reference_number: pk }),
          ]);
          for (const answer of answers) {
            assert.equal(answer.statusCode, 200, answer.body);
            assert.equal(answer.json().transaction.status_details.status, 'captured');
          }
          assert.equal(await postingCount(t, pk, 'charge.capture'), 1);
          assert.equal(await availableCents(t, merchant.merchant_id), 3000);
        }
        assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      });

      it(`a void racing a capture: one of them wins, the other is refused, the money agrees (${where})`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const merchant = await t.newMerchant();
          const pk = await chargeCard(t, merchant, { amount: 30, capture: false });
          const [capture, voided] = await Promise.all([
            post(t.app, merchant, 'capture', { reference_number: pk }),
            post(other(), merchant, 'void', { reference_number: pk }),
          ]);
          const status = await statusOf(t, merchant, pk);
          const available = await availableCents(t, merchant.merchant_id);
          if (status === 'voided') {
            // The void came first (the capture was refused), or second (it took the captured credit back).
            assert.equal(voided.statusCode, 200, voided.body);
            assert.equal(available, 0);
          } else {
            assert.equal(status, 'captured');
            assert.equal(capture.statusCode, 200, capture.body);
            assert.equal(voided.statusCode, 400, voided.body);
            assert.equal(available, 3000);
          }
        }
        assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      });

      it(`a capture racing the batch close: settled in the closed batch, or captured in an open one, never captured in a closed batch (${where})`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const merchant = await t.newMerchant();
          // A sale first, so a batch is open and the capture joins it rather than opening one.
          await chargeCard(t, merchant, { amount: 5 });
          const pk = await chargeCard(t, merchant, { amount: 25, capture: false });
          const [captured, closed] = await Promise.all([post(t.app, merchant, 'capture', { reference_number: pk }), closeBatch(other(), merchant)]);
          assert.equal(captured.statusCode, 200, captured.body);
          assert.equal(closed.statusCode, 200, closed.body);
          const row = await t.service.db.read((tx) =>
            tx.get<{ stage: string; closed_at_ms: number | null }>(
              'SELECT c.stage, b.closed_at_ms FROM charges c LEFT JOIN batches b ON b.id = c.batch_id WHERE c.pk = ?',
              [pk],
            ),
          );
          if (row!.stage === 'captured') assert.equal(row!.closed_at_ms, null, 'a captured transaction is in an open batch');
          else assert.equal(row!.stage, 'settled');
        }
        assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      });

      it(`a void racing the batch close: voided outside the batch, or settled and the void refused (${where})`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const merchant = await t.newMerchant();
          const pk = await chargeCard(t, merchant, { amount: 25 });
          const [voided, closed] = await Promise.all([post(t.app, merchant, 'void', { reference_number: pk }), closeBatch(other(), merchant)]);
          assert.equal(closed.statusCode, 200, closed.body);
          const status = await statusOf(t, merchant, pk);
          const batches = closed.json().batches as Array<{ sales_count: number }>;
          if (status === 'voided') {
            assert.equal(voided.statusCode, 200, voided.body);
            assert.equal(batches[0]?.sales_count ?? 0, 0);
            assert.equal(await availableCents(t, merchant.merchant_id), 0);
          } else {
            assert.equal(status, 'settled');
            assert.equal(voided.json().error.code, 'invalid_request', voided.body);
            assert.equal(batches[0]!.sales_count, 1);
            assert.equal(await availableCents(t, merchant.merchant_id), 2500);
          }
        }
        assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      });
    }
  });
}
