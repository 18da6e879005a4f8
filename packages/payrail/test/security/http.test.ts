// HTTP hardening (issue 13 findings 8, 10 and 11): security headers on every
// answer (no-store and nosniff on JSON, a CSP that lets a JSON answer do
// nothing, HSTS in production; the JSON APIs without helmet's document-only
// headers, pages with them) while the pages with content of their own
// keep working policies; /docs only when enabled; and every answer of each
// API in that API's envelope, the framework's own refusals included (a URL
// it cannot decode, an over-long path segment, an over-long request line
// that Node's parser rejects). Both stores.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { refusalOfUnknownDialect } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const TRANSFER_INVALID = (message: string) => ({ success: 'false', error: { message, code: 'invalid_request' } });
const SHAPE_C_INVALID = (message: string) => ({ error: { code: 'invalid_request', message } });
/** On the payin API a refusal before authentication carries both envelopes (behaviour.md section 16). */
const PAYIN_INVALID = (message: string) => refusalOfUnknownDialect('invalid_request', message);

/** One GET over a real socket, the URL sent exactly as given. */
function rawGet(port: number, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}

for (const kind of STORE_KINDS) {
  describe(`security headers and /docs (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    async function productionApp(overrides: { docs?: boolean } = {}) {
      const config = { ...t.service.config, environment: 'production' as const, docs: false, ...overrides };
      return buildApp(await createService(config, { db: t.store.db, clock: t.clock, log: createLogger('silent') }));
    }

    it('marks JSON answers no-store and nosniff, lets them run or frame nothing, and sends HSTS only in production', async () => {
      const merchant = await t.newMerchant();
      for (const response of [
        await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } }),
        await t.app.inject({ method: 'GET', url: '/api/agent_balance' }),
        await t.app.inject({ method: 'GET', url: '/api/v2/transactions/1' }),
        await t.app.inject({ method: 'GET', url: '/healthz' }),
      ]) {
        assert.equal(response.headers['cache-control'], 'no-store', response.body);
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.match(String(response.headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/);
        assert.equal(response.headers['strict-transport-security'], undefined, 'no HSTS on a sandbox served over plain HTTP');
      }
      const production = await productionApp();
      try {
        const response = await production.inject({ method: 'GET', url: '/healthz' });
        assert.equal(response.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
      } finally {
        await production.close();
      }
    });

    it('answers the JSON APIs with the headers an API answer needs, and pages with the whole document set', async () => {
      const merchant = await t.newMerchant();
      const documentOnly = [
        'cross-origin-opener-policy',
        'origin-agent-cluster',
        'referrer-policy',
        'x-dns-prefetch-control',
        'x-download-options',
        'x-permitted-cross-domain-policies',
        'x-xss-protection',
      ];
      for (const response of [
        await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } }),
        await t.app.inject({ method: 'GET', url: '/api/status/1' }),
        await t.app.inject({ method: 'POST', url: '/api/v2/transactions/charge', payload: {} }),
        await t.app.inject({ method: 'GET', url: '/api/no-such-route' }),
      ]) {
        assert.equal(response.headers['x-content-type-options'], 'nosniff', response.body);
        assert.equal(response.headers['cross-origin-resource-policy'], 'same-origin');
        assert.match(String(response.headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/);
        for (const name of documentOnly) assert.equal(response.headers[name], undefined, `${name} on ${response.body.slice(0, 60)}`);
      }
      for (const url of ['/healthz', '/dashboard/login', '/docs']) {
        const page = await t.app.inject({ method: 'GET', url });
        assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin', url);
        assert.equal(page.headers['x-content-type-options'], 'nosniff', url);
        assert.ok(page.headers['x-dns-prefetch-control'] !== undefined, url);
      }
      const production = await productionApp();
      try {
        const response = await production.inject({ method: 'GET', url: '/api/status/1' });
        assert.equal(response.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
      } finally {
        await production.close();
      }
    });

    it('keeps the policies of pages with content of their own: panel, sandbox pages, payrail.js', async () => {
      const login = await t.app.inject({ method: 'GET', url: '/dashboard/login' });
      assert.equal(login.statusCode, 200);
      assert.match(String(login.headers['content-security-policy']), /script-src 'self'/);
      const kycPage = await t.app.inject({ method: 'GET', url: '/sandbox/kyc/254712340001' });
      assert.equal(kycPage.statusCode, 200, kycPage.body);
      assert.match(String(kycPage.headers['content-security-policy']), /style-src 'unsafe-inline'/);
      const script = await t.app.inject({ method: 'GET', url: '/hosted/payrail.js' });
      assert.equal(script.statusCode, 200);
      assert.equal(script.headers['cross-origin-resource-policy'], 'cross-origin', 'merchant pages load it from their own origin');
      assert.equal(script.headers['cache-control'], 'public, max-age=300');
      assert.equal(script.headers['x-frame-options'], undefined, 'framing is ruled by CSP frame-ancestors (the hosted form names its merchant origin)');
    });

    it('serves /docs in the sandbox under its own policy, and in production only when PAYRAIL_DOCS=1', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/docs' });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
      assert.doesNotMatch(String(page.headers['content-security-policy']), /upgrade-insecure-requests/, 'a sandbox on plain HTTP keeps its assets loading');
      const production = await productionApp();
      try {
        const hidden = await production.inject({ method: 'GET', url: '/docs' });
        assert.equal(hidden.statusCode, 404);
        assert.equal((await production.inject({ method: 'GET', url: '/openapi.json' })).statusCode, 200);
      } finally {
        await production.close();
      }
      const enabled = await productionApp({ docs: true });
      try {
        assert.equal((await enabled.inject({ method: 'GET', url: '/docs' })).statusCode, 200);
      } finally {
        await enabled.close();
      }
    });
  });

  describe(`framework refusals in the API envelope (${kind})`, () => {
    let t: TestApp;
    let port = 0;
    before(async () => {
      t = await createTestApp(kind);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      port = typeof address === 'object' && address !== null ? address.port : 0;
    });
    after(async () => {
      await t.close();
    });

    it('answers a URL that does not decode in the envelope of its API', async () => {
      const transfer = await t.app.inject({ method: 'GET', url: '/api/status/%' });
      assert.equal(transfer.statusCode, 400);
      assert.deepEqual(transfer.json(), TRANSFER_INVALID('the URL is not valid (bad percent-encoding)'));
      assert.equal(transfer.headers['cache-control'], 'no-store');
      const payin = await t.app.inject({ method: 'GET', url: '/api/v2/transactions/%zz' });
      assert.equal(payin.statusCode, 400);
      assert.deepEqual(payin.json(), PAYIN_INVALID('the URL is not valid (bad percent-encoding)'));
      const other = await t.app.inject({ method: 'GET', url: '/%' });
      assert.deepEqual(other.json(), SHAPE_C_INVALID('the URL is not valid (bad percent-encoding)'));
    });

    it('answers an over-long path segment in the envelope of its API', async () => {
      const transfer = await t.app.inject({ method: 'GET', url: `/api/status/${'1'.repeat(300)}` });
      assert.equal(transfer.statusCode, 400);
      assert.deepEqual(transfer.json(), TRANSFER_INVALID('a path segment of the URL is too long'));
      const payin = await t.app.inject({ method: 'GET', url: `/api/v2/transactions/${'1'.repeat(300)}` });
      assert.equal(payin.statusCode, 400);
      assert.deepEqual(payin.json(), PAYIN_INVALID('a path segment of the URL is too long'));
    });

    it("answers a request line too long for Node's parser in the envelope of its API, over a real socket", async () => {
      const transfer = await rawGet(port, `/api/status/${'1'.repeat(20_000)}`);
      assert.equal(transfer.status, 400);
      assert.match(String(transfer.headers['content-type']), /^application\/json/);
      assert.equal(transfer.headers['cache-control'], 'no-store');
      assert.deepEqual(JSON.parse(transfer.body), TRANSFER_INVALID('the request line or headers are too large'));
      const payin = await rawGet(port, `/api/v2/transactions/${'1'.repeat(20_000)}`);
      assert.equal(payin.status, 400);
      assert.deepEqual(JSON.parse(payin.body), PAYIN_INVALID('the request line or headers are too large'));
    });
  });
}
