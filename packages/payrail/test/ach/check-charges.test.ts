// Check charges over POST /api/v2/transactions/charge (behaviour.md section
// 17): a bank account in either wire dialect, or a saved check method; the
// refusals (each a 400 that writes nothing); Idempotency-Key replays; the
// money (ach_pending holds a check until it settles); and how a check reads
// everywhere: check_details with the account's last four only, never the
// number, in answers, events and log lines. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { changeSurcharges } from '../../src/flows/merchants/surcharges.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { acceptBlueMerchant } from '../helpers/acceptblue.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import {
  ACCOUNT,
  achBalances,
  BAD_ROUTING,
  chargeCheck,
  checkBody,
  entryState,
  get,
  MONDAY_10_UTC_MS,
  originateAndSettle,
  post,
  ROUTING,
  snapshot,
} from './check-helpers.ts';

const FUND_CENTS = 100_000;

for (const kind of STORE_KINDS) {
  describe(`check charges (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(MONDAY_10_UTC_MS) });
    });
    after(() => t.close());

    it('charges a bank account: approved, pending on the ACH network, its amount in ach_pending, nothing available until it settles', async () => {
      const merchant = await t.newMerchant({ fundCents: FUND_CENTS });
      const reply = await chargeCheck(t, merchant, { account_type: 'Checking', sec_code: 'PPD' });
      assert.equal(reply.status, 'Approved');
      assert.equal(reply.status_code, 'A');
      const pk = reply.reference_number;
      assert.equal(reply.transaction.id, pk);
      assert.equal(reply.transaction.status_details.status, 'pending');
      assert.equal(reply.transaction.transaction_details.batch_id, null);
      assert.equal(reply.transaction.card_details, undefined);
      assert.deepEqual(reply.transaction.check_details, {
        name: 'Ada Lovelace',
        routing_number: ROUTING,
        account_number_last4: '6789',
        account_type: 'Checking',
        sec_code: 'PPD',
        returned_at: null,
        returned_code: null,
        returned_reason: null,
      });
      assert.equal(await entryState(t, merchant, pk), 'pending');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });

      await originateAndSettle(t, merchant, pk, 'originated');
      const originated = (await get(t, merchant, `/api/v2/transactions/${pk}`)).json();
      assert.equal(originated.transaction.status_details.status, 'originated');
      assert.equal(originated.transaction.settled_date, null);
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS, ach_pending: 2500, ach_payins: -2500, ach_returns_due: 0 });

      await originateAndSettle(t, merchant, pk, 'settled');
      const settled = (await get(t, merchant, `/api/v2/transactions/${pk}`)).json();
      assert.equal(settled.transaction.status_details.status, 'settled');
      assert.equal(settled.transaction.settled_date, '2026-12-02');
      assert.deepEqual(await achBalances(t, merchant.merchant_id), { available: FUND_CENTS + 2500, ach_pending: 0, ach_payins: -2500, ach_returns_due: 0 });
    });
  });
}
