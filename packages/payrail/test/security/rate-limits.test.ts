// Request rate limits (issue 13 finding 1, docs/api-decisions.md section
// 13): per credential and per client address, configurable, counted in the
// store so two processes on it share one limit, answered 429 with
// Retry-After in the envelope of the API called. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/http/app.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Db } from '../../src/store/db.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, basicOf, getTransaction, refusalOfUnknownDialect } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const MINUTE_MS = 60_000;

for (const kind of STORE_KINDS) {
  describe(`rate limits per credential (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_RATE_LIMIT_PER_MIN: '3' } });
    });
    after(async () => {
      await t.close();
    });

    const balance = (app: App, key: string) => app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': key } });

    it('answers 429 with Retry-After past the limit, in each API envelope; other credentials are not affected', async () => {
      t.clock.advance(MINUTE_MS);
      const merchant = await t.newMerchant();
      for (let n = 0; n < 3; n++) assert.equal((await balance(t.app, merchant.transfer_api_key)).statusCode, 200);
      const over = await balance(t.app, merchant.transfer_api_key);
      assert.equal(over.statusCode, 429, over.body);
      assert.deepEqual(Object.keys(over.json()), ['success', 'error']);
      assert.equal(over.json().success, 'false');
      assert.equal(over.json().error.code, 'rate_limited');
      const retryAfterS = Number(over.headers['retry-after']);
      assert.ok(retryAfterS >= 1 && retryAfterS <= 60, String(over.headers['retry-after']));

      for (let n = 0; n < 3; n++) assert.equal((await getTransaction(t.app, basicOf(merchant), 100000001)).statusCode, 404);
      const payin = await getTransaction(t.app, basicOf(merchant), 100000001);
      assert.equal(payin.statusCode, 429, payin.body);
      assert.deepEqual(Object.keys(payin.json()), ['error']);
      assert.equal(payin.json().error.code, 'rate_limited');
      assert.ok(Number(payin.headers['retry-after']) >= 1);

      const other = await t.newMerchant();
      assert.equal((await balance(t.app, other.transfer_api_key)).statusCode, 200);
      t.clock.advance(MINUTE_MS);
      assert.equal((await balance(t.app, merchant.transfer_api_key)).statusCode, 200, 'a new minute, a new allowance');
    });

    it('is one limit for every process on the store', async () => {
      t.clock.advance(MINUTE_MS);
      const merchant = await t.newMerchant();
      const secondDb: Db = await openMigratedDb({ databaseUrl: t.store.env.DATABASE_URL ?? null, dataDir: t.store.dataDir, pgPoolSize: 4 });
      const secondService = await createService(t.service.config, { db: secondDb, clock: t.clock, log: createLogger('silent') });
      const secondApp = await buildApp(secondService);
      try {
        assert.equal((await balance(t.app, merchant.transfer_api_key)).statusCode, 200);
        assert.equal((await balance(secondApp, merchant.transfer_api_key)).statusCode, 200);
        assert.equal((await balance(t.app, merchant.transfer_api_key)).statusCode, 200);
        assert.equal((await balance(secondApp, merchant.transfer_api_key)).statusCode, 429, 'the fourth request, whichever process serves it');
      } finally {
        await secondApp.close();
        await secondDb.close();
      }
    });

    it("requests with a merchant's key id but a wrong secret do not use up that merchant's allowance", async () => {
      t.clock.advance(MINUTE_MS);
      const merchant = await t.newMerchant();
      const key = merchant.source.api_key;
      const forged = basic(`${key.slice(0, -4)}${key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`, merchant.source.pin);
      for (let n = 0; n < 5; n++) assert.equal((await getTransaction(t.app, forged, 100000001)).statusCode, 401);
      assert.equal((await getTransaction(t.app, basicOf(merchant), 100000001)).statusCode, 404);
    });
  });

  describe(`rate limits per client address (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_RATE_LIMIT_PER_ADDRESS_PER_MIN: '4' } });
    });
    after(async () => {
      await t.close();
    });

    it('counts every API request of an address, authenticated or not, and answers 429 past the limit', async () => {
      t.clock.advance(MINUTE_MS);
      const merchant = await t.newMerchant();
      const from = (remoteAddress: string, headers: Record<string, string>) =>
        t.app.inject({ method: 'GET', url: '/api/agent_balance', headers, remoteAddress });
      assert.equal((await from('198.51.100.4', {})).statusCode, 401);
      for (let n = 0; n < 3; n++) assert.equal((await from('198.51.100.4', { 'api-key': merchant.transfer_api_key })).statusCode, 200);
      const over = await from('198.51.100.4', { 'api-key': merchant.transfer_api_key });
      assert.equal(over.statusCode, 429, over.body);
      assert.equal(over.json().error.code, 'rate_limited');
      assert.ok(Number(over.headers['retry-after']) >= 1);
      const payin = await t.app.inject({ method: 'GET', url: '/api/v2/transactions/1', remoteAddress: '198.51.100.4' });
      assert.equal(payin.statusCode, 429);
      assert.deepEqual(Object.keys(payin.json()), Object.keys(refusalOfUnknownDialect('rate_limited', '')));
      assert.equal((await from('198.51.100.5', { 'api-key': merchant.transfer_api_key })).statusCode, 200, 'another address has its own count');
      // The panel and the hosted card form are not API requests.
      assert.notEqual((await t.app.inject({ method: 'GET', url: '/dashboard/login', remoteAddress: '198.51.100.4' })).statusCode, 429);
    });
  });
}
