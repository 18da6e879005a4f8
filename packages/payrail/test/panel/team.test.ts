// Team invitations and merchant roles through the in-process panel, on both
// stores, with no SMTP server: the mails are read from the outbox, as a
// newcomer without a mail server would. Roles are enforced on the routes
// themselves: a viewer cannot create keys (403), a developer can but cannot
// invite or act on charges, and an operator reads the outbox in the panel.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { INVITATION_WINDOW_MS } from '../../src/domain/invitation-limits.ts';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { createSourceAs, rotateTransferKeyAs } from '../../src/flows/panel/credential-actions.ts';
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

    async function sourceOf(merchant: string): Promise<string> {
      const row = await t.service.db.read((tx) => tx.get<{ id: string }>('SELECT id FROM sources WHERE merchant_id = ? ORDER BY id LIMIT 1', [merchant]));
      assert.ok(row !== undefined, `no source of ${merchant}`);
      return row.id;
    }

    async function adminClient(): Promise<PanelClient> {
      const client = new PanelClient(t.app);
      await client.signIn(admin, PASSWORD);
      return client;
    }

    async function team(client?: PanelClient) {
      return (client ?? (await adminClient())).get('/dashboard/team');
    }

    async function userId(email: string): Promise<string> {
      const row = await t.service.db.read((tx) => tx.get<{ id: string }>('SELECT id FROM panel_users WHERE email = ?', [email]));
      assert.ok(row !== undefined, `no user ${email}`);
      return row.id;
    }

    async function auditActions(target: string): Promise<string[]> {
      const rows = await t.service.db.read((tx) =>
        tx.all<{ action: string; outcome: string }>("SELECT action, outcome FROM audit_events WHERE target = ? AND action LIKE 'user.%' ORDER BY id", [target]),
      );
      return rows.map((r) => `${r.action} ${r.outcome}`);
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
      // Published under a public URL, so loopback receivers (the developer's test endpoint) need the operator's allow-list.
      t = await createTestApp(kind, {
        env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL, PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.0/8, ::1' },
        validateResponses: false,
      });
      merchantId = (await t.newMerchant({ fundCents: 10_000 })).merchant_id;
      await createUser({ db: t.service.db, clock: t.clock }, { email: admin, role: 'merchant', merchantId, password: PASSWORD });
      await createUser({ db: t.service.db, clock: t.clock }, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
    });
    after(async () => t?.close());
    // These tests invite more people between them than a merchant may in a day
    // (domain/invitation-limits.ts): each starts a day later, in a window of its own.
    beforeEach(() => {
      t?.clock.advance(INVITATION_WINDOW_MS);
    });

    it('refuses bad invitations: an invalid address, an unknown role', async () => {
      const bad = await invite('not an address', 'viewer');
      assert.equal(bad.status, 400);
      assert.match(bad.body, /Enter a valid e-mail address/);
      assert.equal((await invite('someone@example.com', 'owner')).status, 400);
      assert.deepEqual(await mailList(t.service, { to: 'someone@example.com' }, 5), []);
    });

    it("finding 6: inviting an address with an account (an operator's, the admin's own) answers exactly as a new address", async () => {
      const fresh = await invite('brand-new@example.com', 'viewer');
      const operator = await invite('ops@example.com', 'viewer');
      const own = await invite(admin, 'viewer');
      assert.deepEqual([fresh.status, operator.status, own.status], [303, 303, 303]);
      assert.equal(operator.location, fresh.location);
      assert.equal(own.location, fresh.location);
      const listed = await team();
      assert.match(listed.body, /brand-new@example\.com/);
      assert.match(listed.body, /ops@example\.com/);
      // The operator, and only the operator, learns from the link that the address has an account; nothing is made.
      const path = await invitationPath('ops@example.com');
      const taken = await new PanelClient(t.app).post(path, { password: PASSWORD }, { csrf: false });
      assert.equal(taken.status, 409);
      assert.match(taken.body, /already has a panel account/);
      const rows = await t.service.db.read((tx) => tx.all<{ role: string }>("SELECT role FROM panel_users WHERE email = 'ops@example.com'"));
      assert.deepEqual(
        rows.map((r) => r.role),
        ['operator'],
      );
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

    it('finding 1: a developer cannot make, rotate or revoke keys that move money, nor act on charges; an admin can', async () => {
      const developer = await join('developer@example.com', 'developer');
      const page = await developer.get('/dashboard/credentials');
      assert.doesNotMatch(page.body, /Create source|Rotate transfer API key/);
      const sourceId = await sourceOf(merchantId);
      for (const path of [
        '/dashboard/credentials/sources',
        `/dashboard/credentials/sources/${sourceId}/rotate`,
        '/dashboard/credentials/transfer-key/rotate',
        `/dashboard/credentials/sources/${sourceId}/revoke`,
      ]) {
        const refused = await developer.post(path, { name: 'Dev source' });
        assert.equal(refused.status, 403, path);
        assert.doesNotMatch(refused.body, /sk_|pin|whsec_/i);
      }
      assert.equal((await developer.post('/dashboard/team/invite', { email: 'x@example.com', role: 'admin' })).status, 403);
      assert.equal((await developer.post('/dashboard/charges/1/capture')).status, 403);
      // The flow itself refuses a role without money power, whatever route reaches it.
      const asDeveloper = { actor: { kind: 'user', id: 'usr_dev', label: 'developer@example.com', address: null }, role: 'developer' } as const;
      await assert.rejects(
        createSourceAs(issuingDeps(t.service), { merchantId, name: 'x', dialect: 'spec' }, asDeveloper),
        /cannot make or change keys that move money/,
      );
      await assert.rejects(rotateTransferKeyAs(issuingDeps(t.service), { merchantId }, asDeveloper), /cannot make or change keys that move money/);
      // Webhook endpoints and card-form origins stay a developer's.
      await developer.get('/dashboard/webhooks');
      const endpoint = await developer.post('/dashboard/webhooks', { url: 'http://localhost:9/hook', events: 'transfer.succeeded' });
      assert.equal(endpoint.status, 200);
      assert.match(endpoint.body, /whsec_/);
      await developer.get('/dashboard/credentials');
      assert.equal((await developer.post(`/dashboard/credentials/sources/${sourceId}/origins`, { origin: 'https://shop.example.com' })).status, 303);
      // The admin still can.
      const owner = await adminClient();
      await owner.get('/dashboard/credentials');
      const created = await owner.post('/dashboard/credentials/sources', { name: 'Admin source' });
      assert.equal(created.status, 200);
      assert.match(created.body, /New source credentials/);
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

    it('finding 10: an admin changes a role, revokes an invitation and removes a member, whose session ends', async () => {
      const member = await join('member@example.com', 'developer');
      const memberId = await userId('member@example.com');
      const owner = await adminClient();
      await team(owner);
      assert.equal((await owner.post(`/dashboard/team/members/${memberId}/role`, { role: 'viewer' })).location, '/dashboard/team?notice=role_changed');
      await member.get('/dashboard/credentials');
      assert.equal((await member.post('/dashboard/credentials/sources', { name: 'After demotion' })).status, 403);

      await owner.post('/dashboard/team/invite', { email: 'pending@example.com', role: 'admin' });
      const path = await invitationPath('pending@example.com');
      const page = await team(owner);
      const invitationId = /pending@example\.com<\/th>[\s\S]*?\/dashboard\/team\/invitations\/(lnk_[A-Za-z0-9]+)\/revoke/.exec(page.body)?.[1];
      assert.ok(invitationId !== undefined, 'no pending invitation listed');
      assert.equal((await owner.post(`/dashboard/team/invitations/${invitationId}/revoke`)).location, '/dashboard/team?notice=invitation_revoked');
      assert.equal((await new PanelClient(t.app).post(path, { password: PASSWORD }, { csrf: false })).status, 410);
      assert.doesNotMatch((await team(owner)).body, /pending@example\.com/);

      assert.equal((await owner.post(`/dashboard/team/members/${memberId}/remove`)).location, '/dashboard/team?notice=member_removed');
      assert.equal((await member.get('/dashboard/overview')).location, '/dashboard/login?m=expired');
      assert.equal((await new PanelClient(t.app).signIn('member@example.com', PASSWORD)).status, 401);
      assert.doesNotMatch((await team(owner)).body, /member@example\.com/);
      assert.deepEqual(await auditActions(memberId), ['user.create success', 'user.role_change success', 'user.remove success']);
      assert.deepEqual(await auditActions(invitationId), ['user.invitation_revoke success']);
    });

    it('finding 10: the last admin cannot be removed or demoted; another admin can, and non-admins cannot manage the team', async () => {
      const owner = await adminClient();
      const ownerId = await userId(admin);
      await team(owner);
      const demote = await owner.post(`/dashboard/team/members/${ownerId}/role`, { role: 'viewer' });
      assert.equal(demote.status, 400);
      assert.match(demote.body, /The team must keep an admin/);
      assert.equal((await owner.post(`/dashboard/team/members/${ownerId}/remove`)).status, 400);
      assert.equal((await owner.post(`/dashboard/team/members/${ownerId}/role`, { role: 'owner' })).status, 400);
      // Someone else's member (the operator) is no member of this team.
      assert.equal((await owner.post(`/dashboard/team/members/${await userId('ops@example.com')}/remove`)).status, 404);

      const developer = await join('dev-team@example.com', 'developer');
      await developer.get('/dashboard/overview');
      assert.equal((await developer.post(`/dashboard/team/members/${ownerId}/remove`)).status, 403);

      const second = await join('second-admin@example.com', 'admin');
      await team(second);
      const secondId = await userId('second-admin@example.com');
      assert.equal((await second.post(`/dashboard/team/members/${secondId}/role`, { role: 'developer' })).status, 303);
      assert.equal((await owner.post(`/dashboard/team/members/${secondId}/role`, { role: 'admin' })).status, 303);
      assert.equal((await second.post(`/dashboard/team/members/${secondId}/remove`)).status, 303);
      assert.equal((await second.get('/dashboard/overview')).location, '/dashboard/login?m=expired');
      assert.deepEqual(await auditActions(ownerId), ['user.create success', 'user.role_change failure', 'user.remove failure']);
    });

    it('finding 5: a percent-encoded, doubled-slash, other-case or trailing-slash path reaches no admin-only page or action for a developer or viewer', async () => {
      // A day later, so that no limit the tests above used up (invitations a day, sign-ins) applies here.
      t.clock.advance(24 * 60 * 60_000 + 1000);
      const owner = await adminClient();
      const ownerId = await userId(admin);
      const sourceId = await sourceOf(merchantId);
      const members = [await join('dev-encoded@example.com', 'developer'), await join('viewer-encoded@example.com', 'viewer')];
      const teamPaths = [
        '/dashboard/%74eam',
        '/dashboard/%74%65%61%6D',
        '/dashboard/te%61m?x=1',
        '/dashboard/%2Fteam',
        '/dashboard//team',
        '/dashboard/%2F%74eam',
        '/dashboard/TEAM',
        '/dashboard/Team',
        '/dashboard/team/',
        '/dashboard/%74eam/',
      ];
      for (const member of members) {
        await member.get('/dashboard/overview');
        for (const path of teamPaths) {
          const page = await member.get(path);
          assert.notEqual(page.status, 200, path);
          assert.ok(!page.body.includes(admin), `${path} shows the team`);
        }
        const writes = [
          ['/dashboard/%74eam/invite', { email: 'sneaky@example.com', role: 'admin' }],
          ['/dashboard/team/%69nvite', { email: 'sneaky@example.com', role: 'admin' }],
          ['/dashboard//team/invite', { email: 'sneaky@example.com', role: 'admin' }],
          [`/dashboard/%74eam/members/${ownerId}/role`, { role: 'viewer' }],
          [`/dashboard/team/members/${ownerId}/%72ole`, { role: 'viewer' }],
          [`/dashboard/team/members/${ownerId}/remove/`, {}],
          ['/dashboard/credentials/%73ources', { name: 'Encoded' }],
          [`/dashboard/credentials/sources/${sourceId}/%72otate`, {}],
          [`/dashboard/credentials/sources/${sourceId}/%72%65voke`, {}],
          ['/dashboard/%63redentials/transfer-key/rotate', {}],
          ['/dashboard/credentials/transfer-key/rotate/', {}],
          ['/dashboard/CREDENTIALS/sources', { name: 'Encoded' }],
        ] as const;
        for (const [path, fields] of writes) {
          const refused = await member.post(path, fields);
          assert.ok(refused.status === 403 || refused.status === 404, `${path}: ${refused.status}`);
          assert.doesNotMatch(refused.body, /sk_|whsec_|New source credentials/);
        }
      }
      assert.equal((await mailList(t.service, { to: 'sneaky@example.com' }, 1)).length, 0, 'no invitation was sent');
      const page = await team(owner);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.body, /Encoded/);
      assert.equal((await owner.get('/dashboard/%74eam')).status, 200, 'the admin reaches the same page by any spelling of it');
      // A developer's own actions are judged by the route too, however the path is spelt.
      await members[0]!.get('/dashboard/credentials');
      assert.equal((await members[0]!.post(`/dashboard/credentials/sources/${sourceId}/%6Frigins`, { origin: 'https://encoded.example.com' })).status, 303);
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
