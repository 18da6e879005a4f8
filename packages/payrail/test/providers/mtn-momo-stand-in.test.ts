// The MTN MoMo stand-in keeps to MoMo's documented behaviour (the contract
// test relies on it): credentials checked on the token endpoint and on every
// call, transfers idempotent on X-Reference-Id (409 on a re-sent one),
// status and its 404, MTN's sandbox rules and test numbers, callbacks with
// their duplicate and out-of-order modes, and the fault switches. Spoken to
// over plain HTTP, as MoMo is.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type MtnMomoStandIn, SANDBOX_NUMBERS, startMtnMomoStandIn } from './mtn-momo/stand-in.ts';

describe('MTN MoMo stand-in', () => {
  let standIn: MtnMomoStandIn;
  let token = '';
  const received: Array<{ status: string; externalId: string }> = [];
  let onCallback: (() => void) | null = null;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString()) as { status: string; externalId: string });
      response.writeHead(200).end();
      onCallback?.();
    });
  });
  let callbackUrl = '';

  const basic = () => `Basic ${Buffer.from(`${standIn.apiUser}:${standIn.apiKey}`).toString('base64')}`;
  const api = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal } = {}) =>
    fetch(`${standIn.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        'ocp-apim-subscription-key': standIn.subscriptionKey,
        authorization: `Bearer ${token}`,
        'x-target-environment': 'sandbox',
        'content-type': 'application/json',
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  const transfer = (msisdn: string, referenceId: string = randomUUID(), headers: Record<string, string> = {}, overrides: Record<string, unknown> = {}) =>
    api('/disbursement/v1_0/transfer', {
      method: 'POST',
      headers: { 'x-reference-id': referenceId, ...headers },
      body: {
        amount: '100',
        currency: 'EUR',
        externalId: 'k1',
        payee: { partyIdType: 'MSISDN', partyId: msisdn },
        payerMessage: 'm',
        payeeNote: 'n',
        ...overrides,
      },
    });
  const statusOf = async (referenceId: string) => (await (await api(`/disbursement/v1_0/transfer/${referenceId}`)).json()) as Record<string, unknown>;

  before(async () => {
    standIn = await startMtnMomoStandIn();
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    callbackUrl = `http://127.0.0.1:${address.port}/callbacks`;
    const answer = await fetch(`${standIn.url}/disbursement/token/`, {
      method: 'POST',
      headers: { authorization: basic(), 'ocp-apim-subscription-key': standIn.subscriptionKey },
    });
    token = ((await answer.json()) as { access_token: string }).access_token;
  });
  after(async () => {
    await standIn.callbacksIdle();
    await standIn.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  test('the token endpoint wants the subscription key and the API user and key', async () => {
    const noKey = await fetch(`${standIn.url}/disbursement/token/`, { method: 'POST', headers: { authorization: basic() } });
    assert.equal(noKey.status, 401);
    const wrong = await fetch(`${standIn.url}/disbursement/token/`, {
      method: 'POST',
      headers: { authorization: 'Basic d3Jvbmc6d3Jvbmc=', 'ocp-apim-subscription-key': standIn.subscriptionKey },
    });
    assert.equal(wrong.status, 401);
    const right = await fetch(`${standIn.url}/disbursement/token/`, {
      method: 'POST',
      headers: { authorization: basic(), 'ocp-apim-subscription-key': standIn.subscriptionKey },
    });
    const body = (await right.json()) as { access_token: string; expires_in: number };
    assert.equal(right.status, 200);
    assert.equal(body.expires_in, 3600);
    assert.ok(body.access_token.length > 10);
  });

  test('calls without a valid bearer token are refused 401', async () => {
    const answer = await api('/disbursement/v1_0/account/balance', { headers: { authorization: 'Bearer nope' } });
    assert.equal(answer.status, 401);
  });

  test('a transfer is answered 202; the same reference again 409 RESOURCE_ALREADY_EXIST, taken once', async () => {
    const referenceId = randomUUID();
    const takenBefore = standIn.transfersTaken();
    assert.equal((await transfer(SANDBOX_NUMBERS.success, referenceId)).status, 202);
    const again = await transfer(SANDBOX_NUMBERS.success, referenceId);
    assert.equal(again.status, 409);
    assert.equal(((await again.json()) as { code: string }).code, 'RESOURCE_ALREADY_EXIST');
    assert.equal(standIn.transfersTaken(), takenBefore + 1);
    const status = await statusOf(referenceId);
    assert.equal(status.status, 'SUCCESSFUL');
    assert.equal(status.externalId, 'k1');
    assert.match(String(status.financialTransactionId), /^\d+$/);
  });

  test('a reference that is no UUID version 4 is refused 400; an unknown one answers 404 on status', async () => {
    assert.equal((await transfer(SANDBOX_NUMBERS.success, 'not-a-uuid')).status, 400);
    const unknown = await api(`/disbursement/v1_0/transfer/${randomUUID()}`);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, 'RESOURCE_NOT_FOUND');
  });

  test('the sandbox takes target environment "sandbox" and currency EUR only (500s, as MoMo documents)', async () => {
    const currency = await transfer(SANDBOX_NUMBERS.success, randomUUID(), {}, { currency: 'UGX' });
    assert.equal(currency.status, 500);
    assert.equal(((await currency.json()) as { code: string }).code, 'INVALID_CURRENCY');
    const target = await transfer(SANDBOX_NUMBERS.success, randomUUID(), { 'x-target-environment': 'mtnuganda' });
    assert.equal(((await target.json()) as { code: string }).code, 'NOT_ALLOWED_TARGET_ENVIRONMENT');
  });

  test("MTN's sandbox numbers end their transfers as published", async () => {
    const expected: Array<[string, string, string | undefined]> = [
      [SANDBOX_NUMBERS.failed, 'FAILED', 'INTERNAL_PROCESSING_ERROR'],
      [SANDBOX_NUMBERS.rejected, 'FAILED', 'APPROVAL_REJECTED'],
      [SANDBOX_NUMBERS.timeout, 'FAILED', 'EXPIRED'],
      [SANDBOX_NUMBERS.success, 'SUCCESSFUL', undefined],
      [SANDBOX_NUMBERS.pending, 'PENDING', undefined],
      ['256772123456', 'SUCCESSFUL', undefined],
    ];
    for (const [msisdn, status, reason] of expected) {
      const referenceId = randomUUID();
      assert.equal((await transfer(msisdn, referenceId)).status, 202);
      const result = await statusOf(referenceId);
      assert.equal(result.status, status, msisdn);
      assert.equal(result.reason, reason, msisdn);
    }
  });

  test('a pending transfer ended later calls back once with its final result', async () => {
    received.length = 0;
    const referenceId = randomUUID();
    await transfer(SANDBOX_NUMBERS.pending, referenceId, { 'x-callback-url': callbackUrl });
    const arrived = new Promise<void>((resolve) => {
      onCallback = resolve;
    });
    standIn.resolve(referenceId, { status: 'SUCCESSFUL' });
    await arrived;
    await standIn.callbacksIdle();
    assert.deepEqual(
      received.map((callback) => callback.status),
      ['SUCCESSFUL'],
    );
    onCallback = null;
  });

  test('callbacks can arrive twice, and a stale PENDING after the final one', async () => {
    received.length = 0;
    standIn.callbackOptions({ duplicate: true, staleAfterFinal: true });
    await transfer(SANDBOX_NUMBERS.failed, randomUUID(), { 'x-callback-url': callbackUrl });
    const three = new Promise<void>((resolve) => {
      onCallback = () => {
        if (received.length === 3) resolve();
      };
    });
    await three;
    standIn.callbackOptions({});
    onCallback = null;
    assert.deepEqual(
      received.map((callback) => callback.status),
      ['FAILED', 'FAILED', 'PENDING'],
    );
  });

  test('fault switches: 503 takes nothing, a dropped connection takes the transfer, a hang never answers', async () => {
    const takenBefore = standIn.transfersTaken();
    standIn.failNext('http-503', 1, 'transfer');
    const unavailable = await transfer(SANDBOX_NUMBERS.success);
    assert.equal(unavailable.status, 503);
    assert.equal(standIn.transfersTaken(), takenBefore);
    standIn.failNext('drop-after-accept');
    const referenceId = randomUUID();
    await assert.rejects(transfer(SANDBOX_NUMBERS.success, referenceId));
    assert.equal(standIn.transfersTaken(), takenBefore + 1);
    assert.equal((await transfer(SANDBOX_NUMBERS.success, referenceId)).status, 409);
    standIn.failNext('hang', 1, 'status');
    const controller = new AbortController();
    const hung = api(`/disbursement/v1_0/transfer/${referenceId}`, { signal: controller.signal });
    // The request reached the stand-in and got no answer: abort it as a client's deadline would.
    const requestsBefore = standIn.requestCount();
    while (standIn.requestCount() === requestsBefore) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await assert.rejects(hung, { name: 'AbortError' });
  });

  test("token-expired refuses the next call's token", async () => {
    standIn.failNext('token-expired', 1, 'status');
    assert.equal((await api('/disbursement/v1_0/account/balance')).status, 401);
  });

  test('as its own process it prints its URL and keys and answers control verbs', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/providers/mtn-momo/stand-in-main.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const info = JSON.parse(line.toString()) as { url: string; controlUrl: string; apiUser: string };
      assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const control = await fetch(`${info.controlUrl}transfers`, { method: 'POST' });
      assert.deepEqual(await control.json(), { transfers: [], taken: 0 });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
