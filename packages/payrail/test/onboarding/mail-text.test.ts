// Mails go to any inbox under Payrail's name, so what a person typed (a
// name, a company, a merchant's name) must not make one a phishing page: it
// arrives inert (no markup, nothing a mail reader links), the only link is
// Payrail's own, sign-up refuses names carrying a web address or markup, and
// one merchant cannot mail invitations in bulk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INVITATIONS_PER_MERCHANT_MAX } from '../../src/domain/invitation-limits.ts';
import { credentialsMail, invitationMail, type MailContent, signupConfirmMail, signupRejectedMail, userText } from '../../src/domain/mail-templates.ts';
import { mailList } from '../../src/flows/mail/outbox.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PUBLIC_URL = 'https://payrail.test';
const PASSWORD = 'correct horse battery staple';
const HOSTILE = [
  'Your account is locked: verify at https://payrail-verify.example/login now',
  'Acme <a href="https://evil.example">Support</a>',
  'Call us: www.evil.example or support@evil.example',
  'evil.example\u200b/verify',
  'Ｅvil．example',
];

/** Every URL, host name or address a mail reader could make a link of. */
function linkables(text: string): string[] {
  return [...text.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s"<>]+|\bwww\.[^\s"<>]+|[\p{L}\p{N}_-]+(?:[.．。][\p{L}\p{N}_-]+)+|\S+@\S+/giu)].map((m) => m[0]);
}

/** A mail shows no link but Payrail's own and no markup but its own. */
function assertInert(mail: Pick<MailContent, 'subject' | 'text' | 'html'> | { subject: string; text_body: string; html_body: string }, ownLink: string | null) {
  const text = 'text' in mail ? mail.text : mail.text_body;
  const html = 'html' in mail ? mail.html : mail.html_body;
  const foreign = linkables(text).filter((found) => found !== ownLink && !/^\d+(\.\d+)*$/.test(found));
  assert.deepEqual(foreign, [], text);
  assert.equal((html.match(/<a /g) ?? []).length, ownLink === null ? 0 : 1, html);
  assert.equal(/<(script|img|b|i|span|form|iframe)\b/i.test(html), false, html);
  assert.equal(html.includes('evil.example'), false);
}

describe('typed names in mails', () => {
  it("finding 14: a name carrying a URL, an address or markup arrives defanged; the only link is Payrail's", () => {
    for (const typed of HOSTILE) {
      const url = `${PUBLIC_URL}/dashboard/invitation/lnk_x`;
      assertInert(signupConfirmMail({ name: typed, company: typed, url, validForMs: 3_600_000 }), url);
      assertInert(credentialsMail({ merchantName: typed, url, validForMs: 3_600_000, environment: 'sandbox' }), url);
      assertInert(invitationMail({ merchantName: typed, role: 'viewer', invitedBy: typed, url, validForMs: 3_600_000 }), url);
      assertInert(signupRejectedMail({ name: typed }), null);
    }
    assert.equal(userText('Harbor Coffee'), '"Harbor Coffee"');
    assert.equal(userText('Booking.com B.V.'), '"Booking[.]com B[.]V."');
    assert.equal(userText('x'.repeat(200)).length, 62);
  });
});

for (const kind of STORE_KINDS) {
  describe(`names in mails and invitation limits (${kind})`, () => {
    let t: TestApp;
    let merchantId: string;
    const admin = 'owner@example.com';
    let adminClient: PanelClient;

    before(async () => {
      t = await createTestApp(kind, { validateResponses: false, env: { PAYRAIL_PUBLIC_URL: PUBLIC_URL, PAYRAIL_SIGNUP_AUTO_APPROVE: '0' } });
      merchantId = (await t.newMerchant({ name: 'Verify your account at http://evil.example/login' })).merchant_id;
      await createUser({ db: t.service.db, clock: t.clock }, { email: admin, role: 'merchant', merchantId, password: PASSWORD });
      adminClient = new PanelClient(t.app);
      await adminClient.signIn(admin, PASSWORD);
      await adminClient.get('/dashboard/team');
    });
    after(async () => t?.close());

    it('finding 14: sign-up refuses a company or name carrying a web address or markup, mailing nothing', async () => {
      for (const [field, value] of [
        ['company', 'Acme https://evil.example/login'],
        ['company', 'Acme www.evil.example'],
        ['name', 'Ada <a href=x>'],
      ] as const) {
        const client = new PanelClient(t.app);
        await client.get('/signup');
        const email = `${field}-${value.length}@example.com`;
        const answer = await client.post('/signup', { name: 'Ada Lovelace', company: 'Harbor Coffee', email, corridors: 'US to Kenya', [field]: value });
        assert.equal(answer.status, 400, value);
        assert.match(answer.body, /without a web address or markup/);
        assert.deepEqual(await mailList(t.service, { to: email }, 5), []);
      }
    });

    it('finding 14: an invitation from a merchant named with a URL carries no link but its own', async () => {
      assert.equal((await adminClient.post('/dashboard/team/invite', { email: 'first@example.com', role: 'viewer' })).status, 303);
      const [mail] = await mailList(t.service, { to: 'first@example.com' }, 1);
      assert.ok(mail !== undefined);
      const own = /https:\/\/payrail\.test\/dashboard\/invitation\/\S+/.exec(mail.text_body)?.[0] ?? null;
      assert.ok(own !== null);
      assertInert(mail, own);
      assert.match(mail.text_body, /"Verify your account at http\[:\]\/\/evil\[\.\]example\/login"/);
    });

    it('finding 14: one merchant mails at most the daily number of invitations; the next gets a clear 429 page', async () => {
      const sent = (await mailList(t.service, { to: null }, 200)).filter((mail) => mail.kind === 'invitation').length;
      for (let i = sent; i < INVITATIONS_PER_MERCHANT_MAX; i++) {
        assert.equal((await adminClient.post('/dashboard/team/invite', { email: `bulk${i}@example.com`, role: 'viewer' })).status, 303, `invitation ${i + 1}`);
      }
      const refused = await adminClient.post('/dashboard/team/invite', { email: 'one-too-many@example.com', role: 'viewer' });
      assert.equal(refused.status, 429);
      assert.match(refused.body, new RegExp(`This merchant has sent ${INVITATIONS_PER_MERCHANT_MAX} invitations in the last 24 hours`));
      assert.deepEqual(await mailList(t.service, { to: 'one-too-many@example.com' }, 5), []);
      t.clock.advance(24 * 60 * 60_000 + 1);
      // The session ended meanwhile: the admin signs in again.
      adminClient = new PanelClient(t.app);
      await adminClient.signIn(admin, PASSWORD);
      await adminClient.get('/dashboard/team');
      assert.equal((await adminClient.post('/dashboard/team/invite', { email: 'next-day@example.com', role: 'viewer' })).status, 303);
    });
  });
}
