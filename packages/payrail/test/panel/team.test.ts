// Team invitations and merchant roles through the in-process panel, on both
// stores, with no SMTP server: the mails are read from the outbox, as a
// newcomer without a mail server would. Roles are enforced on the routes
// themselves: a viewer cannot create keys (403), a developer can but cannot
// invite or act on charges, and an operator reads the outbox in the panel.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PUBLIC_URL = 'http://payrail.test';
const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`team invitations and roles (${kind})`, () => {
    let t: TestApp;
    let merchantId: string;
    const admin = 'owner@example.com';

    /** The path of the invitation link mailed to `email`, read from the outbox. */
    async function invitationPath(email: string): Promise<string> {
      const [mail] = await mailList(t.service, { to: email }, 1);
      const link = new RegExp(`${PUBLIC_URL}(/dashboard/invitation/[A-Za-z0-9._-]+)`).exec(mail?.text_body ?? '');
      assert.ok(link !== null, `no invitation mailed to ${email}`);
      return link[1]!;
    }

    async function invite(email: string, role: string) {
      const client = new PanelClient(t.app);
      await client.signIn(admin, PASSWORD);
      await client.get('/dashboard/team');
      return client.post('/dashboard/team/invite', { email, role });
    }

    async function join(email: string, role: string): Promise<PanelClient> {
      assert.equal((await invite(email, role)).status, 303);
      const path = await invitationPath(email);
      const client = new PanelClient(t.app);
      assert.equal((await client.get(path)).status, 200);
      assert.equal((await client.post(path, { password: PASSWORD }, { csrf: false })).location, '/dashboard/login?m=password_set');
      assert.equal((await client.signIn(email, PASSWORD)).status, 303);
      return client;
    }

    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL }, validateResponses: false });
      merchantId = (await t.newMerchant({ fundCents: 10_000 })).merchant_id;
      await createUser({ db: t.service.db, clock: t.clock }, { email: admin, role: 'merchant', merchantId, password: PASSWORD });
      await createUser({ db: t.service.db, clock: t.clock }, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
    });
    after(async () => t?.close());

    it('refuses bad invitations: an invalid address, an unknown role, an address with an account', async () => {
      const bad = await invite('not an address', 'viewer');
      assert.equal(bad.status, 400);
      assert.match(bad.body, /Enter a valid e-mail address/);
      assert.equal((await invite('someone@example.com', 'owner')).status, 400);
      assert.equal((await invite(admin, 'viewer')).status, 400);
      assert.deepEqual(await mailList(t.service, { to: 'someone@example.com' }, 5), []);
    });

    it('lets a viewer read but not create keys (403), nor see the team', async () => {
      const viewer = await join('viewer@example.com', 'viewer');
      assert.equal((await viewer.get('/dashboard/credentials')).status, 200);
      const refused = await viewer.post('/dashboard/credentials/sources', { name: 'Sneaky' });
      assert.equal(refused.status, 403);
      assert.match(refused.body, /Your role \(viewer\) does not allow this/);
      assert.ok(!(await viewer.get('/dashboard/credentials')).body.includes('Sneaky'));
      assert.equal((await viewer.get('/dashboard/team')).status, 403);
      assert.equal((await viewer.post('/dashboard/charges/1/refund', { amount: '1.00' })).status, 403);
    });

    it('lets a developer create keys, but not invite or act on charges', async () => {
      const developer = await join('developer@example.com', 'developer');
      await developer.get('/dashboard/credentials');
      const created = await developer.post('/dashboard/credentials/sources', { name: 'Dev source' });
      assert.equal(created.status, 200);
      assert.match(created.body, /New source credentials/);
      await developer.get('/dashboard/overview');
      assert.equal((await developer.post('/dashboard/team/invite', { email: 'x@example.com', role: 'admin' })).status, 403);
      assert.equal((await developer.post('/dashboard/charges/1/capture')).status, 403);
      // Webhook endpoints are a developer's too.
      await developer.get('/dashboard/webhooks');
      const endpoint = await developer.post('/dashboard/webhooks', { url: 'http://localhost:9/hook', events: 'transfer.succeeded' });
      assert.equal(endpoint.status, 200);
      assert.match(endpoint.body, /whsec_/);
    });

    it('keeps a viewer from creating a webhook endpoint (403)', async () => {
      const viewer = await join('viewer-hooks@example.com', 'viewer');
      await viewer.get('/dashboard/webhooks');
      assert.equal((await viewer.post('/dashboard/webhooks', { url: 'http://localhost:9/hook', events: '' })).status, 403);
    });

    it('uses an invitation once', async () => {
      await invite('once@example.com', 'viewer');
      const path = await invitationPath('once@example.com');
      const client = new PanelClient(t.app);
      assert.equal((await client.post(path, { password: PASSWORD }, { csrf: false })).status, 303);
      const again = await client.post(path, { password: PASSWORD }, { csrf: false });
      assert.equal(again.status, 410);
      assert.match(again.body, /already used/);
      assert.equal((await client.get(`${path.slice(0, -2)}zz`)).status, 404);
    });

    it('shows the operator the outbox in the panel, its links readable there without a mail server', async () => {
      const operator = new PanelClient(t.app);
      await operator.signIn('ops@example.com', PASSWORD);
      const page = await operator.get('/dashboard/operator/mail');
      assert.equal(page.status, 200);
      assert.match(page.body, /No SMTP server is configured/);
      assert.match(page.body, /You are invited to a Payrail control panel/);
      assert.ok(page.body.includes(`${PUBLIC_URL}/dashboard/invitation/`));
    });
  });
}
