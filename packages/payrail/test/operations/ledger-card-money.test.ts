// `payrail ledger verify` reconciles card money per merchant (docs/api-decisions.md
// section 10): its card credits must equal captured - voided - refunded from the
// transaction records, and each charge and refund must carry exactly the
// postings its record says. Records altered behind the ledger's back are
// reported, on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch, operateOk } from '../helpers/lifecycle.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`ledger verify: card money (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    /** Runs `sql` behind the ledger's back, collects the problems, and puts the record back. */
    async function problemsAfter(sql: string, undo: string, params: Array<string | number>): Promise<string[]> {
      await t.service.db.write((tx) => tx.run(sql, params));
      const report = await verifyLedger(t.service.db);
      await t.service.db.write((tx) => tx.run(undo, params));
      assert.equal(report.ok, false);
      return report.problems;
    }

    it('reports card credits that differ from captured - voided - refunded, and postings that do not match a record', async () => {
      const merchant = await t.newMerchant();
      const sale = await chargeCard(t, merchant, { amount: 30 });
      const voided = await chargeCard(t, merchant, { amount: 8 });
      await operateOk(t, merchant, 'void', { reference_number: voided });
      await closeSandboxBatch(t, merchant);
      const refund = (await operateOk(t, merchant, 'refund', { reference_number: sale, amount: 12 })).reference_number as number;
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
      const id = merchant.merchant_id;

      const refunded = await problemsAfter('UPDATE charges SET refunded_cents = 0 WHERE pk = ?', 'UPDATE charges SET refunded_cents = 1200 WHERE pk = ?', [
        sale,
      ]);
      assert.ok(refunded.includes(`merchant ${id}: card_payins ledger 1800 != 3000 from records`), refunded.join('\n'));
      assert.ok(refunded.includes(`charge ${sale}: refunded amount does not equal the sum of its refunds`), refunded.join('\n'));

      const captured = await problemsAfter('UPDATE charges SET captured_cents = 2900 WHERE pk = ?', 'UPDATE charges SET captured_cents = 3000 WHERE pk = ?', [
        sale,
      ]);
      assert.ok(captured.includes(`merchant ${id}: card_payins ledger 1800 != 1700 from records`), captured.join('\n'));
      assert.ok(captured.includes(`charge ${sale} (approved) has postings that do not match its status`), captured.join('\n'));

      const unvoided = await problemsAfter('UPDATE charges SET voided_cents = 0 WHERE pk = ?', 'UPDATE charges SET voided_cents = 800 WHERE pk = ?', [voided]);
      assert.ok(unvoided.includes(`charge ${voided} (approved) has postings that do not match its status`), unvoided.join('\n'));

      const declinedRefund = await problemsAfter("UPDATE charges SET status = 'declined' WHERE pk = ?", "UPDATE charges SET status = 'approved' WHERE pk = ?", [
        refund,
      ]);
      assert.ok(declinedRefund.includes(`charge ${refund} (declined) has postings that do not match its status`), declinedRefund.join('\n'));
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
