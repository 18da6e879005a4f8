// Voiding and refunding checks from the control panel, on both stores:
// checks charged over the payin API, voided while pending and refunded in
// part once settled and five business days old (on the merchant's sandbox
// ACH clock), each after the panel's confirmation step; the money and the
// ledger as the check operations leave them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/domain/clock.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { advanceAchClock } from '../../src/store/sandbox-ach-clocks.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { achBalances, chargeCheck, entryState, originateAndSettle } from './check-helpers.ts';

for (const kind of STORE_KINDS)
  describe(`panel: check void and refund (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let panel: PanelClient;
    before(async () => {
      t = await createTestApp(kind);
      shop = await t.newMerchant({ fundCents: 100_000 });
      await createUser(
        { db: t.service.db, clock: t.clock },
        { email: 's@example.com', role: 'merchant', merchantId: shop.merchant_id, password: 'correct horse battery staple' },
      );
      panel = new PanelClient(t.app);
      assert.equal((await panel.signIn('s@example.com', 'correct horse battery staple')).status, 303);
    });
    after(() => t.close());
    it('voids a pending check and refunds a settled one from the panel', async () => {
      const pending = await chargeCheck(t, shop, { amount: 12.5 });
      const pk = Number(pending.reference_number);
      const page = decodeEntities((await panel.get(`/dashboard/charges/${pk}`)).body);
      assert.match(page, /<button type="submit" class="button danger">Void…<\/button>/);
      assert.equal((await panel.post(`/dashboard/charges/${pk}/void`)).status, 200);
      const done = await panel.post(`/dashboard/charges/${pk}/void`, { confirm: 'yes' });
      assert.equal(done.location, `/dashboard/charges/${pk}?notice=voided`);
      assert.equal(await entryState(t, shop, pk), 'voided');

      const settled = Number((await chargeCheck(t, shop, { amount: 20 })).reference_number);
      await advanceAchClock(t.service.db, { merchantId: shop.merchant_id, byMs: 10 * DAY_MS, nowMs: t.clock.nowMs() });
      await originateAndSettle(t, shop, settled, 'settled');
      const settledPage = decodeEntities((await panel.get(`/dashboard/charges/${settled}`)).body);
      assert.match(settledPage, /id="refund-amount"[^>]*value="20.00" required maxlength="16">/);
      const refunded = await panel.post(`/dashboard/charges/${settled}/refund`, { amount: '5.00', confirm: 'yes' });
      assert.equal(refunded.location, `/dashboard/charges/${settled}?notice=refunded`);
      const after = decodeEntities((await panel.get(refunded.location!)).body);
      assert.ok(after.includes('<dt>Refunded</dt><dd>5.00 USD</dd>'), after.slice(0, 3000));
      // Funded 1,000.00; the voided check moved nothing; the settled 20.00 less its 5.00 refund, held while under way.
      assert.deepEqual(await achBalances(t, shop.merchant_id), { available: 101_500, ach_pending: 0, ach_payins: -1_500, ach_returns_due: 0 });
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
