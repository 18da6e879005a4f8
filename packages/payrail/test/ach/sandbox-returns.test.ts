// The sandbox ACH network's scenarios, driven by its clock
// (POST /sandbox/ach/advance), on both stores: each return code produced by
// its account number, with the merchant's available, ach_pending, ach_payins
// and ach_returns_due balances exact after every advance and the ledger
// verified after every step; a settled check returned when the available
// balance cannot cover it taken from ach_returns_due; each status event once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { achBalances, createCheck, entryOf, eventCount } from '../helpers/checks.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Monday 30 November 2026, 10:00 UTC: submitted before the 21:00 cut-off, originated that evening. */
const MONDAY_10_UTC = Date.UTC(2026, 10, 30, 10, 0);
const AMOUNT = 12_345;

async function advance(t: TestApp, merchant: CreatedMerchant, businessDays: number) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/sandbox/ach/advance',
    headers: { 'api-key': merchant.transfer_api_key, 'content-type': 'application/json' },
    payload: JSON.stringify({ business_days: businessDays }),
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { success: true; ach_time: string; business_days: number; moved: Record<string, number> };
}

async function assertLedgerOk(t: TestApp): Promise<void> {
  const report = await verifyLedger(t.service.db);
  assert.deepEqual(report.problems, []);
  assert.equal(report.ok, true);
}

const none = { pending: 0, originated: 0, settled: 0, returned: 0, voided: 0, declined: 0, failed: 0 };

