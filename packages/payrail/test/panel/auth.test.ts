// Control panel sign-in, sessions, CSRF, lock-out and roles, through
// app.inject() on both stores.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { LOCKOUT_MS, LOGIN_FAILURES_MAX, login } from '../../src/flows/panel/login.ts';
import { PAIR_FREE_FAILURES } from '../../src/flows/panel/attempts.ts';
import { SESSION_TTL_MS } from '../../src/flows/panel/sessions.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newAddress, PanelClient, textOf } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`panel sign-in and sessions (${kind})`, () => {
    let t: TestApp;
    let merchantId: string;

    before(async () => {
      t = await createTestApp(kind);
      merchantId = (await t.newMerchant({ fundCents: 12_345 })).merchant_id;
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'shop@example.com', role: 'merchant', merchantId, password: PASSWORD });
      await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      await createUser(deps, { email: 'locked@example.com', role: 'merchant', merchantId, password: PASSWORD });
    });
    after(() => t.close());

    it('serves the sign-in form with a double-submit token cookie', async () => {
      const client = new PanelClient(t.app);
      const page = await client.get('/dashboard/login');
      assert.equal(page.status, 200);
      assert.equal(page.setCookies.length, 1);
      assert.match(page.setCookies[0]!, /^payrail_login=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
      assert.equal(client.csrf, client.cookies.get('payrail_login'));
      assert.match(page.body, /<label for="email">E-mail<\/label>/);
      assert.match(page.body, /<label for="password">Password<\/label>/);
    });

    it('signs in with the right password (e-mail case-insensitive) and keeps only a hash of the session token', async () => {
      const client = new PanelClient(t.app);
      const signedIn = await client.signIn('Shop@Example.com', PASSWORD);
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.location, '/dashboard');
      const sessionCookie = signedIn.setCookies.find((c) => c.startsWith('payrail_session='));
      assert.match(sessionCookie!, /^payrail_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
      assert.equal(client.cookies.has('payrail_login'), false);
      const token = client.cookies.get('payrail_session')!;
      const rows = await t.service.db.read((tx) => tx.all<{ token_hash: string }>('SELECT token_hash FROM panel_sessions'));
      assert.ok(rows.some((r) => r.token_hash === crypto.createHash('sha256').update(token).digest('hex')));
      assert.ok(rows.every((r) => r.token_hash !== token));

      const home = await client.get('/dashboard');
      assert.equal(home.status, 303);
      assert.equal(home.location, '/dashboard/overview');
      const overview = await client.get('/dashboard/overview');
      assert.equal(overview.status, 200);
      assert.match(overview.body, /<p class="tile-label">Balance<\/p><p class="tile-value">123.45 USD<\/p>/);
      assert.match(overview.body, /shop@example.com/);
    });

    it('refuses a wrong password and an unknown e-mail with the same answer', async () => {
      for (const [email, password] of [
        ['shop@example.com', 'not the password'],
        ['nobody@example.com', PASSWORD],
      ] as const) {
        const client = new PanelClient(t.app);
        const answer = await client.signIn(email, password);
        assert.equal(answer.status, 401);
        assert.equal(textOf(answer.body, 'notice'), 'Wrong e-mail or password.');
        assert.equal(client.cookies.has('payrail_session'), false);
        assert.match(answer.body, new RegExp(`value="${email}"`));
      }
    });

    it('refuses a sign-in posted without the form token', async () => {
      const client = new PanelClient(t.app);
      const answer = await client.post('/dashboard/login', { email: 'shop@example.com', password: PASSWORD }, { csrf: false });
      assert.equal(answer.status, 403);
      assert.equal(client.cookies.has('payrail_session'), false);
      const forged = await client.post('/dashboard/login', { _csrf: 'x'.repeat(43), email: 'shop@example.com', password: PASSWORD });
      assert.equal(forged.status, 403);
      assert.equal(client.cookies.has('payrail_session'), false);
    });

    it('locks an address after 5 failures in 15 minutes, even for the right password, until the lock ends', async () => {
      const client = new PanelClient(t.app);
      // Ten seconds apart, so the account's delays for this address (1 s, 2 s, ...) have run.
      for (let i = 1; i <= 4; i++) {
        assert.equal((await client.signIn('locked@example.com', `wrong ${i}`)).status, 401);
        t.clock.advance(10_000);
      }
      const fifth = await client.signIn('locked@example.com', 'wrong 5');
      assert.equal(fifth.status, 429);
      assert.equal(textOf(fifth.body, 'notice'), 'Too many failed sign-ins. Sign-in is locked; try again in 30 minutes.');
      const right = await client.signIn('locked@example.com', PASSWORD);
      assert.equal(right.status, 429);
      assert.equal(client.cookies.has('payrail_session'), false);
      // Another address is not affected.
      assert.equal((await new PanelClient(t.app).signIn('shop@example.com', PASSWORD)).status, 303);
      t.clock.advance(LOCKOUT_MS - 60_000);
      assert.equal((await client.signIn('locked@example.com', PASSWORD)).status, 429);
      t.clock.advance(60_000);
      const after = await client.signIn('locked@example.com', PASSWORD);
      assert.equal(after.status, 303);
      assert.equal(client.cookies.has('payrail_session'), true);
    });

    it('counts concurrent sign-ins before checking any password: after 4 failures, 10 at once with the right password let only one in', async () => {
      const deps = { db: t.service.db, clock: t.clock };
      const address = newAddress();
      await createUser(deps, { email: 'race@example.com', role: 'operator', password: PASSWORD });
      for (let i = 1; i <= LOGIN_FAILURES_MAX - 1; i++) {
        assert.deepEqual(await login(deps, { email: 'race@example.com', password: `wrong ${i}`, address }), { ok: false, reason: 'invalid' });
        t.clock.advance(10_000);
      }
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => login(deps, { email: 'race@example.com', password: PASSWORD, address })));
      assert.equal(outcomes.filter((o) => o.ok).length, 1, JSON.stringify(outcomes));
      assert.deepEqual(
        outcomes.filter((o) => !o.ok),
        Array.from({ length: 9 }, () => ({ ok: false, reason: 'locked', lockedForMs: LOCKOUT_MS })),
      );
    });

    it('lets at most 5 of many concurrent wrong guesses be checked: the address is locked afterwards', async () => {
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'guess@example.com', role: 'operator', password: PASSWORD });
      const address = newAddress();
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => login(deps, { email: 'guess@example.com', password: `guess ${i}`, address })));
      // The account's delay for this address lets fewer still be checked: at most its free failures.
      const checked = outcomes.filter((o) => !o.ok && o.reason === 'invalid').length;
      assert.ok(checked >= 1 && checked <= PAIR_FREE_FAILURES, JSON.stringify(outcomes));
      assert.equal(outcomes.filter((o) => !o.ok && o.reason === 'locked').length, 12 - checked);
      assert.deepEqual(await login(deps, { email: 'guess@example.com', password: PASSWORD, address }), {
        ok: false,
        reason: 'locked',
        lockedForMs: LOCKOUT_MS,
      });
    });

    it('counts failures per window: 4 failures, then the window passes, then 4 more do not lock', async () => {
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'window@example.com', role: 'operator', password: PASSWORD });
      const client = new PanelClient(t.app);
      for (let i = 0; i < 4; i++) {
        assert.equal((await client.signIn('window@example.com', 'nope')).status, 401);
        t.clock.advance(10_000);
      }
      t.clock.advance(15 * 60_000 + 1);
      for (let i = 0; i < 4; i++) {
        assert.equal((await client.signIn('window@example.com', 'nope')).status, 401);
        // The account's delay for this address doubles (it counts on until 6 quiet hours): waited out each time.
        t.clock.advance(60_000);
      }
      assert.equal((await client.signIn('window@example.com', PASSWORD)).status, 303);
    });

    it('signs out only with the CSRF token, and the old cookie no longer works', async () => {
      const client = new PanelClient(t.app);
      await client.signIn('shop@example.com', PASSWORD);
      const token = client.cookies.get('payrail_session')!;
      await client.get('/dashboard/overview');
      const forged = await client.post('/dashboard/logout', { _csrf: 'forged' });
      assert.equal(forged.status, 403);
      assert.equal((await client.get('/dashboard/overview')).status, 200);

      const out = await client.post('/dashboard/logout');
      assert.equal(out.status, 303);
      assert.equal(out.location, '/dashboard/login?m=signed_out');
      assert.equal(client.cookies.has('payrail_session'), false);
      const login = await client.get('/dashboard/login?m=signed_out');
      assert.equal(textOf(login.body, 'notice'), 'You are signed out.');

      client.cookies.set('payrail_session', token);
      const replay = await client.get('/dashboard/overview');
      assert.equal(replay.status, 303);
      assert.equal(replay.location, '/dashboard/login?m=expired');
    });

    it('refuses every state-changing form without the session CSRF token, changing nothing', async () => {
      const client = new PanelClient(t.app);
      await client.signIn('shop@example.com', PASSWORD);
      await client.get('/dashboard/credentials');
      const sourcesBefore = await t.service.db.read((tx) => tx.all('SELECT id FROM sources WHERE merchant_id = ?', [merchantId]));
      for (const fields of [{ name: 'No token' }, { name: 'Bad token', _csrf: 'a'.repeat(43) }] as Array<Record<string, string>>) {
        const answer = await client.post('/dashboard/credentials/sources', fields, { csrf: false });
        assert.equal(answer.status, 403);
        assert.equal(textOf(answer.body, 'notice'), 'This form has expired or did not come from this site. Reload the page and try again.');
      }
      // The token of another session is no good either.
      const other = new PanelClient(t.app);
      await other.signIn('shop@example.com', PASSWORD);
      await other.get('/dashboard/credentials');
      assert.equal((await client.post('/dashboard/credentials/sources', { name: 'Other token', _csrf: other.csrf })).status, 403);
      const sourcesAfter = await t.service.db.read((tx) => tx.all('SELECT id FROM sources WHERE merchant_id = ?', [merchantId]));
      assert.equal(sourcesAfter.length, sourcesBefore.length);
    });

    it('redirects pages to sign-in and refuses posts without a session', async () => {
      const client = new PanelClient(t.app);
      for (const url of ['/dashboard', '/dashboard/overview', '/dashboard/operator/merchants', '/dashboard/transfers/1']) {
        const answer = await client.get(url);
        assert.equal(answer.status, 303, url);
        // A first visit (no session cookie at all) is not told that a session ended.
        assert.equal(answer.location, '/dashboard/login');
      }
      const post = await client.post('/dashboard/credentials/transfer-key/rotate', { _csrf: 'x' });
      assert.equal(post.status, 401);
    });

    it('ends a session after its lifetime, however active', async () => {
      const client = new PanelClient(t.app);
      await client.signIn('shop@example.com', PASSWORD);
      const signedInMs = t.clock.nowMs();
      // A request every 10 minutes keeps it from going idle...
      while (t.clock.nowMs() + 10 * 60_000 < signedInMs + SESSION_TTL_MS) {
        t.clock.advance(10 * 60_000);
        assert.equal((await client.get('/dashboard/overview')).status, 200);
      }
      t.clock.set(signedInMs + SESSION_TTL_MS - 1);
      assert.equal((await client.get('/dashboard/overview')).status, 200);
      // ...but not past 12 hours.
      t.clock.set(signedInMs + SESSION_TTL_MS);
      assert.equal((await client.get('/dashboard/overview')).location, '/dashboard/login?m=expired');
    });

    it('keeps operators and merchant users to their own pages', async () => {
      const merchantUser = new PanelClient(t.app);
      await merchantUser.signIn('shop@example.com', PASSWORD);
      const denied = await merchantUser.get('/dashboard/operator/merchants');
      assert.equal(denied.status, 403);
      assert.equal(textOf(denied.body, 'notice'), 'This page is for the operator only.');
      assert.equal((await merchantUser.post(`/dashboard/operator/merchants/${merchantId}/fund`, { amount: '1000.00' })).status, 403);

      const operator = new PanelClient(t.app);
      await operator.signIn('ops@example.com', PASSWORD);
      assert.equal((await operator.get('/dashboard')).location, '/dashboard/operator/merchants');
      assert.equal((await operator.get('/dashboard/overview')).status, 403);
      assert.equal((await operator.get('/dashboard/credentials')).status, 403);
      const merchants = await operator.get('/dashboard/operator/merchants');
      assert.equal(merchants.status, 200);
      assert.match(merchants.body, new RegExp(`<code>${merchantId}</code>`));
      const balance = await t.service.db.read((tx) =>
        tx.get<{ balance_cents: number }>('SELECT balance_cents FROM accounts WHERE id = ?', [`${merchantId}:available`]),
      );
      assert.equal(balance!.balance_cents, 12_345);
    });

    it('sends security headers and no-store on pages', async () => {
      const page = await t.app.inject({ url: '/dashboard/login' });
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(
        page.headers['content-security-policy'],
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      const css = await t.app.inject({ url: '/dashboard/assets/panel.css' });
      assert.equal(css.statusCode, 200);
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      assert.equal((await t.app.inject({ url: '/dashboard/assets/../../package.json' })).statusCode, 404);
    });
  });
}

describe('panel cookies behind HTTPS', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { env: { PAYRAIL_PUBLIC_URL: 'https://pay.example.com' } });
    await createUser({ db: t.service.db, clock: t.clock }, { email: 'ops@example.com', role: 'operator', password: PASSWORD });
  });
  after(() => t.close());

  it('marks cookies Secure with the __Host- prefix', async () => {
    const client = new PanelClient(t.app);
    const form = await client.get('/dashboard/login');
    assert.match(form.setCookies[0]!, /^__Host-payrail_login=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const signedIn = await client.post('/dashboard/login', { email: 'ops@example.com', password: PASSWORD });
    assert.equal(signedIn.status, 303);
    assert.match(signedIn.setCookies.find((c) => c.startsWith('__Host-payrail_session='))!, /; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    await client.enrol('ops@example.com', PASSWORD);
    assert.equal((await client.get('/dashboard/operator/merchants')).status, 200);
  });
});
