// Self-service sandbox access by e-mail, end to end, on both stores: a
// developer signs up on /signup in Chromium, reads the confirmation mail from
// a real SMTP server on loopback, follows its link, gets approved (by the
// operator's CLI on SQLite, automatically on PostgreSQL), follows the
// one-time credentials link, sets a panel password, and makes a first
// sandbox transfer with the keys the page showed. Then "forgot password"
// by mail. Links used twice, tampered with, and HTML typed into the form are
// checked on the way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshotPath, startServer, type RunningServer } from '../helpers/browser.ts';
import { runCliJson } from '../helpers/cli.ts';
import { linkIn, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const VIEWPORT = { width: 1280, height: 860 };
const PASSWORD = 'harbor lights at dawn';
const NEW_PASSWORD = 'quiet river under stone';

async function transfer(baseUrl: string, key: string, id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/api/transfer`, {
    method: 'POST',
    headers: { 'api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      sender_phone: '+14155550123',
      receiver_phone: '+254712345678',
      amount: '25.00',
      service: '1001',
      receiver_country: 'KE',
      receiver_currency: 'KES',
      attribute: [],
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

for (const kind of STORE_KINDS) {
  const autoApprove = kind === 'postgres';
  describe(`sandbox sign-up by e-mail in a browser (${kind}, ${autoApprove ? 'automatic' : 'operator'} approval)`, () => {
    let store: TestStore;
    let smtp: TestSmtp;
    let server: RunningServer;
    let browser: Browser;
    const email = `dev-${kind}@example.com`;
    // Screenshots come from one store's run; the pages are the same on both.
    const shoot = async (page: Page, name: string) => {
      if (kind === 'sqlite') await page.screenshot({ path: screenshotPath(name), fullPage: true });
    };

    before(async () => {
      store = await createStore(kind);
      smtp = await startSmtp();
      server = await startServer({ ...store.env, PAYRAIL_SMTP_URL: smtp.url, PAYRAIL_SIGNUP_AUTO_APPROVE: autoApprove ? '1' : '0' });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await smtp?.close();
      await store?.dispose();
    });

    it('signs up, confirms, is approved, sees the credentials once and makes a first transfer with them', async () => {
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.goto(`${server.url}/signup`);
      await page.getByRole('heading', { level: 1, name: 'Sandbox access' }).waitFor();
      // A bad address and markup in names are refused with the fields named, and what was typed is kept.
      await page.getByLabel('Your name').fill('<b>Ada</b>');
      await page.getByLabel('Company').fill('Harbor <i>Coffee</i>');
      await page.getByLabel('E-mail').fill('not-an-address');
      await page.getByLabel('Intended corridors').fill('US to Kenya');
      await page.getByRole('button', { name: 'Request sandbox access' }).click();
      await page.getByText('Enter a valid e-mail address').waitFor();
      await page.getByText('Enter your name without a web address or markup (< >).').waitFor();
      await page.getByText("Enter your company's name without a web address or markup (< >).").waitFor();
      await shoot(page, 'signup-invalid-address');
      assert.equal(await page.getByLabel('Your name').inputValue(), '<b>Ada</b>');
      await page.getByLabel('Your name').fill('Ada');
      await page.getByLabel('Company').fill('Harbor Coffee');
      await page.getByLabel('E-mail').fill(email);
      await page.getByRole('button', { name: 'Request sandbox access' }).click();
      await page.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();

      const confirmation = await smtp.waitFor((m) => m.to.includes(email) && m.text.includes('/signup/confirm/'));
      // The name the developer typed is in the mail, quoted as typed text.
      assert.ok(confirmation.text.includes('Ada'), confirmation.text);
      const confirmLink = linkIn(confirmation, `${server.url}/signup/confirm/`);

      // A tampered link is refused and confirms nothing.
      const tampered = await page.goto(`${confirmLink.slice(0, -3)}xyz`);
      assert.equal(tampered?.status(), 200);
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await page.getByText('This link is not valid.').waitFor();

      await page.goto(confirmLink);
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await page.getByRole('heading', { level: 1, name: 'Address confirmed' }).waitFor();

      if (!autoApprove) {
        await page.getByText('waits for approval by the operator').waitFor();
        // The operator's commands build links from the deployment's public URL, like the server.
        const cliEnv = { ...store.env, PAYRAIL_PUBLIC_URL: server.url };
        const waiting = await runCliJson<Array<{ id: string; email: string; company: string }>>(['signup', 'list', '--status', 'confirmed'], cliEnv);
        assert.deepEqual(
          waiting.map((r) => [r.email, r.company]),
          [[email, 'Harbor Coffee']],
        );
        await runCliJson(['signup', 'approve', waiting[0]!.id], cliEnv);
      }

      const welcome = await smtp.waitFor((m) => m.to.includes(email) && m.text.includes('/dashboard/welcome/'));
      // The credentials are not in the mail: only a one-time link to them.
      assert.ok(!/sbx_(tk|sk|pt)_/.test(welcome.text), welcome.text);
      const welcomeLink = linkIn(welcome, `${server.url}/dashboard/welcome/`);
      await page.goto(welcomeLink);
      await page.getByRole('button', { name: 'Show my credentials' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your credentials' }).waitFor();
      const transferKey = await page.getByLabel('Transfer API key').inputValue();
      await shoot(page, 'signup-credentials-once');
      assert.match(transferKey, /^sbx_/);
      assert.match(await page.getByLabel('PIN').inputValue(), /^[0-9]{8}$/);

      // The first sandbox transfer works with the key the page showed.
      const first = await transfer(server.url, transferKey, '7001');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.success, true);

      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByText('Your password is set. Sign in with it.').waitFor();
      await signIn(page, server.url, email, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      // The credentials link works once.
      const again = await page.goto(welcomeLink);
      assert.equal(again?.status(), 410);
      await page.getByText('This link was already used.').waitFor();
      assert.ok(!server.output().includes(transferKey));
      await page.close();
    });

    it('sets a new password through a "forgot password" mail; the link then works no more', async () => {
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.goto(`${server.url}/dashboard/login`);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.getByLabel('E-mail').fill(email);
      await page.getByRole('button', { name: 'Send me a link' }).click();
      const sentText = await page.getByRole('status').textContent();
      // An unknown address gets the very same answer.
      await page.goto(`${server.url}/dashboard/password/forgot`);
      await page.getByLabel('E-mail').fill('nobody@example.com');
      await page.getByRole('button', { name: 'Send me a link' }).click();
      assert.equal(await page.getByRole('status').textContent(), sentText);

      const reset = await smtp.waitFor((m) => m.to.includes(email) && m.text.includes('/dashboard/password/reset/'));
      const resetLink = linkIn(reset, `${server.url}/dashboard/password/reset/`);
      await page.goto(resetLink);
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByText('Your password is set. Sign in with it.').waitFor();
      await signIn(page, server.url, email, PASSWORD);
      await page.getByText('Wrong e-mail or password.').waitFor();
      await signIn(page, server.url, email, NEW_PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.equal((await page.goto(resetLink))?.status(), 410);
      assert.equal(smtp.mails.filter((m) => m.to.includes('nobody@example.com')).length, 0);
      await page.close();
    });

    it('lets the merchant admin invite a viewer by e-mail; the viewer reads, is offered no key forms and cannot create keys (403)', async () => {
      const viewer = `viewer-${kind}@example.com`;
      const admin = await browser.newPage({ viewport: VIEWPORT });
      await signIn(admin, server.url, email, NEW_PASSWORD);
      await admin.getByRole('link', { name: 'Team' }).click();
      await admin.getByLabel('E-mail').fill(viewer);
      await admin.getByLabel('Role', { exact: true }).selectOption('viewer');
      await admin.getByRole('button', { name: 'Send invitation' }).click();
      await admin.getByText('Invitation sent.').waitFor();
      await shoot(admin, 'merchant-team');
      await admin.close();

      const invitation = await smtp.waitFor((m) => m.to.includes(viewer) && m.text.includes('/dashboard/invitation/'));
      const link = linkIn(invitation, `${server.url}/dashboard/invitation/`);
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.goto(link);
      await page.getByText('viewer: read only').waitFor();
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Accept and set password' }).click();
      await page.getByText('Your password is set. Sign in with it.').waitFor();
      await signIn(page, server.url, viewer, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      // A viewer sees no team page link, and reads the credentials page...
      assert.equal(await page.getByRole('link', { name: 'Team' }).count(), 0);
      await page.getByRole('link', { name: 'Credentials' }).click();
      await page.getByText('only an admin of your merchant makes, rotates or revokes them').waitFor();
      assert.equal(await page.getByLabel('New source name').count(), 0);
      // ...and creating a source is refused, whatever the page offers (a form made in the page, with the session's token).
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/dashboard/credentials/sources') && r.request().method() === 'POST'),
        page.evaluate(() => {
          const form = document.createElement('form');
          form.method = 'post';
          form.action = '/dashboard/credentials/sources';
          const token = document.querySelector<HTMLInputElement>('input[name="_csrf"]')!.cloneNode() as HTMLInputElement;
          const name = Object.assign(document.createElement('input'), { name: 'name', value: 'Not allowed' });
          form.append(token, name);
          document.body.append(form);
          form.submit();
        }),
      ]);
      assert.equal(answer.status(), 403);
      await page.getByText('Your role (viewer) does not allow this.').waitFor();
      assert.equal((await page.goto(`${server.url}/dashboard/team`))?.status(), 403);
      // The invitation works once.
      assert.equal((await page.goto(link))?.status(), 410);
      await page.close();
    });
  });
}
