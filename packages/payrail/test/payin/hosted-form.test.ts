// The hosted card form in a real browser: headless Chromium (Debian's
// package) driven by playwright-core. A merchant checkout page on another
// origin includes payrail.js, the customer types a test card into the
// iframe, the page receives a nonce by postMessage and its server charges
// it; the charge is approved and the merchant credited. The merchant page and
// server never see card data. Both stores.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { type CreatedMerchant, revokeSource } from '../../src/flows/merchants/merchants.ts';
import { addOrigin } from '../../src/flows/access/source-origins.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BILLING, basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const CHROMIUM = process.env.PAYRAIL_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A merchant's shop: a checkout page and a server-side charge endpoint, on its own origin. */
interface Shop {
  readonly origin: string;
  /** Every request body the shop's server received from its page. */
  readonly received: string[];
  close(): Promise<void>;
}

function checkoutPage(payrailOrigin: string, token: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Checkout</title></head>
<body>
<h1>Checkout</h1>
<div id="card"></div>
<button id="pay">Pay 42.00</button>
<pre id="result"></pre>
<script src="${payrailOrigin}/hosted/payrail.js"></script>
<script>
  const form = Payrail.mountCardForm('#card', { tokenizationToken: ${JSON.stringify(token)} });
  const result = document.getElementById('result');
  document.getElementById('pay').addEventListener('click', async () => {
    const outcome = await form.tokenize();
    if (!outcome.ok) {
      result.textContent = JSON.stringify({ refused: outcome.error });
      return;
    }
    const response = await fetch('/charge', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(outcome.result) });
    result.textContent = await response.text();
  });
