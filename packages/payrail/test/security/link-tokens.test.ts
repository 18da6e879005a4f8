// One-time links (password reset, invitation, credentials, sign-up
// confirmation) carry their token in the path: no log line may show it, on
// any route that takes one, matched or not, however encoded. The attack:
// read a token from the request log and use it before (or after) its owner.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { loggedPath } from '../../src/log.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PUBLIC_URL = 'http://payrail.test';
const PASSWORD = 'correct horse battery staple';
const FAKE_TOKEN = `lnk_AbCdEfGhIjKlMnOp.${'s'.repeat(43)}`;

describe('request log paths', () => {
  it('finding 2: a link token in any path segment is redacted, whatever the route and encoding', () => {
    assert.equal(loggedPath(`/dashboard/password/reset/${FAKE_TOKEN}`), '/dashboard/password/reset/[redacted]');
    assert.equal(loggedPath(`/signup/confirm/${FAKE_TOKEN}?utm=x`), '/signup/confirm/[redacted]');
    assert.equal(loggedPath(`/dashboard/welcome/%6Cnk_AbCdEfGhIjKlMnOp.${'s'.repeat(43)}/x`), '/dashboard/welcome/[redacted]/x');
    assert.equal(loggedPath('/dashboard/invitation/abc', { token: 'abc' }), '/dashboard/invitation/[redacted]');
    assert.equal(loggedPath('/api/v2/transactions/123', { id: '123' }), '/api/v2/transactions/123');
  });
});

for (const kind of STORE_KINDS) {
  describe(`one-time link tokens and the request log (${kind})`, () => {
    let t: TestApp;
    const email = 'owner@example.com';

    before(async () => {
      t = await createTestApp(kind, { clock: new ManualClock(Date.UTC(2026, 6, 1)), env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL }, validateResponses: false });
      const merchantId = (await t.newMerchant()).merchant_id;
      await createUser({ db: t.service.db, clock: t.clock }, { email, role: 'merchant', merchantId, password: PASSWORD });
    });
    after(async () => t?.close());

    it('finding 2: a reset token cannot be read from the log and used; once used it is spent', async () => {
      const asker = new PanelClient(t.app);
      await asker.get('/dashboard/password/forgot');
      await asker.post('/dashboard/password/forgot', { email });
      const [mail] = await mailList(t.service, { to: email }, 1);
      const path = new RegExp(`${PUBLIC_URL}(/dashboard/password/reset/([A-Za-z0-9._-]+))`).exec(mail?.text_body ?? '');
      assert.ok(path !== null);
      const token = path[2]!;
      const secret = token.split('.')[1]!;
      // The owner opens the link (and a mangled copy of it reaches a 404) ...
      const owner = new PanelClient(t.app);
      assert.equal((await owner.get(path[1]!)).status, 200);
      await owner.get(`${path[1]!}/x`);
      await owner.get(path[1]!.replace('lnk_', 'lnk%5F'));
      // ... and whoever reads the log finds neither the token nor its secret.
      const log = t.logLines.join('');
      assert.match(log, /"url":"\/dashboard\/password\/reset\/\[redacted\]"/);
      assert.equal(log.includes(secret), false);
      assert.equal(log.includes(token.split('.')[0]!), false);
      const stolen = [...log.matchAll(/\/dashboard\/password\/reset\/([^"\s/]+)/g)].map((m) => m[1]!);
      for (const candidate of stolen) {
        const attempt = await new PanelClient(t.app).post(
          `/dashboard/password/reset/${candidate}`,
          { password: 'amber falcons over quiet harbours' },
          { csrf: false },
        );
        assert.notEqual(attempt.status, 303, candidate);
      }
      assert.equal((await new PanelClient(t.app).signIn(email, 'amber falcons over quiet harbours')).status, 401);
      // The owner uses it; afterwards the token (were it known) is spent.
      assert.equal((await owner.post(path[1]!, { password: 'seven silver lanterns glow' }, { csrf: false })).location, '/dashboard/login?m=password_set');
      assert.equal((await new PanelClient(t.app).post(path[1]!, { password: 'amber falcons over quiet harbours' }, { csrf: false })).status, 410);
      assert.equal((await new PanelClient(t.app).get(path[1]!)).status, 410);
      assert.equal(t.logLines.join('').includes(secret), false);
    });

    it('finding 2: no route that carries a link token logs it, GET or POST, matched or not', async () => {
      const before = t.logLines.length;
      const client = new PanelClient(t.app);
      for (const route of [
        '/dashboard/password/reset/',
        '/dashboard/invitation/',
        '/dashboard/welcome/',
        '/signup/confirm/',
        '/dashboard/nowhere/',
        '/api/v2/x/',
      ]) {
        await client.get(`${route}${FAKE_TOKEN}`);
        await client.post(`${route}${FAKE_TOKEN}`, { password: 'whatever it is here' }, { csrf: false });
      }
      const lines = t.logLines.slice(before).join('');
      assert.ok(lines.includes('[redacted]'));
      assert.equal(lines.includes('lnk_'), false);
      assert.equal(lines.includes('s'.repeat(43)), false);
    });
  });
}

describe('link pages (sqlite)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { validateResponses: false });
  });
  after(async () => t?.close());

  it('finding 2: pages reached by a link send no Referer on, and are never cached', async () => {
    for (const route of ['/dashboard/password/reset/', '/dashboard/invitation/', '/dashboard/welcome/', '/signup/confirm/']) {
      const reply = await t.app.inject({ method: 'GET', url: `${route}${FAKE_TOKEN}` });
      assert.equal(reply.headers['referrer-policy'], 'no-referrer', route);
      assert.equal(reply.headers['cache-control'], 'no-store', route);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/dashboard/login' })).headers['referrer-policy'], 'same-origin');
  });

  it('finding 5: a link page reached by a percent-encoded path still sends no Referer on (the matched route decides, not the raw URL)', async () => {
    for (const route of ['/signup/%63onfirm/', '/signup/confirm%2F', '/dashboard/password/%72eset/', '/dashboard/%69nvitation/']) {
      const reply = await t.app.inject({ method: 'GET', url: `${route}${FAKE_TOKEN}` });
      assert.equal(reply.headers['referrer-policy'], 'no-referrer', route);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/dashboard/password/%66orgot' })).headers['referrer-policy'], 'same-origin');
  });
});
