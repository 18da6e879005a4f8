// `payrail serve` as a newcomer meets it: the first start seeds a funded demo
// merchant and prints working credentials; later starts do not reseed;
// SIGTERM shuts down cleanly.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { tempDir } from '../helpers/stores.ts';
import { startServer } from '../helpers/server.ts';

describe('payrail serve', () => {
  const dataDir = tempDir();
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let transferKey = '';

  it('seeds a demo merchant on first start and prints a working curl', async () => {
    const server = await startServer({ PAYRAIL_DATA_DIR: dataDir });
    try {
      const out = server.stdout();
      const key = /transfer API key +(sbx_tk_\S+)/.exec(out)?.[1];
      assert.ok(key, out);
      transferKey = key;
      assert.match(out, /source API key +sbx_sk_\S+/);
      assert.match(out, /source PIN +\d{8}/);
      assert.match(out, /tokenization token +sbx_pt_\S+/);
      assert.ok(out.includes(`curl -H "API-KEY: ${key}" http://127.0.0.1:${server.port}/api/agent_balance`));
      const response = await fetch(`${server.url}/api/agent_balance`, { headers: { 'API-KEY': key } });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { success: true, error: '', balance: { balance: 1_000_000, overdraft: 0 } });
      assert.equal(response.headers.get('x-request-id')?.startsWith('req_'), true);
      const ready = await fetch(`${server.url}/readyz`);
      assert.deepEqual(await ready.json(), { status: 'ready', environment: 'sandbox', store: 'sqlite' });
    } finally {
      assert.equal(await server.stop(), 0, 'SIGTERM exits cleanly');
    }
    assert.match(server.stdout(), /shutting down/);
  });

  it('does not reseed on a later start, and the credentials still work', async () => {
    const server = await startServer({ PAYRAIL_DATA_DIR: dataDir });
    try {
      assert.doesNotMatch(server.stdout(), /demo merchant/);
      const response = await fetch(`${server.url}/api/agent_balance`, { headers: { 'API-KEY': transferKey, 'X-Request-Id': 'my-trace-1' } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-request-id'), 'my-trace-1');
    } finally {
      await server.stop();
    }
    assert.ok(!server.stdout().includes(transferKey), 'secrets are never logged');
  });

  it('answers malformed and oversized bodies in the API envelope, never 500', async () => {
    const server = await startServer({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_BODY_LIMIT_BYTES: '2048' });
    try {
      const headers = { 'content-type': 'application/json', 'api-key': transferKey };
      const malformed = await fetch(`${server.url}/api/checkTransfer`, { method: 'POST', headers, body: '{"id":' });
      assert.equal(malformed.status, 400);
      assert.deepEqual(await malformed.json(), { success: 'false', error: { message: 'request body is not valid JSON', code: 'invalid_request' } });
      const big = await fetch(`${server.url}/api/checkTransfer`, { method: 'POST', headers, body: JSON.stringify({ pad: 'x'.repeat(5000) }) });
      // The specification lists no 413; an oversized body is an invalid request (400).
      assert.equal(big.status, 400);
      assert.deepEqual(await big.json(), { success: 'false', error: { message: 'Request body too large', code: 'invalid_request' } });
    } finally {
      await server.stop();
    }
  });
});
