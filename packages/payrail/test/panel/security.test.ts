// Panel account security (issue 13 finding 6), through app.inject() on both
// stores: lock-out counted per address and per account, so an outsider
// cannot lock the operator out from one address; sessions that end after
// 15 idle minutes on the injected clock; TOTP required for operators
// (optional for merchant users) with one-time codes and recovery codes;
// re-authentication before credentials are created or rotated; and the
// password rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCOUNT_FREE_FAILURES, ADDRESS_FAILURES_MAX, DELAY_MAX_MS, LOCKOUT_MS, PAIR_FREE_FAILURES } from '../../src/flows/panel/attempts.ts';
import { login } from '../../src/flows/panel/login.ts';
import { REAUTH_WINDOW_MS, SESSION_IDLE_MS } from '../../src/flows/panel/sessions.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { isApiError } from '../../src/errors.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newAddress, PanelClient, textOf, totpCode } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

/** The id of the merchant's active transfer API key, read as the credentials page shows it. */
function activeKeyId(body: string): string | null {
  return /Active key <code>([0-9A-Za-z]{16})<\/code>/.exec(body)?.[1] ?? null;
}

for (const kind of STORE_KINDS) {
  describe(`panel account security (${kind})`, () => {
    let t: TestApp;
    let merchantId: string;
    const deps = () => ({ db: t.service.db, clock: t.clock });

    before(async () => {
      t = await createTestApp(kind);
      merchantId = (await t.newMerchant({ fundCents: 10_000 })).merchant_id;
      await createUser(deps(), { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      await createUser(deps(), { email: 'shop@example.com', role: 'merchant', merchantId, password: PASSWORD });
    });
    after(() => t.close());

    it('does not let 5 (or 50) failed sign-ins from one address lock the operator out of another address', async () => {
      const attacker = newAddress();
      for (let i = 0; i < 50; i++) {
        const outcome = await login(deps(), { email: 'ops@example.com', password: `guess ${i}`, address: attacker });
        assert.equal(outcome.ok, false);
        // The 5th failure locks the address; later attempts are refused unchecked (a minute apart, the pair's delays have run).
        assert.equal(!outcome.ok && outcome.reason, i < ADDRESS_FAILURES_MAX - 1 ? 'invalid' : 'locked', `attempt ${i + 1}`);
        t.clock.advance(i < ADDRESS_FAILURES_MAX ? 60_000 : 0);
      }
      // A locked address cannot try any account, not even with a right password.
      assert.equal((await new PanelClient(t.app, { address: attacker }).signIn('shop@example.com', PASSWORD)).status, 429);
      // The operator, from its own address, signs in.
      const operator = new PanelClient(t.app);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
      assert.equal((await operator.get('/dashboard/operator/merchants')).status, 200);
      t.clock.advance(LOCKOUT_MS);
    });

    it('checks at most the free failures of concurrent guesses from one address at one account', async () => {
      const attacker = newAddress();
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) => login(deps(), { email: 'shop@example.com', password: `guess ${i}`, address: attacker })),
      );
      assert.ok(outcomes.filter((o) => !o.ok && o.reason === 'invalid').length <= PAIR_FREE_FAILURES);
      const owner = await login(deps(), { email: 'shop@example.com', password: PASSWORD, address: newAddress() });
      assert.equal(owner.ok, true);
      t.clock.advance(LOCKOUT_MS);
    });

    it('finding 9: strangers failing from many addresses cannot lock the owner out; from a new address the owner waits a bounded delay', async () => {
      await createUser(deps(), { email: 'target@example.com', role: 'operator', password: PASSWORD });
      const home = newAddress();
      const owner = new PanelClient(t.app, { address: home });
      assert.equal((await owner.signIn('target@example.com', PASSWORD)).status, 303);
      // Many strangers, each failing a few times (their own address is never locked by this).
      for (let a = 0; a < 3 * ACCOUNT_FREE_FAILURES; a++) {
        const address = newAddress();
        for (let i = 0; i < 2; i++) await login(deps(), { email: 'target@example.com', password: `guess ${a}.${i}`, address });
      }
      // Strangers are slowed down: an attempt from a new address is not even checked now.
      const stranger = await login(deps(), { email: 'target@example.com', password: PASSWORD, address: newAddress() });
      assert.equal(!stranger.ok && stranger.reason, 'locked');
      // The owner, from where they signed in before, gets in at once.
      const again = new PanelClient(t.app, { address: home });
      await again.get('/dashboard/login');
      assert.equal((await again.post('/dashboard/login', { email: 'target@example.com', password: PASSWORD })).location, '/dashboard/login/code');
      // From a new address the owner waits at most DELAY_MAX_MS, not a 30-minute lock.
      const travelling = newAddress();
      const delayed = await login(deps(), { email: 'target@example.com', password: PASSWORD, address: travelling });
      assert.equal(!delayed.ok && delayed.reason, 'locked');
      assert.ok(!delayed.ok && delayed.reason === 'locked' && delayed.lockedForMs <= DELAY_MAX_MS);
      t.clock.advance(DELAY_MAX_MS);
      assert.equal((await login(deps(), { email: 'target@example.com', password: PASSWORD, address: travelling })).ok, true);
    });

    it("finding 9: an attacker in the owner's IPv6 /64 locks that /64 for others, not for the owner, and only slows the owner down", async () => {
      await createUser(deps(), { email: 'six@example.com', role: 'merchant', merchantId, password: PASSWORD });
      assert.equal((await login(deps(), { email: 'six@example.com', password: PASSWORD, address: '2001:db8:6:4::10' })).ok, true);
      for (let i = 0; i < 10; i++) {
        await login(deps(), { email: 'shop@example.com', password: `guess ${i}`, address: '2001:db8:6:4::bad' });
        t.clock.advance(60_000);
      }
      // The /64 is locked for accounts it has not signed in to...
      const other = await login(deps(), { email: 'shop@example.com', password: PASSWORD, address: '2001:db8:6:4::11' });
      assert.equal(!other.ok && other.reason, 'locked');
      // ...but the owner, signed in from it before, still gets in.
      assert.equal((await login(deps(), { email: 'six@example.com', password: PASSWORD, address: '2001:db8:6:4::12' })).ok, true);
      t.clock.advance(LOCKOUT_MS);
    });

    it('ends a session (a stolen cookie too) after 15 idle minutes on the injected clock, and slides on activity', async () => {
      const owner = new PanelClient(t.app);
      await owner.signIn('shop@example.com', PASSWORD);
      const thief = new PanelClient(t.app);
      thief.cookies.set('payrail_session', owner.cookies.get('payrail_session')!);
      assert.equal((await thief.get('/dashboard/overview')).status, 200);
      // Activity keeps the session: 14 minutes, a request, 14 more minutes (28 in all), a request.
      t.clock.advance(SESSION_IDLE_MS - 60_000);
      assert.equal((await owner.get('/dashboard/overview')).status, 200);
      t.clock.advance(SESSION_IDLE_MS - 60_000);
      assert.equal((await thief.get('/dashboard/overview')).status, 200);
      // 15 minutes with no request: over for both.
      t.clock.advance(SESSION_IDLE_MS);
      assert.equal((await thief.get('/dashboard/overview')).location, '/dashboard/login?m=expired');
      assert.equal((await owner.get('/dashboard/overview')).location, '/dashboard/login?m=expired');
      assert.equal((await owner.post('/dashboard/credentials/sources', { name: 'Late' })).status, 401);
    });

    it('keeps an operator without a second factor from every operator page until it enrols', async () => {
      await createUser(deps(), { email: 'newops@example.com', role: 'operator', password: PASSWORD });
      const operator = new PanelClient(t.app);
      assert.equal((await operator.signIn('newops@example.com', PASSWORD, { enrol: false })).status, 303);
      for (const url of [
        '/dashboard',
        '/dashboard/operator/merchants',
        '/dashboard/operator/audit',
        `/dashboard/operator/merchants/${merchantId}`,
        // finding 5: the matched route decides, however the path is spelt.
        '/dashboard/operator/%6Derchants',
        '/dashboard/operator/merchants/',
      ]) {
        assert.equal((await operator.get(url)).location, '/dashboard/account/two-factor', url);
      }
      const enrolPage = await operator.get('/dashboard/account/two-factor');
      assert.equal(enrolPage.status, 200);
      assert.match(enrolPage.body, /<svg role="img" aria-labelledby="qr-title" class="qr" /);
      assert.match(enrolPage.body, /otpauth:\/\/totp\/Payrail:newops%40example.com\?issuer=Payrail&amp;secret=[A-Z2-7]{32}/);
      const before = await t.service.db.read((tx) =>
        tx.get<{ balance_cents: number }>('SELECT balance_cents FROM accounts WHERE id = ?', [`${merchantId}:available`]),
      );
      const fund = await operator.post(`/dashboard/operator/merchants/${merchantId}/fund`, { amount: '1000.00' });
      assert.equal(fund.status, 403);
      const afterFund = await t.service.db.read((tx) =>
        tx.get<{ balance_cents: number }>('SELECT balance_cents FROM accounts WHERE id = ?', [`${merchantId}:available`]),
      );
      assert.deepEqual(afterFund, before);

      // A wrong code (or password) enrols nothing.
      const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(enrolPage.body)![1]!;
      const wrong = await operator.post('/dashboard/account/two-factor', { secret, code: '000000', password: PASSWORD });
      assert.equal(wrong.status, 401);
      assert.equal((await operator.get('/dashboard/operator/merchants')).location, '/dashboard/account/two-factor');
      const badPassword = await operator.post('/dashboard/account/two-factor', { secret, code: totpCode(secret, t.clock.nowMs()), password: 'not it at all' });
      assert.equal(badPassword.status, 401);

      const enrolled = await operator.enrol('newops@example.com', PASSWORD);
      const codes = [...enrolled.body.matchAll(/<li><code>([2-9A-HJKMNP-TV-Z]{5}-[2-9A-HJKMNP-TV-Z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
      assert.equal(codes.length, 10);
      assert.equal((await operator.get('/dashboard/operator/merchants')).status, 200);
      // Recovery codes are stored only as hashes.
      const stored = await t.service.db.read((tx) => tx.all<{ code_hash: string }>('SELECT code_hash FROM panel_recovery_codes'));
      assert.ok(stored.length >= 10 && stored.every((r) => !codes.includes(r.code_hash) && /^[0-9a-f]{64}$/.test(r.code_hash)));

      // The next sign-in asks for a code; the session it opens reaches nothing else meanwhile.
      const later = new PanelClient(t.app);
      await later.get('/dashboard/login');
      const password = await later.post('/dashboard/login', { email: 'newops@example.com', password: PASSWORD });
      assert.equal(password.location, '/dashboard/login/code');
      assert.equal((await later.get('/dashboard/operator/merchants')).location, '/dashboard/login?m=expired');
      await later.get('/dashboard/login/code');
      assert.equal((await later.post('/dashboard/login/code', { code: '123456' })).status, 401);
      const code = later.nextCode('newops@example.com');
      assert.equal((await later.post('/dashboard/login/code', { code })).location, '/dashboard');
      assert.equal((await later.get('/dashboard/operator/merchants')).status, 200);

      // A code works once: the same code at the same moment does not sign in again.
      const replay = new PanelClient(t.app);
      await replay.get('/dashboard/login');
      await replay.post('/dashboard/login', { email: 'newops@example.com', password: PASSWORD });
      await replay.get('/dashboard/login/code');
      assert.equal((await replay.post('/dashboard/login/code', { code })).status, 401);
      // A recovery code works, once.
      const recovered = await replay.post('/dashboard/login/code', { code: codes[0]!.toLowerCase() });
      assert.equal(recovered.location, '/dashboard');
      const again = new PanelClient(t.app);
      await again.get('/dashboard/login');
      await again.post('/dashboard/login', { email: 'newops@example.com', password: PASSWORD });
      await again.get('/dashboard/login/code');
      assert.equal((await again.post('/dashboard/login/code', { code: codes[0]! })).status, 401);
    });

    it('lets a merchant user turn a second factor on and off, with password and code', async () => {
      await createUser(deps(), { email: 'optional@example.com', role: 'merchant', merchantId, password: PASSWORD });
      const user = new PanelClient(t.app);
      assert.equal((await user.signIn('optional@example.com', PASSWORD)).status, 303);
      assert.equal((await user.get('/dashboard/overview')).status, 200);
      await user.enrol('optional@example.com', PASSWORD);
      const next = new PanelClient(t.app);
      assert.equal((await next.signIn('optional@example.com', PASSWORD)).location, '/dashboard');
      await next.get('/dashboard/account/two-factor');
      const off = await next.post('/dashboard/account/two-factor/remove', { password: PASSWORD, code: next.nextCode('optional@example.com') });
      assert.equal(off.location, '/dashboard/account/two-factor?notice=totp_removed');
      const plain = new PanelClient(t.app);
      await plain.get('/dashboard/login');
      assert.equal((await plain.post('/dashboard/login', { email: 'optional@example.com', password: PASSWORD })).location, '/dashboard');
    });

    it('finding 7: replacing the second factor takes a code of the current one (or a recovery code), not only the password and a new code', async () => {
      const email = 'stepup@example.com';
      await createUser(deps(), { email, role: 'merchant', merchantId, password: PASSWORD });
      const user = new PanelClient(t.app);
      assert.equal((await user.signIn(email, PASSWORD)).status, 303);
      const first = await user.enrol(email, PASSWORD);
      const recovery = [...first.body.matchAll(/<li><code>([2-9A-HJKMNP-TV-Z]{5}-[2-9A-HJKMNP-TV-Z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
      const oldSecret = user.secretOf(email)!;
      // Someone with the password and this session sets up their own phone.
      const page = await user.get('/dashboard/account/two-factor');
      assert.match(page.body, /name="current_code"/);
      const newSecret = /name="secret" value="([A-Z2-7]{32})"/.exec(page.body)![1]!;
      t.clock.advance(30_000);
      const hijack = await user.post('/dashboard/account/two-factor', { secret: newSecret, code: totpCode(newSecret, t.clock.nowMs()), password: PASSWORD });
      assert.equal(hijack.status, 401);
      const wrongCurrent = await user.post('/dashboard/account/two-factor', {
        secret: newSecret,
        code: totpCode(newSecret, t.clock.nowMs()),
        password: PASSWORD,
        current_code: totpCode(newSecret, t.clock.nowMs()),
      });
      assert.equal(wrongCurrent.status, 401);
      const stored = await t.service.db.read((tx) => tx.get<{ totp_secret: string }>('SELECT totp_secret FROM panel_users WHERE email = ?', [email]));
      assert.equal(stored?.totp_secret, oldSecret);
      // With a code of the current phone the new one replaces it.
      const replaced = await user.post('/dashboard/account/two-factor', {
        secret: newSecret,
        code: totpCode(newSecret, t.clock.nowMs()),
        password: PASSWORD,
        current_code: user.nextCode(email),
      });
      assert.equal(replaced.status, 200);
      assert.match(replaced.body, /Recovery codes|recovery codes/);
      // The old recovery codes went with the old factor; the new ones step up.
      const fresh = [...replaced.body.matchAll(/<li><code>([2-9A-HJKMNP-TV-Z]{5}-[2-9A-HJKMNP-TV-Z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
      const again = await user.get('/dashboard/account/two-factor');
      const third = /name="secret" value="([A-Z2-7]{32})"/.exec(again.body)![1]!;
      t.clock.advance(30_000);
      const stale = await user.post('/dashboard/account/two-factor', {
        secret: third,
        code: totpCode(third, t.clock.nowMs()),
        password: PASSWORD,
        current_code: recovery[0]!,
      });
      assert.equal(stale.status, 401);
      t.clock.advance(30_000);
      const byRecovery = await user.post('/dashboard/account/two-factor', {
        secret: third,
        code: totpCode(third, t.clock.nowMs()),
        password: PASSWORD,
        current_code: fresh[0]!,
      });
      assert.equal(byRecovery.status, 200);
    });

    it('asks for the password again before credentials are rotated or created when the last check is older than 5 minutes', async () => {
      const user = new PanelClient(t.app);
      await user.signIn('shop@example.com', PASSWORD);
      const keyBefore = activeKeyId((await user.get('/dashboard/credentials')).body);
      assert.notEqual(keyBefore, null);
      // Active all along (so not idle), but the password was typed more than 5 minutes ago.
      t.clock.advance(REAUTH_WINDOW_MS - 60_000);
      assert.equal((await user.get('/dashboard/credentials')).status, 200);
      t.clock.advance(60_000);
      for (const url of ['/dashboard/credentials/transfer-key/rotate', '/dashboard/credentials/sources']) {
        const asked = await user.post(url, { name: 'Not yet' });
        assert.equal(asked.status, 403, url);
        assert.match(asked.body, /<form method="post" action="\/dashboard\/reauth"/);
        assert.doesNotMatch(asked.body, /sbx_tk_|sbx_sk_/);
      }
      assert.equal(activeKeyId((await user.get('/dashboard/credentials')).body), keyBefore);
      const wrong = await user.post('/dashboard/reauth', { next: '/dashboard/credentials', password: 'not the password' });
      assert.equal(wrong.status, 401);
      const offsite = await user.post('/dashboard/reauth', { next: 'https://evil.example/', password: PASSWORD });
      assert.equal(offsite.location, '/dashboard?notice=reauthed');
      await user.get('/dashboard/credentials');
      const rotated = await user.post('/dashboard/credentials/transfer-key/rotate');
      assert.equal(rotated.status, 200);
      assert.match(rotated.body, /sbx_tk_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}/);
      assert.notEqual(activeKeyId((await user.get('/dashboard/credentials')).body), keyBefore);
    });

    it('asks an operator with a second factor for a code as well when re-authenticating', async () => {
      const operator = new PanelClient(t.app);
      await operator.signIn('ops@example.com', PASSWORD);
      t.clock.advance(REAUTH_WINDOW_MS);
      await operator.get('/dashboard/operator/merchants');
      const asked = await operator.post('/dashboard/operator/merchants', { name: 'Needs a code' });
      assert.equal(asked.status, 403);
      assert.match(asked.body, /<label for="code">/);
      assert.equal((await operator.post('/dashboard/reauth', { next: '/dashboard/operator/merchants', password: PASSWORD })).status, 401);
      const ok = await operator.post('/dashboard/reauth', {
        next: '/dashboard/operator/merchants',
        password: PASSWORD,
        code: operator.nextCode('ops@example.com'),
      });
      assert.equal(ok.location, '/dashboard/operator/merchants?notice=reauthed');
      await operator.get('/dashboard/operator/merchants');
      assert.equal((await operator.post('/dashboard/operator/merchants', { name: 'Now created' })).status, 200);
    });

    it("manages the card-form origins of a merchant's sources on the credentials page", async () => {
      const user = new PanelClient(t.app);
      await user.signIn('shop@example.com', PASSWORD);
      const page = await user.get('/dashboard/credentials');
      const sourceId = /action="\/dashboard\/credentials\/sources\/(src_[0-9A-Za-z]+)\/origins"/.exec(page.body)![1]!;
      assert.match(page.body, /none: pages on http:\/\/localhost and http:\/\/127.0.0.1 \(sandbox\)/);
      const added = await user.post(`/dashboard/credentials/sources/${sourceId}/origins`, { origin: 'https://shop.example' });
      assert.equal(added.location, '/dashboard/credentials?notice=origin_added');
      assert.match((await user.get(added.location!)).body, /<li><code>https:\/\/shop.example<\/code>/);
      const bad = await user.post(`/dashboard/credentials/sources/${sourceId}/origins`, { origin: 'https://shop.example/pay' });
      assert.equal(bad.status, 400);
      assert.equal(textOf(bad.body, 'notice'), 'origin must be a bare http(s) origin such as https://shop.example (no path)');
      // Another merchant's source reads as unknown.
      const other = await t.newMerchant({ name: 'Other' });
      await user.get('/dashboard/credentials');
      assert.equal((await user.post(`/dashboard/credentials/sources/${other.source.id}/origins`, { origin: 'https://evil.example' })).status, 404);
      await user.get('/dashboard/credentials');
      const removed = await user.post(`/dashboard/credentials/sources/${sourceId}/origins/remove`, { origin: 'https://shop.example' });
      assert.equal(removed.location, '/dashboard/credentials?notice=origin_removed');
      assert.doesNotMatch((await user.get('/dashboard/credentials')).body, /<li><code>https:\/\/shop.example<\/code>/);
    });

    it('refuses short, common and e-mail-based passwords', async () => {
      for (const [password, problem] of [
        ['short pass', 'password must be 12 to 200 characters'],
        ['Password1234', 'password is one of the most common passwords; choose another'],
        ['aaaaaaaaaaaaaaaa', 'password must use at least 5 different characters'],
        ['weakling-2026!!', 'password must not contain the e-mail address'],
      ] as const) {
        await assert.rejects(
          createUser(deps(), { email: 'weakling@example.com', role: 'operator', password }),
          (error) => isApiError(error) && error.message === problem,
          password,
        );
      }
    });
  });
}
