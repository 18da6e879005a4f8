// "Forgot password" by e-mail through the in-process panel, on both stores:
// the same answer for known and unknown addresses (and a disabled account),
// a weak password refused without using the link up, the link expiring
// after an hour, working once, ending the account's sessions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { createUser, disableUser, resetUserPassword } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PUBLIC_URL = 'http://payrail.test';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'seven silver lanterns glow';

for (const kind of STORE_KINDS) {
  describe(`forgot password (${kind})`, () => {
    let t: TestApp;
    let clock: ManualClock;
    const email = 'reset@example.com';

    async function ask(address: string) {
      const client = new PanelClient(t.app);
      await client.get('/dashboard/password/forgot');
      return client.post('/dashboard/password/forgot', { email: address });
    }

    async function resetPath(to: string): Promise<string> {
      const [mail] = await mailList(t.service, { to }, 1);
      const link = new RegExp(`${PUBLIC_URL}(/dashboard/password/reset/[A-Za-z0-9._-]+)`).exec(mail?.text_body ?? '');
      assert.ok(link !== null, `no reset link mailed to ${to}`);
      return link[1]!;
    }

    before(async () => {
      clock = new ManualClock(Date.UTC(2026, 6, 1));
      t = await createTestApp(kind, { clock, env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL }, validateResponses: false });
      const merchantId = (await t.newMerchant()).merchant_id;
      const deps = { db: t.service.db, clock };
      await createUser(deps, { email, role: 'merchant', merchantId, password: PASSWORD });
      await createUser(deps, { email: 'gone@example.com', role: 'merchant', merchantId, password: PASSWORD });
      await disableUser(deps, 'gone@example.com');
    });
    after(async () => t?.close());

    it('answers known, unknown and disabled addresses alike, mailing only the enabled account', async () => {
      const known = await ask(email);
      const unknown = await ask('nobody@example.com');
      const disabled = await ask('gone@example.com');
      assert.deepEqual([known.status, unknown.status, disabled.status], [200, 200, 200]);
      assert.equal(unknown.body, known.body);
      assert.equal(disabled.body, known.body);
      assert.equal((await mailList(t.service, { to: email }, 5)).length, 1);
      assert.deepEqual(await mailList(t.service, { to: 'nobody@example.com' }, 5), []);
      assert.deepEqual(await mailList(t.service, { to: 'gone@example.com' }, 5), []);
    });

    it('refuses a weak password without using the link, then sets the new one once and ends other sessions', async () => {
      const signedIn = new PanelClient(t.app);
      assert.equal((await signedIn.signIn(email, PASSWORD)).status, 303);
      const path = await resetPath(email);
      const client = new PanelClient(t.app);
      const weak = await client.post(path, { password: 'short' }, { csrf: false });
      assert.equal(weak.status, 400);
      assert.equal((await client.post(path, { password: NEW_PASSWORD }, { csrf: false })).location, '/dashboard/login?m=password_set');
      assert.equal((await client.post(path, { password: 'another fine passphrase' }, { csrf: false })).status, 410);
      // The session from before the reset has ended.
      assert.equal((await signedIn.get('/dashboard/overview')).location, '/dashboard/login?m=expired');
      assert.equal((await new PanelClient(t.app).signIn(email, PASSWORD)).status, 401);
      assert.equal((await new PanelClient(t.app).signIn(email, NEW_PASSWORD)).status, 303);
    });

    it('finding 11: a reset retires every other outstanding reset link of the account', async () => {
      clock.advance(2 * 60 * 60_000);
      await ask(email);
      const first = await resetPath(email);
      clock.advance(60_000);
      await ask(email);
      const second = await resetPath(email);
      assert.notEqual(first, second);
      const client = new PanelClient(t.app);
      assert.equal((await client.post(second, { password: 'a brand new passphrase' }, { csrf: false })).location, '/dashboard/login?m=password_set');
      const stale = await new PanelClient(t.app).post(first, { password: 'the attacker passphrase' }, { csrf: false });
      assert.equal(stale.status, 410);
      assert.equal((await new PanelClient(t.app).signIn(email, 'the attacker passphrase')).status, 401);
      assert.equal((await new PanelClient(t.app).signIn(email, 'a brand new passphrase')).status, 303);
      // An operator's reset (payrail user reset-password) retires them too.
      clock.advance(60_000);
      await ask(email);
      const mailed = await resetPath(email);
      await resetUserPassword({ db: t.service.db, clock }, email);
      assert.equal((await new PanelClient(t.app).post(mailed, { password: 'the attacker passphrase' }, { csrf: false })).status, 410);
      // Back to the password the next case expects (an hour on: at most 3 mails an hour go to one inbox).
      clock.advance(60 * 60_000);
      await ask(email);
      assert.equal((await new PanelClient(t.app).post(await resetPath(email), { password: NEW_PASSWORD }, { csrf: false })).status, 303);
    });

    it('refuses a link older than an hour, changing nothing', async () => {
      clock.advance(2 * 60 * 60_000);
      await ask(email);
      const path = await resetPath(email);
      clock.advance(60 * 60_000 + 1);
      const client = new PanelClient(t.app);
      const expired = await client.get(path);
      assert.equal(expired.status, 410);
      assert.match(expired.body, /This link has expired/);
      assert.equal((await client.post(path, { password: 'yet another passphrase here' }, { csrf: false })).status, 410);
      assert.equal((await new PanelClient(t.app).signIn(email, NEW_PASSWORD)).status, 303);
    });
  });
}