for (const kind of STORE_KINDS) {
  describe(`sandbox ACH returns (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
      t.clock.set(MONDAY_10_UTC);
    });
    after(async () => t.close());

    for (const [last4, code] of [
      ['0002', 'R02'],
      ['0003', 'R03'],
      ['0004', 'R04'],
    ] as const) {
      it(`an account ending ${last4} is returned ${code} one business day after origination, before it settles`, async () => {
        const merchant = await t.newMerchant();
        const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: `98765${last4}` });
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: AMOUNT, ach_payins: -AMOUNT, ach_returns_due: 0 });
        await assertLedgerOk(t);

        const first = await advance(t, merchant, 1);
        assert.equal(first.ach_time, '2026-12-01T10:00:00.000Z');
        assert.deepEqual(first.moved, { ...none, originated: 1 });
        assert.equal((await entryOf(t.service, merchant, pk)).state, 'originated');
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: AMOUNT, ach_payins: -AMOUNT, ach_returns_due: 0 });
        await assertLedgerOk(t);

        const second = await advance(t, merchant, 1);
        assert.deepEqual(second.moved, { ...none, returned: 1 });
        const entry = await entryOf(t.service, merchant, pk);
        assert.equal(entry.state, 'returned');
        assert.equal(entry.return_code, code);
        assert.equal(entry.returned_from, 'ach_pending');
        assert.equal(entry.settled_at_ms, null);
        assert.equal(entry.next_check_at_ms, null);
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
        await assertLedgerOk(t);

        // Nothing moves any more.
        assert.deepEqual((await advance(t, merchant, 5)).moved, none);
        assert.equal(await eventCount(t.service, pk, 'charge.originated'), 1);
        assert.equal(await eventCount(t.service, pk, 'charge.returned'), 1);
        assert.equal(await eventCount(t.service, pk, 'charge.settled'), 0);
      });
    }

    for (const [last4, code] of [
      ['0001', 'R01'],
      ['0005', 'R10'],
      ['0006', 'R29'],
    ] as const) {
      it(`an account ending ${last4} settles, then is returned ${code} one business day later, taken back from available`, async () => {
        const merchant = await t.newMerchant({ fundCents: 1_000 });
        const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: `1234${last4}` });
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
          available: 1_000,
          ach_pending: AMOUNT,
          ach_payins: -AMOUNT,
          ach_returns_due: 0,
        });
        await assertLedgerOk(t);

        assert.deepEqual((await advance(t, merchant, 1)).moved, { ...none, originated: 1 });
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
          available: 1_000,
          ach_pending: AMOUNT,
          ach_payins: -AMOUNT,
          ach_returns_due: 0,
        });
        await assertLedgerOk(t);

        // Tuesday to Wednesday 10:00: settlement is at Wednesday's 21:00 cut-off, not yet.
        assert.deepEqual((await advance(t, merchant, 1)).moved, none);
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
          available: 1_000,
          ach_pending: AMOUNT,
          ach_payins: -AMOUNT,
          ach_returns_due: 0,
        });
        await assertLedgerOk(t);

        assert.deepEqual((await advance(t, merchant, 1)).moved, { ...none, settled: 1 });
        const settled = await entryOf(t.service, merchant, pk);
        assert.equal(settled.state, 'settled');
        assert.equal(settled.settled_at_ms, Date.UTC(2026, 11, 2, 21, 0));
        assert.ok(settled.next_check_at_ms !== null, 'a settled check is watched for returns');
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
          available: 1_000 + AMOUNT,
          ach_pending: 0,
          ach_payins: -AMOUNT,
          ach_returns_due: 0,
        });
        await assertLedgerOk(t);

        assert.deepEqual((await advance(t, merchant, 1)).moved, { ...none, returned: 1 });
        const returned = await entryOf(t.service, merchant, pk);
        assert.equal(returned.state, 'returned');
        assert.equal(returned.return_code, code);
        assert.equal(returned.returned_from, 'available');
        assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 1_000, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
        await assertLedgerOk(t);
        for (const type of ['charge.originated', 'charge.settled', 'charge.returned']) assert.equal(await eventCount(t.service, pk, type), 1, type);
      });
    }

    it('a settled check returned when the available balance cannot cover it takes what available has, the rest from ach_returns_due, recovered from a later settlement', async () => {
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '5550001' });
      assert.deepEqual((await advance(t, merchant, 3)).moved, { ...none, settled: 1 });
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: AMOUNT, ach_pending: 0, ach_payins: -AMOUNT, ach_returns_due: 0 });
      // The merchant pays out of its available balance (an unmatched check credit holds it), leaving 45 cents.
      const credit = await createCheck(t.service, merchant, { amountCents: AMOUNT - 45, accountNumber: '7770000', direction: 'credit' });
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 45, ach_pending: 0, ach_payins: -45, ach_returns_due: 0 });
      await assertLedgerOk(t);

      const moved = await advance(t, merchant, 1);
      assert.equal(moved.moved.returned, 1);
      const returned = await entryOf(t.service, merchant, pk);
      assert.equal(returned.state, 'returned');
      assert.equal(returned.return_code, 'R01');
      assert.equal(returned.returned_from, 'ach_returns_due');
      // The credit is still on its way (originated at Thursday's cut-off, not yet settled).
      assert.equal((await entryOf(t.service, merchant, credit)).state, 'originated');
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
        available: 0,
        ach_pending: 0,
        ach_payins: AMOUNT - 45,
        ach_returns_due: -(AMOUNT - 45),
      });
      await assertLedgerOk(t);

      // The credit settles (no money moves: it was held when made) and stays watched, then is final.
      assert.deepEqual((await advance(t, merchant, 2)).moved, { ...none, settled: 1 });
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
        available: 0,
        ach_pending: 0,
        ach_payins: AMOUNT - 45,
        ach_returns_due: -(AMOUNT - 45),
      });
      await advance(t, merchant, 10);
      assert.equal((await entryOf(t.service, merchant, credit)).next_check_at_ms, null);
      await assertLedgerOk(t);

      // The merchant's next check settles: what it owes in ach_returns_due is recovered from it first.
      const next = await createCheck(t.service, merchant, { amountCents: 3 * AMOUNT, accountNumber: '5559999' });
      await advance(t, merchant, 3);
      assert.equal((await entryOf(t.service, merchant, next)).state, 'settled');
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
        available: 3 * AMOUNT - (AMOUNT - 45),
        ach_pending: 0,
        ach_payins: AMOUNT - 45 - 3 * AMOUNT,
        ach_returns_due: 0,
      });
      await assertLedgerOk(t);
    });

    it('a refund returned by the bank gives its amount back to the merchant and to the refundable amount of its check', async () => {
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '6660000' });
      assert.deepEqual((await advance(t, merchant, 3)).moved, { ...none, settled: 1 });
      // Refunded to an account the bank then returns (R03, before it settles).
      const refund = await createCheck(t.service, merchant, { amountCents: 2_000, accountNumber: '6660003', direction: 'credit', parentPk: pk });
      const refundedOf = async () =>
        Number((await t.service.db.read((tx) => tx.get<{ r: number }>('SELECT refunded_cents AS r FROM charges WHERE pk = ?', [pk])))!.r);
      assert.equal(await refundedOf(), 2_000);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), {
        available: AMOUNT - 2_000,
        ach_pending: 0,
        ach_payins: 2_000 - AMOUNT,
        ach_returns_due: 0,
      });
      await assertLedgerOk(t);
      assert.deepEqual((await advance(t, merchant, 1)).moved, { ...none, originated: 1 });
      assert.deepEqual((await advance(t, merchant, 1)).moved, { ...none, returned: 1 });
      const returned = await entryOf(t.service, merchant, refund);
      assert.deepEqual([returned.state, returned.return_code, returned.returned_from], ['returned', 'R03', null]);
      assert.equal(await refundedOf(), 0);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: AMOUNT, ach_pending: 0, ach_payins: -AMOUNT, ach_returns_due: 0 });
      assert.equal(await eventCount(t.service, refund, 'charge.returned'), 1);
      await assertLedgerOk(t);
    });

    it('a check with no return settles and is final once the return window has passed', async () => {
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '4444' });
      assert.deepEqual((await advance(t, merchant, 3)).moved, { ...none, settled: 1 });
      assert.ok((await entryOf(t.service, merchant, pk)).next_check_at_ms !== null);
      await advance(t, merchant, 10);
      const entry = await entryOf(t.service, merchant, pk);
      assert.equal(entry.state, 'settled');
      assert.equal(entry.next_check_at_ms, null);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: AMOUNT, ach_pending: 0, ach_payins: -AMOUNT, ach_returns_due: 0 });
      await assertLedgerOk(t);
    });
  });
}
