// The control panel in a real browser (Debian's Chromium through
// playwright-core) against a spawned `payrail serve`, on both stores:
// sign-in and sign-out, a wrong password, a new source's credentials shown
// once, finding a transfer, an operator reconciling a waiting transfer, and a
// receiver completing KYC at kyc_url. Screenshots of the main pages go to
// .artifacts/screenshots/.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { pinKeyFor } from '../../src/crypto/card-key.ts';
import { createMerchant, fundMerchant, type CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { launchChromium, screenshotPath, startServer, type RunningServer } from '../helpers/browser.ts';
import { runCliJson } from '../helpers/cli.ts';
import { totpCode } from '../helpers/panel.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const MERCHANT_EMAIL = 'shop@example.com';
const OPERATOR_EMAIL = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';
const PHONE_VIEWPORT = { width: 390, height: 844 };
/** axe-core's browser build, injected into each page for the accessibility check. */
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * What is wrong with each page: wider than a 390 px phone screen, or an
 * accessibility violation axe finds (the page must let scripts in: bypassCSP).
 */
async function pageProblems(page: Page, baseUrl: string, paths: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const path of paths) {
    await page.setViewportSize(PHONE_VIEWPORT);
    const response = await page.goto(`${baseUrl}${path}`);
    if (response?.status() !== 200) problems.push(`${path}: HTTP ${response?.status()}`);
    const widthPx = await page.evaluate(() => document.documentElement.scrollWidth);
    if (widthPx > PHONE_VIEWPORT.width) problems.push(`${path}: ${widthPx} px wide`);
    await page.setViewportSize(DESKTOP_VIEWPORT);
    await page.addScriptTag({ path: AXE_SCRIPT });
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe;
      return (await axe.run()).violations.map((v) => `${v.id} (${v.nodes.length})`);
    });
    for (const violation of violations) problems.push(`${path}: ${violation}`);
  }
  return problems;
}
/** Every page of a merchant user's navigation, plus the list pages' filtered and exported forms' pages. */
const MERCHANT_PAGES = [
  '/dashboard/overview',
  '/dashboard/charges',
  '/dashboard/transfers',
  '/dashboard/customers',
  '/dashboard/kyc',
  '/dashboard/credentials',
  '/dashboard/team',
  '/dashboard/webhooks',
  '/dashboard/surcharge',
  '/dashboard/account/two-factor',
];
const DESKTOP_VIEWPORT = { width: 1280, height: 860 };

