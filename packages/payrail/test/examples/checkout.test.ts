// examples/checkout end to end, as a merchant would run it: a `payrail serve`
// sandbox, the example's node:http server with a merchant's credentials, and
// Debian's Chromium typing a test card into the hosted form on the example's
// page. The charge is approved and credited. The hosted card form snippets
// of docs/hosted-form.md are the example's own, character for character.
// Both stores.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, startServer, type RunningServer } from '../helpers/browser.ts';
import { runCliJson } from '../helpers/cli.ts';
import { createStore, STORE_KINDS, type TestStore, testConfigHome } from '../helpers/stores.ts';

const REPO = path.resolve(import.meta.dirname, '..', '..', '..', '..');
const EXAMPLE = path.join(REPO, 'examples', 'checkout');
/** Bounded so an example server that never starts fails the test instead of hanging it. */
const EXAMPLE_START_TIMEOUT_MS = 30_000;

interface Merchant {
  merchant_id: string;
  source: { api_key: string; pin: string; tokenization_token: string };
}

/** The text between `start` and `end` markers of a file, markers excluded. */
function between(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  assert.ok(from >= 0 && to > from, `markers ${start} … ${end}`);
  return text.slice(text.indexOf('\n', from) + 1, text.lastIndexOf('\n', to) + 1);
}

/** The fenced code block of a guide page that follows `marker`. */
function guideBlock(page: string, marker: string): string {
  const at = page.indexOf(marker);
  assert.ok(at >= 0, `docs/hosted-form.md marker ${marker}`);
  const open = page.indexOf('```', at);
  const body = page.indexOf('\n', open) + 1;
  return page.slice(body, page.indexOf('```', body));
}

async function startExample(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [path.join(EXAMPLE, 'server.mjs')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the checkout example did not start:\n${output}`)), EXAMPLE_START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /checkout listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the checkout example exited ${code}:\n${output}`));
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('the hosted form guide shows the checkout example', () => {
  it("its hosted card form snippets are the example's, character for character", () => {
    const guide = fs.readFileSync(path.join(REPO, 'docs', 'hosted-form.md'), 'utf8');
    const html = fs.readFileSync(path.join(EXAMPLE, 'index.html'), 'utf8');
    const server = fs.readFileSync(path.join(EXAMPLE, 'server.mjs'), 'utf8');
    assert.equal(
      guideBlock(guide, '<!-- snippet: examples/checkout/index.html -->'),
      between(html, '<!-- payrail-card-form:start -->', '<!-- payrail-card-form:end -->'),
    );
    assert.equal(guideBlock(guide, '<!-- snippet: examples/checkout/server.mjs -->'), between(server, '// payrail-charge:start', '// payrail-charge:end'));
  });
});

describe('examples/checkout in Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  for (const kind of STORE_KINDS) {
    describe(kind, () => {
      let store: TestStore;
      let payrail: RunningServer;
      let merchant: Merchant;
      before(async () => {
        store = await createStore(kind);
        payrail = await startServer(store.env);
        merchant = await runCliJson<Merchant>(['merchant', 'create', '--name', 'Example shop'], store.env);
      });
      after(async () => {
        await payrail?.stop();
        await store.dispose();
      });

      it('a customer pays 42.00 with a test card; the shop server charges the nonce and the merchant is credited', async () => {
        const example = await startExample({
          PAYRAIL_URL: payrail.url,
          PAYRAIL_TOKENIZATION_TOKEN: merchant.source.tokenization_token,
          PAYRAIL_SOURCE_KEY: merchant.source.api_key,
          PAYRAIL_SOURCE_PIN: merchant.source.pin,
        });
        const page = await browser.newPage();
        try {
          assert.match(example.url, /^http:\/\/127\.0\.0\.1:\d+$/);
          await page.goto(example.url);
          const form = page.frameLocator('iframe[title="Card details"]');
          await form.locator('#card-number').pressSequentially('4111 1111 1111 1111');
          await form.locator('#card-expiry').pressSequentially('12/35');
          await form.locator('#card-cvv').pressSequentially('123');
          await page.click('#pay');
          await page.waitForFunction(() => (document.getElementById('result')?.textContent ?? '') !== '');
          const paid = JSON.parse((await page.textContent('#result')) ?? '') as { status: string; reference_number: string; last_4: string; error: unknown };
          assert.deepEqual([paid.status, paid.last_4, paid.error], ['approved', '1111', null], JSON.stringify(paid));

          const basic = `Basic ${Buffer.from(`${merchant.source.api_key}:${merchant.source.pin}`).toString('base64')}`;
          const read = await fetch(`${payrail.url}/api/v2/transactions/${paid.reference_number}`, { headers: { authorization: basic } });
          const charge = (await read.json()) as { status: string; auth_amount: number; transaction: { transaction_details: { order_number: string } } };
          assert.deepEqual([read.status, charge.status, charge.auth_amount], [200, 'Approved', 42]);
          assert.match(charge.transaction.transaction_details.order_number, /^[0-9a-f-]{36}$/);
          const shown = await runCliJson<{ balance_cents: number }>(['merchant', 'show', '--merchant', merchant.merchant_id], store.env);
          assert.equal(shown.balance_cents, 4200);
        } finally {
          await page.close();
          await example.stop();
        }
      });
    });
  }
});
