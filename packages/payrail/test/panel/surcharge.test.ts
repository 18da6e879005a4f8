// The surcharge settings in the control panel: every role of the merchant
// sees them, an admin changes them (with the form's CSRF token, audited),
// a developer or a viewer is refused and nothing changes; a bad value is
// refused with its reason. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { auditEvents } from '../../src/flows/operations/audit.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';

const PUBLIC_URL = 'http://payrail.test';
const PASSWORD = 'correct horse battery staple';
const ADMIN = 'surcharge-owner@example.com';

for (const kind of STORE_KINDS) {
  describe(`panel surcharge (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;

    async function settings(): Promise<unknown> {
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/surcharge', headers: { authorization: basicOf(merchant) } });
      return response.json();
    }

    /** A user of the merchant with this role, joined by the admin's invitation as a newcomer would. */
    async function member(email: string, role: 'developer' | 'viewer'): Promise<PanelClient> {
      const admin = new PanelClient(t.app);
      await admin.signIn(ADMIN, PASSWORD);
      await admin.get('/dashboard/team');
      assert.equal((await admin.post('/dashboard/team/invite', { email, role })).status, 303);
      const [mail] = await mailList(t.service, { to: email }, 1);
      const path = new RegExp(`${PUBLIC_URL}(/dashboard/invitation/[A-Za-z0-9._-]+)`).exec(mail?.text_body ?? '')![1]!;
      const client = new PanelClient(t.app);
      await client.get(path);
      await client.post(path, { password: PASSWORD }, { csrf: false });
      assert.equal((await client.signIn(email, PASSWORD)).status, 303);
      return client;
    }

    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL }, validateResponses: false });
      merchant = await t.newMerchant();
      await createUser(t.service, { email: ADMIN, role: 'merchant', merchantId: merchant.merchant_id, password: PASSWORD });
    });
    after(() => t.close());

    it('an admin sees none, sets a card percentage and a check amount, and the API shows them', async () => {
      const admin = new PanelClient(t.app);
      await admin.signIn(ADMIN, PASSWORD);
      const page = await admin.get('/dashboard/surcharge');
      assert.equal(page.status, 200);
      assert.match(page.body, /<dt>Card charges<\/dt><dd>none<\/dd>/);
      assert.match(page.body, /href="\/dashboard\/surcharge" aria-current="page"/);

      const saved = await admin.post('/dashboard/surcharge', { card_type: 'percent', card_value: '3.5', check_type: 'currency', check_value: '1.25' });
      assert.equal(saved.status, 303);
      assert.equal(saved.location, '/dashboard/surcharge?notice=surcharge_saved');
      const shown = await admin.get(saved.location!);
      assert.match(shown.body, /Surcharge saved/);
      assert.match(shown.body, /<dt>Card charges<\/dt><dd>3.5 % of the amount<\/dd>/);
      assert.match(shown.body, /<dt>Check charges<\/dt><dd>1.25 USD per charge<\/dd>/);
      assert.deepEqual(await settings(), { card: { type: 'percent', value: 3.5 }, check: { type: 'currency', value: 1.25 } });

      const events = await auditEvents(t.service, { action: 'merchant.surcharge', fromMs: null, toMs: null, beforeId: null });
      const event = events.rows.find((row) => row.merchant_id === merchant.merchant_id && row.outcome === 'success');
      assert.ok(event, 'the change is audited');
      assert.equal(event.actor_label, ADMIN);
      assert.equal(event.detail, 'card 3.5 %, check 1.25 USD');
    });

    it('refuses a bad value with its reason, a post without the CSRF token, and changes nothing', async () => {
      const admin = new PanelClient(t.app);
      await admin.signIn(ADMIN, PASSWORD);
      await admin.get('/dashboard/surcharge');
      const before = await settings();
      const bad = await admin.post('/dashboard/surcharge', { card_type: 'percent', card_value: '12', check_type: 'none', check_value: '' });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /card surcharge: a percentage is at most 10/);
      const forged = await admin.post('/dashboard/surcharge', { card_type: 'none', card_value: '', check_type: 'none', check_value: '' }, { csrf: false });
      assert.equal(forged.status, 403);
      assert.deepEqual(await settings(), before);
    });

    it('shows the settings to a developer and a viewer without a form, and refuses their posts', async () => {
      const before = await settings();
      for (const [email, role] of [
        ['surcharge-dev@example.com', 'developer'],
        ['surcharge-viewer@example.com', 'viewer'],
      ] as const) {
        const client = await member(email, role);
        const page = await client.get('/dashboard/surcharge');
        assert.equal(page.status, 200);
        assert.match(page.body, /Only an admin of your merchant can change the surcharge/);
        assert.ok(!page.body.includes('action="/dashboard/surcharge"'), `${role} gets no form`);
        const refused = await client.post('/dashboard/surcharge', { card_type: 'none', card_value: '', check_type: 'none', check_value: '' });
        assert.equal(refused.status, 403, role);
        assert.match(refused.body, new RegExp(`Your role \\(${role}\\) does not allow this`));
      }
      assert.deepEqual(await settings(), before);
    });
  });
}
