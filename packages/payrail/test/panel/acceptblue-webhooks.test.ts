// accept.blue webhooks in the control panel (behaviour section 16): a webhook
// a shop plugin registered through the API in accept.blue's format is listed
// on the merchant's webhooks page beside Payrail's own endpoints, marked as
// accept.blue's format with its accept.blue id and description, and can be
// disabled there like any endpoint (the API then reads it inactive).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient } from '../helpers/panel.ts';
import { callOk } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`panel: accept.blue webhooks (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it("lists an accept.blue webhook beside Payrail's endpoints, with its id and description, and disables it", async () => {
      const shop = await t.newMerchant({ name: 'Vendure shop' });
      await createUser(t.service, { email: 'ab-hooks@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      const own = await callOk(t, shop, 'POST', '/api/v2/webhooks', { url: 'https://shop.example/payrail' });
      t.clock.advance(1000);
      const webhook = await callOk(
        t,
        shop,
        'POST',
        '/api/v2/webhooks',
        {
          webhook_url: 'https://shop.example/accept-blue/webhook/token',
          description: 'Notify Vendure of any events on the Accept Blue platform',
          active: true,
        },
        201,
      );
      const panel = new PanelClient(t.app);
      await panel.signIn('ab-hooks@example.com', PASSWORD);

      const page = await panel.get('/dashboard/webhooks');
      assert.equal(page.status, 200);
      const text = decodeEntities(page.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
      assert.match(text, /https:\/\/shop\.example\/payrail/);
      assert.match(text, new RegExp(`accept\\.blue format accept\\.blue id ${webhook.id} · Notify Vendure of any events on the Accept Blue platform`));
      assert.ok(!page.body.includes(webhook.signature), 'the secret is not on the page');
      assert.ok(text.indexOf('https://shop.example/payrail') < text.indexOf('https://shop.example/accept-blue'), 'oldest first');

      const endpointId = /Endpoint https:\/\/shop\.example\/accept-blue\/webhook\/token[\s\S]*?Id <code>(we_[0-9A-Za-z]{16})<\/code>/.exec(page.body)?.[1];
      assert.ok(endpointId !== undefined && endpointId !== own.id);
      const disabled = await panel.post(`/dashboard/webhooks/${endpointId}/disable`, {});
      assert.equal(disabled.status, 303);
      assert.equal((await callOk(t, shop, 'GET', `/api/v2/webhooks/${webhook.id}`)).active, false);
    });
  });
}
