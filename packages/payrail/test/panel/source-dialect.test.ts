// A source's wire dialect in the control panel (behaviour.md section 16):
// the credentials page shows each source's dialect; the merchant's admin
// changes it with a form (CSRF-protected, audited); a developer and a
// viewer are refused (403) whatever they post; a new source picks its
// dialect; the operator picks the first source's when creating a merchant.
// On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditEvents } from '../../src/flows/operations/audit.ts';
import { showMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient, textOf } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`source wire dialect in the panel (${kind})`, () => {
    let t: TestApp;
    let merchantId: string;
    let sourceId: string;
    const clients: Record<'admin' | 'developer' | 'viewer' | 'operator', PanelClient> = {} as never;

    const dialectOf = async (id: string) => (await showMerchant(issuingDeps(t.service), merchantId)).sources.find((s) => s.id === id)?.dialect;

    before(async () => {
      t = await createTestApp(kind, { validateResponses: false });
      const merchant = await t.newMerchant();
      merchantId = merchant.merchant_id;
      sourceId = merchant.source.id;
      const deps = { db: t.service.db, clock: t.clock };
      for (const role of ['admin', 'developer', 'viewer'] as const) {
        await createUser(deps, { email: `${role}@example.com`, role: 'merchant', merchantId, password: PASSWORD });
        await t.service.db.write((tx) => tx.run('UPDATE panel_users SET merchant_role = ? WHERE email = ?', [role, `${role}@example.com`]));
      }
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      for (const name of ['admin', 'developer', 'viewer', 'operator'] as const) {
        clients[name] = new PanelClient(t.app);
        const email = name === 'operator' ? 'ops@example.com' : `${name}@example.com`;
        assert.equal((await clients[name].signIn(email, PASSWORD)).status, 303);
      }
    });
    after(async () => t?.close());

    it("shows each source's dialect; only the admin gets the form to change it", async () => {
      const adminPage = await clients.admin.get('/dashboard/credentials');
      assert.equal(adminPage.status, 200);
      assert.match(adminPage.body, new RegExp(`action="/dashboard/credentials/sources/${sourceId}/dialect"`));
      assert.match(adminPage.body, /<option value="spec" selected>Payrail \(spec\)<\/option><option value="acceptblue">accept.blue v2<\/option>/);
      for (const role of ['developer', 'viewer'] as const) {
        const page = await clients[role].get('/dashboard/credentials');
        assert.equal(page.status, 200);
        assert.ok(!page.body.includes(`/sources/${sourceId}/dialect`), role);
        assert.match(page.body, /<td><code>spec<\/code><\/td>/, role);
      }
    });

    it('refuses a developer and a viewer (403); nothing changes and no event is recorded', async () => {
      for (const role of ['developer', 'viewer'] as const) {
        await clients[role].get('/dashboard/credentials');
        const refused = await clients[role].post(`/dashboard/credentials/sources/${sourceId}/dialect`, { dialect: 'acceptblue' });
        assert.equal(refused.status, 403, role);
        assert.match(refused.body, new RegExp(`Your role \\(${role}\\) does not allow this`));
      }
      assert.equal(await dialectOf(sourceId), 'spec');
      const events = await auditEvents(t.service, { action: 'source.dialect', fromMs: null, toMs: null, beforeId: null });
      assert.deepEqual(events.rows, []);
    });

    it('refuses a post without the CSRF token', async () => {
      const forged = await clients.admin.post(`/dashboard/credentials/sources/${sourceId}/dialect`, { dialect: 'acceptblue' }, { csrf: false });
      assert.equal(forged.status, 403);
      assert.equal(await dialectOf(sourceId), 'spec');
    });

    it('lets the admin change it, audited under their name; an unknown dialect is refused', async () => {
      await clients.admin.get('/dashboard/credentials');
      const set = await clients.admin.post(`/dashboard/credentials/sources/${sourceId}/dialect`, { dialect: 'acceptblue' });
      assert.equal(set.status, 303);
      assert.equal(set.location, '/dashboard/credentials?notice=dialect_changed');
      assert.equal(await dialectOf(sourceId), 'acceptblue');
      const page = await clients.admin.get(set.location!);
      assert.match(textOf(page.body, 'notice') ?? '', /Wire dialect changed/);
      assert.match(page.body, /<option value="acceptblue" selected>/);
      const [event] = (await auditEvents(t.service, { action: 'source.dialect', fromMs: null, toMs: null, beforeId: null })).rows;
      assert.deepEqual(
        [event?.outcome, event?.actor_label, event?.target, event?.detail],
        ['success', 'admin@example.com', sourceId, 'dialect spec -> acceptblue'],
      );

      const bad = await clients.admin.post(`/dashboard/credentials/sources/${sourceId}/dialect`, { dialect: 'stripe' });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /dialect must be spec or acceptblue/);
      assert.equal(await dialectOf(sourceId), 'acceptblue');
    });

    it("answers 404 for another merchant's source", async () => {
      const other = await t.newMerchant();
      await clients.admin.get('/dashboard/credentials');
      const refused = await clients.admin.post(`/dashboard/credentials/sources/${other.source.id}/dialect`, { dialect: 'acceptblue' });
      assert.equal(refused.status, 404);
      assert.equal((await showMerchant(issuingDeps(t.service), other.merchant_id)).sources[0]!.dialect, 'spec');
    });

    it('creates a source in the dialect picked (an admin; keys move money), spec when none is picked', async () => {
      await clients.admin.get('/dashboard/credentials');
      const created = await clients.admin.post('/dashboard/credentials/sources', { name: 'Woo', dialect: 'acceptblue' });
      assert.equal(created.status, 200);
      assert.match(created.body, /Wire dialect: <code>acceptblue<\/code>/);
      const id = /Source (src_[0-9A-Za-z]+) created\./.exec(created.body)![1]!;
      assert.equal(await dialectOf(id), 'acceptblue');
      await clients.admin.get('/dashboard/credentials');
      const plain = await clients.admin.post('/dashboard/credentials/sources', { name: 'Plain' });
      assert.equal(await dialectOf(/Source (src_[0-9A-Za-z]+) created\./.exec(plain.body)![1]!), 'spec');
    });

    it("lets the operator pick a new merchant's first source's dialect, and shows it on the merchant's page", async () => {
      await clients.operator.get('/dashboard/operator/merchants');
      const created = await clients.operator.post('/dashboard/operator/merchants', { name: 'Formidable shop', dialect: 'acceptblue' });
      assert.equal(created.status, 200);
      const id = /Merchant (mer_[0-9A-Za-z]+) created\./.exec(created.body)![1]!;
      const [source] = (await showMerchant(issuingDeps(t.service), id)).sources;
      assert.equal(source?.dialect, 'acceptblue');
      const page = await clients.operator.get(`/dashboard/operator/merchants/${id}`);
      assert.ok(page.body.includes(`<code>${source!.id}</code> Default source (dialect <code>acceptblue</code>)`));
    });
  });
}
