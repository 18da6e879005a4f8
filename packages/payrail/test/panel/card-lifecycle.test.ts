// The card lifecycle in the control panel (docs/api-decisions.md section 10),
// on both stores: a merchant captures, voids and refunds from a charge's page,
// each after a confirmation step and only with the session's CSRF token; sees
// the refunds under their charge; filters the list by status and date; and
// the operator sees the settlement batches.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableCents, chargeCard, closeSandboxBatch, snapshot, statusOf } from '../helpers/lifecycle.ts';
import { PanelClient, textOf } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`panel: capture, void and refund (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let other: CreatedMerchant;
    let panel: PanelClient;
    let operator: PanelClient;

    before(async () => {
      t = await createTestApp(kind);
      shop = await t.newMerchant({ name: 'Lifecycle shop' });
      other = await t.newMerchant({ name: 'Other shop' });
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'shop@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      panel = new PanelClient(t.app);
      operator = new PanelClient(t.app);
      assert.equal((await panel.signIn('shop@example.com', PASSWORD)).status, 303);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('captures an authorization after a confirmation step; without the CSRF token nothing happens', async () => {
      const pk = await chargeCard(t, shop, { amount: 30, capture: false });
      const page = await panel.get(`/dashboard/charges/${pk}`);
      assert.match(page.body, new RegExp(`action="/dashboard/charges/${pk}/capture"`));
      const untouched = await snapshot(t, shop.merchant_id);

      const ask = await panel.post(`/dashboard/charges/${pk}/capture`, { amount: '30.00' });
      assert.equal(ask.status, 200);
      assert.equal(textOf(ask.body, 'notice'), `Capture 30.00 USD of charge ${pk}? The amount is credited to your balance.`);
      assert.deepEqual(await snapshot(t, shop.merchant_id), untouched, 'asking changes nothing');

      const forged = await panel.post(`/dashboard/charges/${pk}/capture`, { amount: '30.00', confirm: 'yes' }, { csrf: false });
      assert.equal(forged.status, 403);
      assert.deepEqual(await snapshot(t, shop.merchant_id), untouched, 'a post without the token changes nothing');

      const done = await panel.post(`/dashboard/charges/${pk}/capture`, { amount: '30.00', confirm: 'yes' });
      assert.equal(done.status, 303);
      assert.equal(done.location, `/dashboard/charges/${pk}?notice=captured`);
      assert.equal(await statusOf(t, shop, pk), 'captured');
      assert.equal(await availableCents(t, shop.merchant_id), 3000);
      const after = await panel.get(done.location!);
      assert.equal(textOf(after.body, 'notice'), 'Charge captured; the amount is credited to your balance.');
    });

    it('voids an authorization after confirmation', async () => {
      const pk = await chargeCard(t, shop, { amount: 9, capture: false });
      assert.equal((await panel.post(`/dashboard/charges/${pk}/void`)).status, 200);
      const done = await panel.post(`/dashboard/charges/${pk}/void`, { confirm: 'yes' });
      assert.equal(done.location, `/dashboard/charges/${pk}?notice=voided`);
      assert.equal(await statusOf(t, shop, pk), 'voided');
    });

    it('refunds a settled charge in parts and lists the refunds under it', async () => {
      const pk = await chargeCard(t, shop, { amount: 20 });
      await closeSandboxBatch(t, shop);
      const page = await panel.get(`/dashboard/charges/${pk}`);
      assert.match(page.body, /id="refund-amount"[^>]*value="20.00"/);
      await panel.post(`/dashboard/charges/${pk}/refund`, { amount: '5.00' });
      const done = await panel.post(`/dashboard/charges/${pk}/refund`, { amount: '5.00', confirm: 'yes' });
      assert.equal(done.location, `/dashboard/charges/${pk}?notice=refunded`);
      const refunded = await panel.get(done.location!);
      assert.match(refunded.body, /<h2>Refunds<\/h2>/);
      assert.match(refunded.body, /<dt>Refunded<\/dt><dd>5.00 USD<\/dd>/);
      assert.match(refunded.body, /id="refund-amount"[^>]*value="15.00"/);
      const refunds = [...refunded.body.matchAll(/<th scope="row"><a href="\/dashboard\/charges\/([0-9]+)">/g)].map((m) => Number(m[1]));
      assert.equal(refunds.length, 1);
      assert.equal(await statusOf(t, shop, refunds[0]!), 'captured');
      // Too much is refused with the reason, and nothing changes.
      const untouched = await snapshot(t, shop.merchant_id);
      const tooMuch = await panel.post(`/dashboard/charges/${pk}/refund`, { amount: '15.01', confirm: 'yes' });
      assert.equal(tooMuch.status, 400);
      assert.match(tooMuch.body, new RegExp(`amount exceeds the refundable 15.00 of reference_number ${pk}`));
      assert.deepEqual(await snapshot(t, shop.merchant_id), untouched);
    });

    it("cannot act on another merchant's charge", async () => {
      const foreign = await chargeCard(t, other, { amount: 10 });
      const untouched = await snapshot(t, other.merchant_id);
      const response = await panel.post(`/dashboard/charges/${foreign}/void`, { confirm: 'yes' });
      assert.equal(response.status, 404);
      assert.deepEqual(await snapshot(t, other.merchant_id), untouched);
    });

    it('filters the charge list by status and date', async () => {
      const settled = await panel.get('/dashboard/charges?status=settled');
      assert.equal(settled.status, 200);
      const refs = [...settled.body.matchAll(/<th scope="row"><a href="\/dashboard\/charges\/([0-9]+)">/g)].map((m) => Number(m[1]));
      assert.ok(refs.length >= 1);
      for (const ref of refs) assert.equal(await statusOf(t, shop, ref), 'settled');
      const today = new Date(t.clock.nowMs()).toISOString().slice(0, 10);
      const dated = await panel.get(`/dashboard/charges?status=voided&from=${today}&to=${today}`);
      assert.equal(dated.status, 200);
      assert.match(dated.body, /voided/);
      const none = await panel.get('/dashboard/charges?status=voided&from=2001-01-01&to=2001-01-02');
      assert.match(none.body, /No charges match these filters/);
    });

    it('shows the operator every settlement batch', async () => {
      const page = await operator.get('/dashboard/operator/batches');
      assert.equal(page.status, 200);
      assert.match(page.body, new RegExp(`<code>${shop.merchant_id}</code>`));
      assert.match(page.body, /badge-ok">closed</);
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
