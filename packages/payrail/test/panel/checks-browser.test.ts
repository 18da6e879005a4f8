// Checks in the control panel in a real browser (Debian's Chromium through
// playwright-core) against a spawned `payrail serve`, on both stores: the
// charge list with checks, its payment type filter, and the pages of a
// returned and of a pending check are usable on a 390 px phone and at
// 1280 px: nothing wider than the screen, no accessibility violation axe
// finds, the return and the void (disabled with its reason while the panel
// cannot act on checks) in view.
// Screenshots go to .artifacts/screenshots/.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { pinKeyFor } from '../../src/crypto/card-key.ts';
import { DAY_MS, ManualClock, systemClock } from '../../src/domain/clock.ts';
import { createMerchant, type CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { launchChromium, screenshotPath, startServer, type RunningServer } from '../helpers/browser.ts';
import { runCliJson } from '../helpers/cli.ts';
import { checkAt, type CheckStore } from '../helpers/panel-checks.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const EMAIL = 'checks@example.com';
const PASSWORD = 'correct horse battery staple';
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 860 } } as const;
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** What is wrong with the page at `path` at each width: an answer other than 200, wider than the screen, an axe violation. */
async function pageProblems(page: Page, url: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    const response = await page.goto(url);
    if (response?.status() !== 200) problems.push(`${name}: HTTP ${response?.status()}`);
    const widthPx = await page.evaluate(() => document.documentElement.scrollWidth);
    if (widthPx > viewport.width) problems.push(`${name}: ${widthPx} px wide`);
    await page.addScriptTag({ path: AXE_SCRIPT });
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe;
      return (await axe.run()).violations.map((v) => `${v.id} (${v.nodes.length})`);
    });
    for (const violation of violations) problems.push(`${name}: ${violation}`);
  }
  return problems;
}

for (const kind of STORE_KINDS) {
  describe(`checks in the panel in a browser (${kind})`, () => {
    let store: TestStore;
    let server: RunningServer;
    let browser: Browser;
    let merchant: CreatedMerchant;
    let returned = 0;
    let pending = 0;
    const shoot = async (page: Page, name: string) => {
      if (kind === 'sqlite') await page.screenshot({ path: screenshotPath(name), fullPage: true });
    };

    before(async () => {
      store = await createStore(kind);
      const pinKey = pinKeyFor({ cardKeyBase64: null, environment: 'sandbox', dataDir: store.dataDir, cardKeyFile: store.env.PAYRAIL_CARD_KEY_FILE ?? null });
      merchant = await createMerchant({ db: store.db, environment: 'sandbox' as const, clock: systemClock, pinKey }, { name: 'Harbor Hardware' });
      await runCliJson(['user', 'create', '--role', 'merchant', '--merchant', merchant.merchant_id, '--email', EMAIL, '--password', PASSWORD], store.env);
      // The checks' lives happened over the last days; the server reads them at the real time.
      const checks: CheckStore = { db: store.db, clock: new ManualClock(Date.now() - 3 * DAY_MS), config: loadConfig({ ...store.env }) };
      pending = await checkAt(checks, merchant, 'pending', { amountCents: 12_345, accountNumber: '4400110001', accountName: 'Grace Brewster Murray Hopper' });
      returned = await checkAt(checks, merchant, 'returned_settled', { amountCents: 98_765, accountNumber: '4400110006' });
      await checkAt(checks, merchant, 'originated', { amountCents: 500, accountNumber: '4400110003' });
      server = await startServer({ ...store.env, PAYRAIL_WORKER: 'off' });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await store?.dispose();
    });

    it('lists, filters and shows checks usably at 390 px and 1280 px', async () => {
      // axe is injected into each page: the page must let scripts in.
      const page = await browser.newPage({ viewport: VIEWPORTS.desktop, bypassCSP: true });
      await page.goto(`${server.url}/dashboard`);
      await page.getByLabel('E-mail').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      const paths = [
        '/dashboard/charges',
        '/dashboard/charges?payment_type=check&status=returned',
        `/dashboard/charges/${returned}`,
        `/dashboard/charges/${pending}`,
      ];
      const problems: string[] = [];
      for (const path of paths) for (const problem of await pageProblems(page, `${server.url}${path}`)) problems.push(`${path}: ${problem}`);
      assert.deepEqual(problems, []);

      // The filter is a labelled select; choosing a type keeps it in the URL.
      await page.setViewportSize(VIEWPORTS.phone);
      await page.goto(`${server.url}/dashboard/charges`);
      await page.getByLabel('Payment type').selectOption('check');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/payment_type=check/);
      assert.equal(await page.locator('tbody tr').count(), 3);
      assert.equal(await page.getByText('Check ••••0006').isVisible(), true);
      await shoot(page, 'checks-list-phone');

      await page.goto(`${server.url}/dashboard/charges/${returned}`);
      const alert = page.getByRole('alert');
      assert.equal((await alert.textContent())?.trim().startsWith('Returned R01: Insufficient funds'), true);
      assert.equal(await alert.isVisible(), true);
      await shoot(page, 'check-returned-phone');

      await page.goto(`${server.url}/dashboard/charges/${pending}`);
      const voidButton = page.getByRole('button', { name: 'Void…' });
      assert.equal(await voidButton.isVisible(), true);
      assert.equal(await voidButton.isDisabled(), false, 'a pending check can be voided from its page');
      await page.setViewportSize(VIEWPORTS.desktop);
      await shoot(page, 'check-pending-desktop');
      await page.close();
    });
  });
}
