// Sandbox sign-up and its mails through the in-process app, on both stores:
// bad input (invalid address, HTML in every field, duplicates, floods from
// one address), links that are expired, used or tampered with, production
// without the public form, and the outbox (nothing for a rolled-back change,
// retries, leases).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { MailSender, MAIL_LEASE_MS } from '../../src/flows/mail/sender.ts';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { approveSignup, listSignups, submitSignup } from '../../src/flows/onboarding/signup.ts';
import { smtpTransport } from '../../src/providers/mail-transport.ts';
import { claimDueMail, queueMail } from '../../src/store/mail-outbox.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { linkIn, startSmtp } from '../helpers/smtp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PUBLIC_URL = 'http://payrail.test';

function form(overrides: Partial<Record<'name' | 'company' | 'email' | 'corridors', string>> = {}) {
  return { name: 'Ada Lovelace', company: 'Harbor Coffee', email: 'ada@example.com', corridors: 'US to Kenya', ...overrides };
}

async function signup(client: PanelClient, fields: Record<string, string>) {
  await client.get('/signup');
  return client.post('/signup', fields);
}

for (const kind of STORE_KINDS) {
  describe(`sandbox sign-up (${kind})`, () => {
    let t: TestApp;
    let clock: ManualClock;

    before(async () => {
      clock = new ManualClock(Date.UTC(2026, 5, 1));
      t = await createTestApp(kind, { clock, validateResponses: false, env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL, PAYRAIL_SIGNUP_AUTO_APPROVE: '0' } });
    });
    after(async () => t?.close());
    beforeEach(() => clock.advance(2 * 60 * 60_000));

    const mailsTo = async (to: string) => mailList(t.service, { to }, 50);

    it('refuses an invalid address with the field named, making nothing', async () => {
      const answer = await signup(new PanelClient(t.app), form({ email: 'ada@@example' }));
      assert.equal(answer.status, 400);
      assert.match(answer.body, /Enter a valid e-mail address/);
      assert.deepEqual(await listSignups(t.service, null), []);
      assert.deepEqual(await mailsTo('ada@@example'), []);
    });

    it('escapes HTML typed in any field on the page, in the mail and in the operator queue', async () => {
      const evil = '<script>alert(1)</script>';
      const email = 'html@example.com';
      const bad = await signup(new PanelClient(t.app), form({ name: evil, company: evil, email: 'x', corridors: evil }));
      assert.equal(bad.status, 400);
      assert.ok(!bad.body.includes(evil));
      assert.ok(bad.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));

      // Markup in a name is refused (names go into mails); elsewhere it is kept and escaped.
      const named = await signup(new PanelClient(t.app), form({ name: evil, company: evil, email, corridors: evil }));
      assert.equal(named.status, 400);
      assert.match(named.body, /Enter your name without a web address or markup/);
      assert.deepEqual(await mailsTo(email), []);
      const ok = await signup(new PanelClient(t.app), form({ name: 'Ada & <b', email, corridors: evil }));
      assert.equal(ok.status, 400);
      const kept = await signup(new PanelClient(t.app), form({ name: 'Ada & Co', email, corridors: evil }));
      assert.equal(kept.status, 200);
      const [mail] = await mailsTo(email);
      assert.ok(mail !== undefined);
      assert.ok(!mail.html_body.includes('<script>'), mail.html_body);
      assert.ok(mail.html_body.includes('Ada &amp; Co'));
      assert.ok(!mail.subject.includes('<'));
      const stored = (await listSignups(t.service, 'unconfirmed')).find((r) => r.email === email);
      assert.equal(stored?.corridors, evil);
    });

    it('answers a duplicate like a new request, makes no second request, and replaces the first link', async () => {
      const email = 'dup@example.com';
      assert.equal((await signup(new PanelClient(t.app), form({ email }))).status, 200);
      const firstLink = linkIn({ to: [email], text: (await mailsTo(email))[0]!.text_body, messageId: '' }, `${PUBLIC_URL}/signup/confirm/`);
      const again = await signup(new PanelClient(t.app), form({ email: 'DUP@example.com' }));
      assert.equal(again.status, 200);
      assert.match(again.body, /Check your inbox/);
      assert.equal((await listSignups(t.service, null)).filter((r) => r.email === email).length, 1);
      const mails = await mailsTo(email);
      assert.equal(mails.length, 2);
      // The first link was replaced by the second.
      const client = new PanelClient(t.app);
      const old = await client.post(firstLink.slice(PUBLIC_URL.length), {}, { csrf: false });
      assert.equal(old.status, 410);
      // A third mail to this inbox is the last one anyone can make Payrail write within the hour.
      assert.equal((await signup(new PanelClient(t.app), form({ email }))).status, 200);
      const flooded = await signup(new PanelClient(t.app), form({ email }));
      assert.equal(flooded.status, 429);
      assert.equal((await mailsTo(email)).length, 3);
    });

    it('refuses a post without the form token (cross-site), making nothing', async () => {
      const client = new PanelClient(t.app);
      const answer = await client.post('/signup', form({ email: 'csrf@example.com' }), { csrf: false });
      assert.equal(answer.status, 403);
      assert.match(answer.body, /did not come from this site/);
      assert.deepEqual(await mailsTo('csrf@example.com'), []);
    });

    it('answers 429 to a flood of sign-ups from one client address', async () => {
      const client = new PanelClient(t.app);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await signup(client, form({ email: `flood${i}@example.com` }))).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      assert.deepEqual(await mailsTo('flood6@example.com'), []);
    });

    it('refuses expired, used and tampered confirmation links with a clear page, changing nothing', async () => {
      const email = 'links@example.com';
      await signup(new PanelClient(t.app), form({ email }));
      const link = linkIn({ to: [email], text: (await mailsTo(email))[0]!.text_body, messageId: '' }, `${PUBLIC_URL}/signup/confirm/`);
      const path = link.slice(PUBLIC_URL.length);
      const client = new PanelClient(t.app);
      const tampered = await client.post(`${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`, {}, { csrf: false });
      assert.equal(tampered.status, 404);
      assert.match(tampered.body, /This link is not valid/);
      assert.equal((await client.post('/signup/confirm/not-a-token', {}, { csrf: false })).status, 404);
      assert.equal((await listSignups(t.service, 'confirmed')).filter((r) => r.email === email).length, 0);

      const confirmed = await client.post(path, {}, { csrf: false });
      assert.equal(confirmed.status, 200);
      assert.match(confirmed.body, /waits for approval/);
      const used = await client.post(path, {}, { csrf: false });
      assert.equal(used.status, 410);
      assert.match(used.body, /already used/);

      const lateEmail = 'late@example.com';
      await signup(new PanelClient(t.app), form({ email: lateEmail }));
      const late = linkIn({ to: [lateEmail], text: (await mailsTo(lateEmail))[0]!.text_body, messageId: '' }, `${PUBLIC_URL}/signup/confirm/`);
      clock.advance(25 * 60 * 60_000);
      const expired = await client.post(late.slice(PUBLIC_URL.length), {}, { csrf: false });
      assert.equal(expired.status, 410);
      assert.match(expired.body, /expired/);
      assert.equal((await listSignups(t.service, 'unconfirmed')).filter((r) => r.email === lateEmail).length, 1);
    });

    it('lets the operator approve a confirmed request from the panel; the one-time credentials link then works once', async () => {
      const email = 'queue@example.com';
      await signup(new PanelClient(t.app), form({ email, company: 'Queue & Co' }));
      const confirm = linkIn({ to: [email], text: (await mailsTo(email))[0]!.text_body, messageId: '' }, `${PUBLIC_URL}/signup/confirm/`);
      assert.equal((await new PanelClient(t.app).post(confirm.slice(PUBLIC_URL.length), {}, { csrf: false })).status, 200);
      await createUser({ db: t.service.db, clock }, { email: 'ops@example.com', role: 'operator', password: 'correct horse battery staple' });
      const operator = new PanelClient(t.app);
      await operator.signIn('ops@example.com', 'correct horse battery staple');
      const queue = await operator.get('/dashboard/operator/signups');
      assert.ok(queue.body.includes('Queue &amp; Co'));
      assert.ok(!queue.body.includes('<em>Co</em>'));
      const request = (await listSignups(t.service, 'confirmed')).find((r) => r.email === email)!;
      const approved = await operator.post(`/dashboard/operator/signups/${request.id}/approve`);
      assert.equal(approved.location, '/dashboard/operator/signups?notice=signup_approved');
      // Approving twice is refused, and makes no second merchant or mail.
      assert.equal((await operator.post(`/dashboard/operator/signups/${request.id}/approve`)).status, 400);
      const mails = await mailsTo(email);
      assert.equal(mails.length, 2);
      assert.ok(!/sbx_/.test(mails[0]!.text_body));
      const welcome = linkIn({ to: [email], text: mails[0]!.text_body, messageId: '' }, `${PUBLIC_URL}/dashboard/welcome/`).slice(PUBLIC_URL.length);
      const developer = new PanelClient(t.app);
      assert.match((await developer.get(welcome)).body, /Show my credentials/);
      const shown = await developer.post(welcome, {}, { csrf: false });
      assert.equal(shown.status, 200);
      assert.match(shown.body, /value="sbx_/);
      const again = await developer.post(welcome, {}, { csrf: false });
      assert.equal(again.status, 410);
      assert.ok(!again.body.includes('sbx_'));
    });

    it('refuses a bad SMTP URL or sender at start, naming the variable and not echoing the URL', () => {
      assert.throws(
        () => loadConfig({ PAYRAIL_SMTP_URL: 'http://user:s3cret@mail.example.com', PAYRAIL_MAIL_FROM: 'bad\r\nBcc: x@example.com' }),
        (error: Error) =>
          /PAYRAIL_SMTP_URL must be an smtp/.test(error.message) && /PAYRAIL_MAIL_FROM must be/.test(error.message) && !error.message.includes('s3cret'),
      );
      assert.equal(loadConfig({ PAYRAIL_SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl, 'smtps://u:p@mail.example.com:465');
      assert.equal(loadConfig({}).signupAutoApprove, true);
    });

    it('writes no mail for a change that is refused and rolled back', async () => {
      const email = 'refused@example.com';
      await signup(new PanelClient(t.app), form({ email }));
      const request = (await listSignups(t.service, 'unconfirmed')).find((r) => r.email === email)!;
      await assert.rejects(approveSignup(t.service, request.id), /only confirmed requests/);
      assert.equal((await mailsTo(email)).length, 1);
      assert.equal((await listSignups(t.service, 'unconfirmed')).filter((r) => r.email === email).length, 1);
    });

    it('sends the outbox with retries, and a claimed mail is not claimed again while its lease holds', async () => {
      const email = 'retry@example.com';
      const smtp = await startSmtp({ refuseOnceTo: email });
      try {
        await signup(new PanelClient(t.app), form({ email }));
        // Another worker's claim of everything due, whose lease then runs out unused.
        const other = await claimDueMail(t.service.db, clock.nowMs(), clock.nowMs() + MAIL_LEASE_MS, 1000);
        assert.ok(other.some((m) => m.to_address === email));
        const sender = new MailSender(t.service, smtpTransport(smtp.url, 'payrail@payrail.test'), 'payrail@payrail.test');
        assert.equal(await sender.runOnce(), 0);
        clock.advance(MAIL_LEASE_MS + 1);
        // The first attempt is refused by the server: tried again later, not lost.
        while ((await sender.runOnce()) > 0);
        const [refused] = await mailsTo(email);
        assert.equal(refused?.status, 'pending');
        assert.equal(refused?.attempts, 1);
        assert.match(refused?.last_error ?? '', /451/);
        while ((await sender.runOnce()) > 0);
        assert.equal((await mailsTo(email))[0]?.status, 'pending');
        clock.advance(60_000);
        while ((await sender.runOnce()) > 0);
        const [sent] = await mailsTo(email);
        assert.equal(sent?.status, 'sent');
        assert.equal(sent?.text_body, '');
        assert.equal(smtp.mails.filter((m) => m.to.includes(email)).length, 1);
        sender.close();
      } finally {
        await smtp.close();
      }
    });
  });

  describe(`mail outbox with two senders at once (${kind})`, () => {
    it('sends every mail exactly once when two workers drain the outbox together', async () => {
      const t = await createTestApp(kind, { validateResponses: false });
      const smtp = await startSmtp();
      try {
        const count = 25;
        await t.service.db.write(async (tx) => {
          for (let i = 0; i < count; i++) {
            await queueMail(tx, 'test', `many${i}@example.com`, { subject: `Mail ${i}`, text: `body ${i}`, html: `<p>body ${i}</p>` }, t.clock.nowMs());
          }
        });
        const senders = [0, 1].map(() => new MailSender(t.service, smtpTransport(smtp.url, 'payrail@payrail.test'), 'payrail@payrail.test'));
        await Promise.all(
          senders.map(async (sender) => {
            while ((await sender.runOnce()) > 0);
          }),
        );
        for (const sender of senders) sender.close();
        const received = smtp.mails.map((m) => m.to.join(',')).sort();
        assert.equal(received.length, count);
        assert.equal(new Set(received).size, count);
        assert.equal(new Set(smtp.mails.map((m) => m.messageId)).size, count);
        const listed = await mailList(t.service, { to: null }, 100);
        assert.deepEqual(new Set(listed.map((m) => m.status)), new Set(['sent']));
      } finally {
        await smtp.close();
        await t.close();
      }
    });
  });

  describe(`production has no public sign-up form (${kind})`, () => {
    it('refuses a sign-up in production (and http/app.ts registers no /signup there)', async () => {
      const t = await createTestApp(kind, { validateResponses: false });
      try {
        const production = { ...t.service, config: { ...t.service.config, environment: 'production' as const } };
        await assert.rejects(submitSignup(production, form(), '203.0.113.9'), /sandbox only/);
        assert.deepEqual(await listSignups(t.service, null), []);
      } finally {
        await t.close();
      }
    });
  });
}