</script>
</body></html>`;
}

async function startShop(payrailOrigin: string, merchant: CreatedMerchant): Promise<Shop> {
  const received: string[] = [];
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(checkoutPage(payrailOrigin, merchant.source.tokenization_token));
      return;
    }
    if (request.method === 'POST' && request.url === '/charge') {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', () => {
        received.push(text);
        const fromPage = JSON.parse(text) as { nonce: string; expiry_month: number; expiry_year: number };
        // The shop's server side: it holds the API key and PIN and charges the nonce.
        void fetch(`${payrailOrigin}/api/v2/transactions/charge`, {
          method: 'POST',
          headers: { authorization: basicOf(merchant), 'content-type': 'application/json', 'idempotency-key': `order-${fromPage.nonce.slice(-8)}` },
          body: JSON.stringify({
            amount: 42,
            source: fromPage.nonce,
            expiry_month: fromPage.expiry_month,
            expiry_year: fromPage.expiry_year,
            billing_info: BILLING,
          }),
        })
          .then(async (charge) => {
            response.writeHead(charge.status, { 'content-type': 'application/json' });
            response.end(await charge.text());
          })
          .catch((error: unknown) => {
            response.writeHead(502);
            response.end(String(error));
          });
      });
      return;
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function typeCard(page: Page, number: string, expiry: string, cvv: string): Promise<void> {
  const frame = page.frameLocator('iframe[title="Card details"]');
  await frame.locator('#card-number').pressSequentially(number);
  await frame.locator('#card-expiry').pressSequentially(expiry);
  await frame.locator('#card-cvv').pressSequentially(cvv);
}

async function resultOf(page: Page): Promise<Record<string, unknown>> {
  await page.waitForFunction(() => (document.getElementById('result')?.textContent ?? '') !== '');
  return JSON.parse((await page.textContent('#result')) ?? '') as Record<string, unknown>;
}

describe('hosted card form in Chromium', () => {
  let browser: Browser;
  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM} (apt-get install -y chromium)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  for (const kind of STORE_KINDS) {
    describe(kind, () => {
      let t: TestApp;
      let payrailOrigin: string;
      before(async () => {
        t = await createTestApp(kind);
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        payrailOrigin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      });
      after(async () => {
        await t.close();
      });

      it('takes a card typed into the iframe to an approved charge; the shop sees only the nonce', async () => {
        const merchant = await t.newMerchant();
        const shop = await startShop(payrailOrigin, merchant);
        const page = await browser.newPage();
        try {
          await page.goto(shop.origin);
          await typeCard(page, '4111 1111 1111 1111', '12/35', '123');
          await page.click('#pay');
          const charge = await resultOf(page);
          assert.equal(charge.status, 'Approved', JSON.stringify(charge));
          assert.equal(charge.status_code, 'A');
          assert.equal(charge.card_type, 'Visa');
          assert.equal(charge.last_4, '1111');
          assert.equal((charge.transaction as { id: number }).id, charge.reference_number);

          const available = await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchant.merchant_id, 'available')));
          assert.equal(available!.balance_cents, 4200);

          // What the shop's page sent its server: the nonce and public card facts, no card data.
          assert.equal(shop.received.length, 1);
          const fromPage = JSON.parse(shop.received[0]!) as Record<string, unknown>;
          assert.deepEqual(Object.keys(fromPage).sort(), ['card_type', 'expires_at', 'expiry_month', 'expiry_year', 'last_4', 'nonce']);
          assert.match(String(fromPage.nonce), /^nonce-[0-9A-Za-z]{32}$/);
          assert.equal(shop.received[0]!.includes('4111111111111111'), false);
          assert.equal(shop.received[0]!.includes('"123"'), false);

          // The shop's page cannot reach into the form: it is another origin.
          const readable = await page.evaluate(() => {
            try {
              return document.querySelector('iframe')!.contentDocument !== null;
            } catch {
              return false;
            }
          });
          assert.equal(readable, false);
          // The form cleared itself after tokenizing.
          assert.equal(await page.frameLocator('iframe[title="Card details"]').locator('#card-number').inputValue(), '');
        } finally {
          await page.close();
          await shop.close();
        }
      });

      it('shows a refused card inside the form and tells the page only the error', async () => {
        const merchant = await t.newMerchant();
        const shop = await startShop(payrailOrigin, merchant);
        const page = await browser.newPage();
        try {
          await page.goto(shop.origin);
          // Passes the form's own quick checks (Luhn, length) but not Payrail's: an American Express code of 3 digits.
          await typeCard(page, '3782 822463 10005', '12/35', '123');
          await page.click('#pay');
          assert.deepEqual(await resultOf(page), { refused: { code: 'invalid_card', message: 'cvv2 must be 4 digits for American Express cards' } });
          const shown = await page.frameLocator('iframe[title="Card details"]').locator('#card-error').textContent();
          assert.equal(shown, 'cvv2 must be 4 digits for American Express cards');
          assert.deepEqual(shop.received, []);
        } finally {
          await page.close();
          await shop.close();
        }
      });
    });
  }
});

describe('hosted card form pages', () => {
  let t: TestApp;
  let merchant: CreatedMerchant;
  before(async () => {
    t = await createTestApp('sqlite');
    merchant = await t.newMerchant();
  });
  after(async () => {
    await t.close();
  });

  const formUrl = (token: string, origin: string) => `/hosted/card-form?token=${encodeURIComponent(token)}&origin=${encodeURIComponent(origin)}`;
  const originDeps = () => ({ db: t.service.db, clock: t.clock, environment: t.service.config.environment });

  it('serves the form for the page origin it names, framed by that origin only', async () => {
    await addOrigin(originDeps(), { merchantId: merchant.merchant_id, sourceId: merchant.source.id, origin: 'https://shop.example' });
    const url = `/hosted/card-form?token=${encodeURIComponent(merchant.source.tokenization_token)}&origin=${encodeURIComponent('https://shop.example')}`;
    const response = await t.app.inject({ method: 'GET', url });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(
      response.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors https://shop.example",
    );
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['referrer-policy'], 'no-referrer');
    assert.ok(response.body.includes(`data-token="${merchant.source.tokenization_token}"`));
    assert.ok(response.body.includes('data-origin="https://shop.example"'));
  });

  it('refuses a form for a bad origin or a credential that is not a tokenization token', async () => {
    const token = encodeURIComponent(merchant.source.tokenization_token);
    for (const origin of ['https://shop.example/checkout', 'javascript:alert(1)', 'ftp://shop.example', '"><script>']) {
      const response = await t.app.inject({ method: 'GET', url: `/hosted/card-form?token=${token}&origin=${encodeURIComponent(origin)}` });
      assert.equal(response.statusCode, 400, origin);
      assert.equal(response.body, 'Payrail card form: origin must be the origin of the page that shows the form.\n');
    }
    for (const key of [merchant.source.api_key, 'nonsense']) {
      const response = await t.app.inject({ method: 'GET', url: `/hosted/card-form?token=${encodeURIComponent(key)}&origin=https%3A%2F%2Fshop.example` });
      assert.equal(response.statusCode, 400);
      assert.equal(response.body, 'Payrail card form: token must be a valid sandbox tokenization token.\n');
    }
  });

  it('refuses a page origin its source does not list, and a token that only looks right', async () => {
    const foreign = await t.app.inject({ method: 'GET', url: formUrl(merchant.source.tokenization_token, 'https://evil.example') });
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(foreign.headers['content-security-policy'], "default-src 'none'");
    assert.match(foreign.body, /^Payrail card form: this source does not allow pages at https:\/\/evil.example; /);
    assert.ok(!foreign.body.includes(merchant.source.tokenization_token));
    // The prefix and shape of a tokenization token, but no such token in the store.
    const forged = `sbx_pt_${'A'.repeat(16)}_${'B'.repeat(32)}`;
    const made = await t.app.inject({ method: 'GET', url: formUrl(forged, 'https://shop.example') });
    assert.equal(made.statusCode, 400);
    assert.equal(made.body, 'Payrail card form: token must be a valid sandbox tokenization token.\n');
  });

  it('allows the developer machine in the sandbox while a source lists no origin, and only the listed ones after', async () => {
    const fresh = await t.newMerchant();
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8081']) {
      assert.equal((await t.app.inject({ method: 'GET', url: formUrl(fresh.source.tokenization_token, origin) })).statusCode, 200, origin);
    }
    for (const origin of ['https://localhost:3000', 'http://localhost.evil.example', 'https://shop.example']) {
      assert.equal((await t.app.inject({ method: 'GET', url: formUrl(fresh.source.tokenization_token, origin) })).statusCode, 403, origin);
    }
    await addOrigin(originDeps(), { merchantId: fresh.merchant_id, sourceId: fresh.source.id, origin: 'https://shop.example' });
    assert.equal((await t.app.inject({ method: 'GET', url: formUrl(fresh.source.tokenization_token, 'https://shop.example') })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: formUrl(fresh.source.tokenization_token, 'http://localhost:3000') })).statusCode, 403);
  });

  it('refuses the token of a revoked source', async () => {
    const fresh = await t.newMerchant();
    assert.equal((await t.app.inject({ method: 'GET', url: formUrl(fresh.source.tokenization_token, 'http://localhost:3000') })).statusCode, 200);
    await revokeSource(originDeps(), { merchantId: fresh.merchant_id, sourceId: fresh.source.id });
    const revoked = await t.app.inject({ method: 'GET', url: formUrl(fresh.source.tokenization_token, 'http://localhost:3000') });
    assert.equal(revoked.statusCode, 400);
    assert.equal(revoked.body, 'Payrail card form: token must be a valid sandbox tokenization token.\n');
  });

  it('serves payrail.js and the form assets, and nothing else under /hosted', async () => {
    for (const [name, type] of [
      ['payrail.js', 'text/javascript; charset=utf-8'],
      ['card-form.js', 'text/javascript; charset=utf-8'],
      ['card-form.css', 'text/css; charset=utf-8'],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url: `/hosted/${name}` });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], type);
      assert.equal(response.headers['cross-origin-resource-policy'], 'cross-origin');
    }
    const missing = await t.app.inject({ method: 'GET', url: '/hosted/card-form.html' });
    assert.equal(missing.statusCode, 404);
  });
});