interface Api {
  transfer(key: string, id: string, amount: string, receiver?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  charge(merchant: { api_key: string; pin: string; tokenization_token: string }, amount: number): Promise<number>;
  get(path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
}

function api(baseUrl: string): Api {
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    transfer: (key, id, amount, receiver = '+254712345678') =>
      call(
        'POST',
        '/api/transfer',
        { 'api-key': key },
        {
          id,
          sender_phone: '+14155550123',
          receiver_phone: receiver,
          amount,
          service: '1001',
          receiver_country: 'KE',
          receiver_currency: 'KES',
          attribute: [],
        },
      ),
    async charge(source, amount) {
      const token = await call(
        'POST',
        '/api/v2/tokens',
        { authorization: `Bearer ${source.tokenization_token}` },
        {
          card_number: '4111111111111111',
          expiry_month: 12,
          expiry_year: 2035,
          cvv2: '123',
        },
      );
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const basic = `Basic ${Buffer.from(`${source.api_key}:${source.pin}`).toString('base64')}`;
      const charged = await call(
        'POST',
        '/api/v2/transactions/charge',
        { authorization: basic },
        {
          amount,
          source: token.body.nonce,
          expiry_month: 12,
          expiry_year: 2035,
          billing_info: { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' },
        },
      );
      assert.equal(charged.status, 200, JSON.stringify(charged.body));
      return charged.body.reference_number as number;
    },
    get: (path, headers) => call('GET', path, headers),
  };
}

async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

for (const kind of STORE_KINDS) {
  describe(`panel in a browser (${kind})`, () => {
    let store: TestStore;
    let server: RunningServer;
    let browser: Browser;
    let merchant: CreatedMerchant;
    let client: Api;
    // Screenshots come from one store's run; the pages are the same on both.
    const shoot = async (page: Page, name: string) => {
      if (kind === 'sqlite') await page.screenshot({ path: screenshotPath(name), fullPage: true });
    };

    before(async () => {
      store = await createStore(kind);
      // PINs are hashed under a key kept beside the store, as the server process will find it.
      const pinKey = pinKeyFor({ cardKeyBase64: null, environment: 'sandbox', dataDir: store.dataDir, cardKeyFile: store.env.PAYRAIL_CARD_KEY_FILE ?? null });
      const deps = { db: store.db, environment: 'sandbox' as const, clock: systemClock, pinKey };
      merchant = await createMerchant(deps, { name: 'Harbor Coffee' });
      await fundMerchant(deps, { merchantId: merchant.merchant_id, amountCents: 250_000 });
      // Users come from the real CLI, as an operator would create them.
      const user = await runCliJson<{ email: string; role: string; merchant_id: string | null; generated_password: string | null }>(
        ['user', 'create', '--role', 'merchant', '--merchant', merchant.merchant_id, '--email', MERCHANT_EMAIL, '--password', PASSWORD],
        store.env,
      );
      assert.deepEqual(
        { ...user, id: undefined },
        { id: undefined, email: MERCHANT_EMAIL, role: 'merchant', merchant_id: merchant.merchant_id, generated_password: null },
      );
      await runCliJson(['user', 'create', '--role', 'operator', '--email', OPERATOR_EMAIL, '--password', PASSWORD], store.env);
      // The worker is off so transfers stay where the test puts them.
      server = await startServer({ ...store.env, PAYRAIL_WORKER: 'off' });
      client = api(server.url);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await store?.dispose();
    });

    it('refuses a wrong password, signs in, and signs out', async () => {
      const page = await browser.newPage({ viewport: DESKTOP_VIEWPORT });
      await signIn(page, server.url, MERCHANT_EMAIL, 'not my password');
      await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
      assert.equal(await page.getByLabel('E-mail').inputValue(), MERCHANT_EMAIL);
      await shoot(page, 'login-wrong-password');

      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard/overview');
      assert.equal(await page.getByRole('link', { name: 'Overview' }).getAttribute('aria-current'), 'page');
      // The first Tab reaches the skip link, so keyboard users can jump to the content.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor();
      await page.goto(`${server.url}/dashboard/overview`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard/login');
      await page.close();
    });

    it('creates a source and shows its three credentials once', async () => {
      const page = await browser.newPage({ viewport: DESKTOP_VIEWPORT });
      await signIn(page, server.url, MERCHANT_EMAIL, PASSWORD);
      await page.getByRole('link', { name: 'Credentials' }).click();
      await page.getByLabel('New source name').fill('Online store');
      await page.getByRole('button', { name: 'Create source' }).click();
      await page.getByRole('heading', { level: 1, name: 'New source credentials' }).waitFor();
      const source = {
        api_key: await page.getByLabel('API key').inputValue(),
        pin: await page.getByLabel('PIN').inputValue(),
        tokenization_token: await page.getByLabel('Tokenization token').inputValue(),
      };
      assert.match(source.api_key, /^sbx_sk_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/);
      assert.match(source.pin, /^[0-9]{8}$/);
      assert.match(source.tokenization_token, /^sbx_pt_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/);
      await shoot(page, 'merchant-source-created');
      // The credentials work at once...
      assert.equal(typeof (await client.charge(source, 12.34)), 'number');
      // ...and are never shown again.
      await page.getByRole('link', { name: 'Done, back to credentials' }).click();
      await page.getByRole('rowheader', { name: 'Online store' }).waitFor();
      const html = await page.content();
      for (const secret of Object.values(source)) assert.ok(!html.includes(secret));
      await shoot(page, 'merchant-credentials');
      assert.ok(!server.output().includes(source.api_key));
      await page.close();
    });

    it('finds a transfer by id and opens it', async () => {
      const executed = await client.transfer(merchant.transfer_api_key, '9001', '25.00');
      assert.equal(executed.status, 200, JSON.stringify(executed.body));
      await client.charge(merchant.source, 80);
      const page = await browser.newPage({ viewport: DESKTOP_VIEWPORT });
      await signIn(page, server.url, MERCHANT_EMAIL, PASSWORD);
      await page.getByRole('link', { name: 'Charges' }).click();
      await page.getByRole('heading', { level: 1, name: 'Charges' }).waitFor();
      await shoot(page, 'merchant-charges');
      await page.getByRole('link', { name: 'Transfers' }).click();
      await page.getByLabel('Transfer id').fill('9001');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByRole('heading', { level: 1, name: 'Transfer 9001' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard/transfers/9001');
      assert.equal(await page.locator('dt:has-text("Amount") + dd').first().textContent(), '25.00 USD');
      assert.equal(await page.locator('dt:has-text("Receiver gets") + dd').textContent(), '3,231.25 KES at 129.25');
      assert.equal(await page.locator('.timeline li').count(), 1);
      await shoot(page, 'merchant-transfer-detail');

      await page.goto(`${server.url}/dashboard/transfers`);
      await page.getByLabel('Transfer id').fill('424242');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByRole('alert').filter({ hasText: 'No transfer with id 424242 was found for your merchant.' }).waitFor();
      await shoot(page, 'merchant-transfers');
      await page.close();
    });

    it('lets a receiver complete KYC at kyc_url, raising the limit the API reports', async () => {
      const account = '254712340002';
      const headers = { 'api-key': merchant.transfer_api_key };
      const before = await client.get(`/api/kyc/${account}`, headers);
      assert.deepEqual(before.body, { success: true, error: '', kyc_verify: false, money_limit: '100.00', kyc_url: `${server.url}/sandbox/kyc/${account}` });

      const page = await browser.newPage({ viewport: DESKTOP_VIEWPORT });
      await signIn(page, server.url, MERCHANT_EMAIL, PASSWORD);
      await page.getByRole('link', { name: 'Receiver KYC' }).click();
      await page.getByLabel('Receiver phone').fill(`+${account}`);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByText('not verified').waitFor();
      await shoot(page, 'merchant-kyc-lookup');
      const link = page.getByRole('link', { name: String(before.body.kyc_url) });
      assert.equal(await link.getAttribute('href'), before.body.kyc_url);
      await page.close();

      // The receiver opens the link on a phone.
      const phone = await browser.newPage({ viewport: PHONE_VIEWPORT });
      await phone.goto(String(before.body.kyc_url));
      await phone.getByRole('heading', { name: 'Verify your identity' }).waitFor();
      await shoot(phone, 'sandbox-kyc-phone');
      await phone.getByRole('button', { name: 'Complete verification' }).click();
      await phone.getByRole('heading', { name: 'Verified' }).waitFor();
      await phone.close();

      const afterKyc = await client.get(`/api/kyc/${account}`, headers);
      assert.deepEqual(afterKyc.body, { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' });
    });

    it('lets the operator turn on payouts-must-link and reconcile a waiting transfer with a charge', async () => {
      // The page lets axe in at the end (the pages allow no inline script).
      const page = await browser.newPage({ viewport: DESKTOP_VIEWPORT, bypassCSP: true });
      await signIn(page, server.url, OPERATOR_EMAIL, PASSWORD);
      // Operators set up two-factor sign-in before anything else, with the QR code's secret in an authenticator app.
      await page.getByRole('heading', { level: 1, name: 'Two-factor sign-in' }).waitFor();
      assert.equal(await page.getByRole('img', { name: 'QR code for your authenticator app' }).count(), 1);
      await shoot(page, 'operator-two-factor-enrol');
      const secret = await page.locator('input[name="secret"]').inputValue();
      await page.getByLabel('6-digit code').fill(totpCode(secret, Date.now()));
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByRole('heading', { level: 1, name: 'Recovery codes' }).waitFor();
      assert.equal(await page.locator('.recovery-codes li').count(), 10);
      await page.getByRole('link', { name: 'Done, continue' }).click();
      await page.getByRole('heading', { level: 1, name: 'Merchants' }).waitFor();
      await shoot(page, 'operator-merchants');
      await page.getByRole('link', { name: 'Harbor Coffee' }).click();
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByRole('status').filter({ hasText: 'Payouts of this merchant must now be linked to card payins.' }).waitFor();
      await shoot(page, 'operator-merchant-detail');

      const chargeRef = await client.charge(merchant.source, 60);
      const waiting = await client.transfer(merchant.transfer_api_key, '9002', '40.00');
      assert.equal(waiting.status, 200, JSON.stringify(waiting.body));
      const result = ((await client.get('/api/status/9002', { 'api-key': merchant.transfer_api_key })).body.status as { result: Record<string, unknown> })
        .result;
      assert.deepEqual([result.state, result.substate, result.final, result.attribute], [0, 9, 0, [{ name: 'waitingFor', value: 'reconciliation' }]]);

      await page.getByRole('link', { name: 'Reconciliation' }).click();
      await page.getByRole('heading', { name: /Transfer 9002/ }).waitFor();
      await shoot(page, 'operator-reconciliation');
      await page.getByLabel('Charge reference number').fill(String(chargeRef));
      await page.getByRole('button', { name: 'Link transfer 9002' }).click();
      await page.getByRole('status').filter({ hasText: 'Transfer linked to the charge; it proceeds now.' }).waitFor();
      await page.getByText('Nothing waits for reconciliation').waitFor();
      const status = (await client.get('/api/status/9002', { 'api-key': merchant.transfer_api_key })).body.status as {
        result: { state: number; substate: number };
      };
      assert.equal(status.result.state, 0);
      assert.equal(status.result.substate, 0);

      await page.getByRole('link', { name: 'Ledger' }).click();
      await page.getByText('Ledger OK.').waitFor();
      await shoot(page, 'operator-ledger');

      // The audit log names who linked the transfer, from where.
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByLabel('Action').selectOption('transfer.link');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('rowheader', { name: 'transfer.link' }).waitFor();
      assert.match(
        (await page.locator('table.audit tbody tr').first().textContent())!,
        /user ops@example\.com\s+transfer\.link\s+9002\s+127\.0\.0\.1\s+success/,
      );
      await shoot(page, 'operator-audit');

      // Every operator page, and the merchant's records the operator reads, fit a phone and pass axe.
      const merchantPath = `/dashboard/operator/merchants/${merchant.merchant_id}`;
      const operatorPages = [
        '/dashboard/operator/merchants',
        merchantPath,
        `${merchantPath}/charges`,
        `${merchantPath}/transfers`,
        '/dashboard/operator/signups',
        '/dashboard/operator/reconciliation',
        '/dashboard/operator/batches',
        '/dashboard/operator/ledger',
        '/dashboard/operator/audit',
        '/dashboard/operator/mail',
        '/dashboard/account/two-factor',
      ];
      assert.deepEqual(await pageProblems(page, server.url, operatorPages), []);
      await page.close();
    });

    it("shows the overview with the day's volume, on a desktop and on a phone screen", async () => {
      const desktop = await browser.newPage({ viewport: DESKTOP_VIEWPORT });
      await signIn(desktop, server.url, MERCHANT_EMAIL, PASSWORD);
      await desktop.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      // 80.00 and 60.00 approved today; 25.00 and 40.00 sent.
      assert.match((await desktop.locator('#chart-desc').textContent())!, /^Card payins total 152.34 USD and transfers total 65.00 USD over 30 days.$/);
      await shoot(desktop, 'merchant-overview');
      await desktop.close();

      const page = await browser.newPage({ viewport: PHONE_VIEWPORT });
      await signIn(page, server.url, MERCHANT_EMAIL, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      // Nothing sticks out past the screen's edge, so the page never scrolls sideways.
      const overflowing = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5 && el.closest('.table-wrap, .nav ul') === null)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
      );
      assert.deepEqual(overflowing, []);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
      await shoot(page, 'merchant-overview-phone');
      await page.close();
    });

    it('fits every merchant page on a 390 px phone screen: none scrolls sideways', async () => {
      const page = await browser.newPage({ viewport: PHONE_VIEWPORT });
      await signIn(page, server.url, MERCHANT_EMAIL, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const wide: string[] = [];
      for (const path of MERCHANT_PAGES) {
        const response = await page.goto(`${server.url}${path}`);
        assert.equal(response?.status(), 200, path);
        const widthPx = await page.evaluate(() => document.documentElement.scrollWidth);
        if (widthPx > PHONE_VIEWPORT.width) {
          const culprits = await page.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5 && el.closest('.table-wrap, .nav ul') === null)
              .map((el) => `${el.tagName.toLowerCase()}.${el.className}`)
              .slice(0, 8),
          );
          wide.push(`${path}: ${widthPx} px (${culprits.join(', ')})`);
        }
      }
      assert.deepEqual(wide, []);
      await page.close();
    });

    it('has no accessibility violations axe can find on any merchant page', async () => {
      // The pages allow no inline script (CSP); the test lets axe in.
      const page = await browser.newPage({ viewport: DESKTOP_VIEWPORT, bypassCSP: true });
      await signIn(page, server.url, MERCHANT_EMAIL, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const found: string[] = [];
      for (const path of MERCHANT_PAGES) {
        await page.goto(`${server.url}${path}`);
        await page.addScriptTag({ path: AXE_SCRIPT });
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe;
          return (await axe.run()).violations.map((v) => `${v.id} (${v.nodes.length})`);
        });
        for (const violation of violations) found.push(`${path}: ${violation}`);
      }
      assert.deepEqual(found, []);
      await page.close();
    });
  });
}
