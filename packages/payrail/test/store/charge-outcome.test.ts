// Recording a processor's answer on a charge (store/charges.ts changeCharge:
// recordOutcome, recordCaptured), on both stores: the charge comes back as
// recorded (no read after the change), an approved sale or a capture joins
// its merchant's open batch (opening one when none is open), anything else
// joins none, and an answer recorded first by someone else leaves
// everything as it was. Joining a batch that is already open costs the one
// UPDATE, on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tx } from '../../src/store/db.ts';
import { recordCaptured } from '../../src/store/charge-operations.ts';
import { type ChargeRow, insertPendingCharge, type Outcome, recordOutcome } from '../../src/store/charges.ts';
import { getTransaction } from '../../src/store/transactions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const NOW_MS = Date.UTC(2026, 2, 10, 12);

function outcome(status: 'approved' | 'declined', ref: string): Outcome {
  return {
    status,
    auth_code: status === 'approved' ? 'A1B2C3' : '',
    avs_result_code: 'Y',
    cvv_result_code: 'M',
    error_code: status === 'approved' ? null : 'card_declined',
    error_message: status === 'approved' ? null : 'The card was declined',
    processor_ref: ref,
    next_run_at_ms: null,
  };
}

/** `tx` counting the statements run through it. */
function counting(tx: Tx): { tx: Tx; count: () => number } {
  let statements = 0;
  const count = <T>(answer: Promise<T>): Promise<T> => {
    statements += 1;
    return answer;
  };
  const counted: Tx = {
    dialect: tx.dialect,
    all: (sql, params) => count(tx.all(sql, params)),
    get: (sql, params) => count(tx.get(sql, params)),
    run: (sql, params) => count(tx.run(sql, params)),
    insert: (sql, params, onConflict) => count(tx.insert(sql, params, onConflict)),
  };
  return { tx: counted, count: () => statements };
}

for (const kind of STORE_KINDS) {
  describe(`recording a charge's outcome (${kind})`, () => {
    let t: TestApp;
    let merchant: Awaited<ReturnType<TestApp['newMerchant']>>;
    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant();
    });
    after(() => t.close());

    const pendingCharge = (autoCapture: 0 | 1) =>
      t.service.db.write((tx) =>
        insertPendingCharge(tx, {
          merchant_id: merchant.merchant_id,
          source_id: merchant.source.id,
          amount_cents: 1050,
          card_type: 'Visa',
          last4: '1111',
          bin: '411111',
          expiry_month: 12,
          expiry_year: 2030,
          card_number_enc: Buffer.from('sealed elsewhere'),
          request_json: '{}',
          idem_key: null,
          recover_at_ms: NOW_MS,
          created_at_ms: NOW_MS,
          auto_capture: autoCapture,
        }),
      );

    const record = (pk: number, result: Outcome, joinBatch: boolean) =>
      t.service.db.write(async (tx) => {
        const counted = counting(tx);
        const row = await recordOutcome(counted.tx, pk, 'answer', result, NOW_MS, joinBatch);
        // What a read after the change finds, in the same transaction.
        const read = await getTransaction(tx, pk, merchant.merchant_id);
        return { row, read, statements: counted.count() };
      });

    const openBatches = () =>
      t.service.db.read((tx) => tx.all<{ id: number }>('SELECT id FROM batches WHERE merchant_id = ? AND closed_at_ms IS NULL', [merchant.merchant_id]));

    let openBatchId: number;

    it('returns an approved sale as recorded: captured, in a batch it opened', async () => {
      assert.deepEqual(await openBatches(), []);
      const pk = await pendingCharge(1);
      const { row, read } = await record(pk, outcome('approved', 'ref-1'), true);
      assert.ok(row !== undefined);
      assert.deepEqual(row, read as ChargeRow);
      assert.equal(row.status, 'approved');
      assert.equal(row.stage, 'captured');
      assert.equal(row.captured_cents, 1050);
      assert.equal('card_number_enc' in row, false, 'the sealed number is not among the columns returned');
      const open = await openBatches();
      assert.equal(open.length, 1);
      openBatchId = Number(open[0]!.id);
      assert.equal(row.batch_id, openBatchId);
    });

    it('joins the batch already open in the one UPDATE', async () => {
      const pk = await pendingCharge(1);
      const { row, read, statements } = await record(pk, outcome('approved', 'ref-2'), true);
      assert.deepEqual(row, read as ChargeRow);
      assert.equal(row!.batch_id, openBatchId);
      assert.equal((await openBatches()).length, 1);
      assert.equal(statements, 1);
    });

    it('joins no batch with an authorization only, a decline, or without joinBatch', async () => {
      for (const [autoCapture, status, joinBatch] of [
        [0, 'approved', true],
        [1, 'declined', true],
        [1, 'approved', false],
      ] as const) {
        const pk = await pendingCharge(autoCapture);
        const { row, read } = await record(pk, outcome(status, `ref-${pk}`), joinBatch);
        assert.deepEqual(row, read as ChargeRow);
        assert.equal(row!.batch_id, null, `${autoCapture} ${status} ${joinBatch}`);
        assert.equal(row!.status, status);
        assert.equal(row!.stage, status === 'declined' ? null : autoCapture === 1 ? 'captured' : 'authorized');
      }
    });

    it('changes nothing for an outcome already recorded, and opens no batch', async () => {
      const pk = await pendingCharge(1);
      await record(pk, outcome('declined', 'ref-first'), true);
      await t.service.db.write((tx) => tx.run('UPDATE batches SET closed_at_ms = ? WHERE closed_at_ms IS NULL', [NOW_MS]));
      const { row, read } = await record(pk, outcome('approved', 'ref-second'), true);
      assert.equal(row, undefined);
      assert.equal(read!.status, 'declined');
      assert.equal(read!.processor_ref, 'ref-first');
      assert.equal(read!.batch_id, null);
      assert.deepEqual(await openBatches(), []);
    });
    it('records a capture as captured, in the open batch, in the one UPDATE; a second answer changes nothing', async () => {
      const pk = await pendingCharge(0);
      await record(pk, outcome('approved', `ref-${pk}`), true);
      await t.service.db.write((tx) => tx.run("UPDATE charges SET op = 'capture', op_cents = 700 WHERE pk = ?", [pk]));
      const opened = await t.service.db.write((tx) => tx.run('INSERT INTO batches (merchant_id, opened_at_ms) VALUES (?, ?)', [merchant.merchant_id, NOW_MS]));
      assert.equal(opened.changes, 1);
      const [open] = await openBatches();
      const capture = () =>
        t.service.db.write(async (tx) => {
          const counted = counting(tx);
          const row = await recordCaptured(counted.tx, pk, 700, NOW_MS);
          return { row, read: await getTransaction(tx, pk, merchant.merchant_id), statements: counted.count() };
        });
      const { row, read, statements } = await capture();
      assert.deepEqual(row, read as ChargeRow);
      assert.equal(row!.stage, 'captured');
      assert.equal(row!.captured_cents, 700);
      assert.equal(row!.op, null);
      assert.equal(row!.batch_id, Number(open!.id));
      assert.equal(statements, 1);
      const again = await capture();
      assert.equal(again.row, undefined);
      assert.deepEqual(again.read, read);
    });
  });
}
