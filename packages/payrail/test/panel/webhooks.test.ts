// Webhooks in the control panel (docs/api-decisions.md section 11): a
// merchant adds an endpoint (the secret shown once), sees each endpoint's
// recent deliveries (status, answer code, latency, next retry), re-sends one,
// and sees an endpoint Payrail disabled flagged; another merchant can act on
// none of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../../src/flows/panel/users.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { type DeliveryDeps, deliverDue } from '../../src/flows/webhooks/deliver.ts';
import { sendWebhook } from '../../src/providers/webhook-sender.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient, textOf } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';
import { signaturesValid, startReceiver } from '../helpers/webhook-receiver.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`panel webhooks (${kind})`, () => {
    let t: TestApp;
    let deps: DeliveryDeps;
    before(async () => {
      t = await createTestApp(kind);
      deps = { db: t.service.db, clock: t.clock, log: t.service.log, config: t.service.config, send: sendWebhook };
    });
    after(() => t.close());

    it('adds an endpoint, shows its deliveries with answer, latency and next retry, and re-sends one', async () => {
      const receiver = await startReceiver((index) => (index === 0 ? 500 : 200));
      try {
        const shop = await t.newMerchant({ fundCents: 100_000, name: 'Hook shop' });
        const other = await t.newMerchant({ name: 'Other shop' });
        await createUser(t.service, { email: 'hooks@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
        await createUser(t.service, { email: 'other-hooks@example.com', role: 'merchant', merchantId: other.merchant_id, password: PASSWORD });
        const panel = new PanelClient(t.app);
        await panel.signIn('hooks@example.com', PASSWORD);

        const empty = await panel.get('/dashboard/webhooks');
        assert.equal(empty.status, 200);
        assert.match(empty.body, /No webhook endpoints/);
        const created = await panel.post('/dashboard/webhooks', { url: receiver.url, events: 'transfer.created' });
        assert.equal(created.status, 200, created.body);
        const secret = /id="webhook-secret" class="mono" readonly value="(whsec_[0-9A-Za-z]+)"/.exec(created.body)?.[1];
        assert.ok(secret, 'the secret is shown once');

        await executeTransfer(t.service, shop.merchant_id, transferBody());
        await deliverDue(deps);
        const page = await panel.get('/dashboard/webhooks');
        assert.ok(!page.body.includes(secret), 'the secret is not shown again');
        const row = /<tbody>[\s\S]*?<tr>([\s\S]*?)<\/tr>/.exec(page.body)![1]!;
        const cells = [...row.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
          decodeEntities(
            c[1]!
              .replace(/<[^>]+>/g, ' ')
              .replace(/\s+/g, ' ')
              .trim(),
          ),
        );
        assert.match(cells[0]!, /^evt_\d+$/);
        assert.equal(cells[1], 'transfer.created');
        assert.equal(cells[2], 'retrying');
        assert.equal(cells[3], '500');
        assert.match(cells[4]!, /^\d+ ms$/);
        assert.equal(cells[5], '1');
        assert.notEqual(cells[7], '—', 'the next retry is shown');

        const deliveryPk = /action="\/dashboard\/webhooks\/deliveries\/(\d+)\/resend"/.exec(page.body)![1]!;
        const stranger = new PanelClient(t.app);
        await stranger.signIn('other-hooks@example.com', PASSWORD);
        await stranger.get('/dashboard/webhooks');
        assert.equal((await stranger.post(`/dashboard/webhooks/deliveries/${deliveryPk}/resend`)).status, 404);
        const endpointId = /action="\/dashboard\/webhooks\/(we_[0-9A-Za-z]+)\/delete"/.exec(page.body)![1]!;
        assert.equal((await stranger.post(`/dashboard/webhooks/${endpointId}/delete`)).status, 404);

        const resent = await panel.post(`/dashboard/webhooks/deliveries/${deliveryPk}/resend`);
        assert.equal(resent.status, 303);
        assert.equal(resent.location, '/dashboard/webhooks?notice=webhook_resent');
        await deliverDue(deps);
        assert.equal(receiver.received.length, 2);
        assert.equal(receiver.received[0]!.headers['payrail-event-id'], receiver.received[1]!.headers['payrail-event-id']);
        for (const r of receiver.received) assert.ok(signaturesValid(r, secret));
        const after = await panel.get('/dashboard/webhooks?notice=webhook_resent');
        assert.match(textOf(after.body, 'notice') ?? '', /Delivery queued again/);
        assert.match(after.body, /badge-ok">delivered/);
      } finally {
        await receiver.close();
      }
    });

    it('flags an endpoint Payrail disabled after 3 days of failures, and enables it again', async () => {
      const dead = await startReceiver();
      await dead.close();
      const shop = await t.newMerchant({ fundCents: 100_000, name: 'Dead hook shop' });
      await createUser(t.service, { email: 'dead@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      const panel = new PanelClient(t.app);
      await panel.signIn('dead@example.com', PASSWORD);
      await panel.get('/dashboard/webhooks');
      assert.equal((await panel.post('/dashboard/webhooks', { url: dead.url, events: '' })).status, 200);
      await executeTransfer(t.service, shop.merchant_id, transferBody());
      for (let round = 0; round < 60; round++) {
        await deliverDue(deps);
        t.clock.advance(6 * 60 * 60 * 1000);
      }
      // Days went by: the session has ended, so sign in again.
      const later = new PanelClient(t.app);
      await later.signIn('dead@example.com', PASSWORD);
      const page = await later.get('/dashboard/webhooks');
      assert.match(page.body, /1 webhook endpoint\(s\) disabled by Payrail after failing for 3 days/);
      assert.match(decodeEntities(page.body), /Payrail disabled this endpoint: every delivery failed for 3 days/);
      const endpointId = /action="\/dashboard\/webhooks\/(we_[0-9A-Za-z]+)\/enable"/.exec(page.body)![1]!;
      const enabled = await later.post(`/dashboard/webhooks/${endpointId}/enable`);
      assert.equal(enabled.location, '/dashboard/webhooks?notice=webhook_enabled');
      const again = await later.get('/dashboard/webhooks');
      assert.doesNotMatch(again.body, /disabled by Payrail/);
    });
  });
}
