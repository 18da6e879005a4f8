// Brute force of API credentials (issue 13 finding 1, docs/api-decisions.md
// section 13): every failed authentication of an API answers alike; 10 wrong
// PINs in a row lock a source key for 30 minutes (429 with Retry-After),
// also for another server process on the same store, and a right PIN starts
// the count again; the tokenization endpoint answers a Basic header the same
// whatever its PIN, and counts wrong PINs too; failed authentications are
// limited per client address; each failure is logged with the address and
// the credential id, never the secret or the PIN. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueKey } from '../../src/domain/credentials.ts';
import { AUTH_FAILED_MESSAGES } from '../../src/flows/access/authenticate.ts';
import { issuingDeps, revokeSource, type CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { lockedSourceKeys } from '../../src/flows/access/pin-lockouts.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, basicOf, chargeBody, getTransaction, nonceFor, postCharge, refusalOfUnknownDialect } from '../helpers/payin.ts';
import { startServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const LOCK_MS = 30 * 60_000;
const CARD = { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' };

function wrongPinOf(merchant: CreatedMerchant): string {
  return merchant.source.pin === '00000000' ? '11111111' : '00000000';
}

for (const kind of STORE_KINDS) {
  describe(`API credentials resist guessing (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('answers every failed authentication of an API with one message', async () => {
      const merchant = await t.newMerchant();
      const revoked = await t.newMerchant();
      await revokeSource(issuingDeps(t.service), { merchantId: revoked.merchant_id, sourceId: revoked.source.id });
      const key = merchant.source.api_key;
      const wrongSecret = `${key.slice(0, -4)}${key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
      const payinFailures = [
        undefined,
        'Basic !!!',
        `Basic ${Buffer.from(key).toString('base64')}`,
        basic(issueKey('sandbox', 'source_key').key, merchant.source.pin),
        basic(wrongSecret, merchant.source.pin),
        basic(key, wrongPinOf(merchant)),
        basicOf(revoked),
        `Bearer ${issueKey('sandbox', 'tokenization_token').key}`,
      ];
      const bodies = new Set<string>();
      for (const authorization of payinFailures) {
        const headers = authorization === undefined ? {} : { authorization };
        const reply = await t.app.inject({ method: 'GET', url: '/api/v2/transactions/100000001', headers });
        assert.equal(reply.statusCode, 401, `${authorization}: ${reply.body}`);
        bodies.add(reply.body);
      }
      assert.deepEqual([...bodies], [JSON.stringify(refusalOfUnknownDialect('authentication_error', AUTH_FAILED_MESSAGES.payin))]);

      const transferFailures = [
        {},
        { 'api-key': 'nope' },
        { 'api-key': issueKey('sandbox', 'transfer_key').key },
        // The last character changed (to one it is not), so the secret is wrong whatever the key was.
        { 'api-key': `${merchant.transfer_api_key.slice(0, -1)}${merchant.transfer_api_key.endsWith('x') ? 'y' : 'x'}` },
      ];
      const transferBodies = new Set<string>();
      for (const headers of transferFailures) {
        const reply = await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers });
        assert.equal(reply.statusCode, 401, reply.body);
        transferBodies.add(reply.body);
      }
      assert.deepEqual(
        [...transferBodies],
        [JSON.stringify({ success: 'false', error: { message: AUTH_FAILED_MESSAGES.transfer, code: 'authentication_error' } })],
      );
    });

    it('locks a source key after 10 wrong PINs in a row: 429 with Retry-After even for the right PIN, in another server process too', async () => {
      const merchant = await t.newMerchant();
      const wrong = basic(merchant.source.api_key, wrongPinOf(merchant));
      for (let attempt = 1; attempt <= 10; attempt++) {
        const response = await getTransaction(t.app, wrong, 100000001);
        assert.equal(response.statusCode, 401, `attempt ${attempt}: ${response.body}`);
      }
      const eleventh = await getTransaction(t.app, wrong, 100000001);
      assert.equal(eleventh.statusCode, 429, eleventh.body);
      const right = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)));
      assert.equal(right.statusCode, 429, right.body);
      assert.equal(right.json().error.code, 'rate_limited');
      assert.deepEqual(Object.keys(right.json()), Object.keys(refusalOfUnknownDialect('rate_limited', '')));
      assert.equal(right.headers['retry-after'], String(LOCK_MS / 1000));

      const locked = await lockedSourceKeys(t.service, merchant.merchant_id);
      assert.deepEqual(
        locked.map((k) => ({ ...k })),
        [{ credential_id: merchant.source.api_key.split('_')[2], source_id: merchant.source.id, failures: 10, locked_until_ms: t.clock.nowMs() + LOCK_MS }],
      );

      // A second server process on the same store sees the same lock.
      const server = await startServer({ ...t.store.env, PAYRAIL_WORKER: 'off', PAYRAIL_SANDBOX_DELAY_MS: '0' });
      try {
        const response = await fetch(`${server.url}/api/v2/transactions/100000001`, { headers: { authorization: basicOf(merchant) } });
        assert.equal(response.status, 429);
        assert.equal((await response.json()).error.code, 'rate_limited');
        assert.ok(Number(response.headers.get('retry-after')) > 0);
      } finally {
        await server.stop();
      }

      // The lock ends after 30 minutes; then the right PIN works again.
      t.clock.advance(LOCK_MS);
      assert.equal((await getTransaction(t.app, basicOf(merchant), 100000001)).statusCode, 404);
      assert.deepEqual(await lockedSourceKeys(t.service, merchant.merchant_id), []);
    });

    it('finding 5: of 60 guesses sent at once, at most the limit of wrong PINs are answered as evaluated; the answers fit one order of the attempts', async () => {
      const merchant = await t.newMerchant();
      const wrong = basic(merchant.source.api_key, wrongPinOf(merchant));
      const guess = (index: number) =>
        t.app.inject({
          method: 'GET',
          url: '/api/v2/transactions/100000001',
          // Each from its own address, so only the key's count limits them.
          remoteAddress: `198.18.${Math.floor(index / 250)}.${(index % 250) + 1}`,
          headers: { authorization: index === 49 ? basicOf(merchant) : wrong },
        });
      const answers = await Promise.all(Array.from({ length: 60 }, (_, index) => guess(index)));
      const codes = answers.map((a) => a.statusCode).join(' ');
      // Every answer is one the attempts could get one after the other: the
      // right PIN authenticates only if the store settled it before the tenth
      // wrong one (then it counts as the first, and ten wrong ones follow it).
      assert.ok(answers.filter((a) => a.statusCode === 401).length <= 10, codes);
      assert.ok([404, 429].includes(answers[49]!.statusCode), codes);
      assert.equal(answers.filter((a, index) => index !== 49 && a.statusCode !== 401 && a.statusCode !== 429).length, 0, codes);
      assert.equal((await getTransaction(t.app, basicOf(merchant), 100000001)).statusCode, 429, 'the key is locked');
      // Guessing on while it is locked, the right PIN among the guesses, evaluates none.
      const more = await Promise.all(Array.from({ length: 20 }, (_, index) => guess(index + 40)));
      assert.deepEqual(new Set(more.map((a) => a.statusCode)), new Set([429]));
    });

    it('finding 5: after 9 wrong PINs, 20 concurrent guesses get one evaluation between them', async () => {
      const merchant = await t.newMerchant();
      const wrong = basic(merchant.source.api_key, wrongPinOf(merchant));
      for (let attempt = 1; attempt <= 9; attempt++) assert.equal((await getTransaction(t.app, wrong, 1)).statusCode, 401);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          t.app.inject({ method: 'GET', url: '/api/v2/transactions/1', remoteAddress: `198.19.7.${index + 1}`, headers: { authorization: wrong } }),
        ),
      );
      assert.equal(answers.filter((a) => a.statusCode === 401).length, 1, answers.map((a) => a.statusCode).join(' '));
      assert.equal(answers.filter((a) => a.statusCode === 429).length, 19);
    });

    it('a right PIN starts the count again', async () => {
      const merchant = await t.newMerchant();
      const wrong = basic(merchant.source.api_key, wrongPinOf(merchant));
      for (let round = 0; round < 2; round++) {
        for (let attempt = 0; attempt < 9; attempt++) assert.equal((await getTransaction(t.app, wrong, 1)).statusCode, 401);
        assert.equal((await getTransaction(t.app, basicOf(merchant), 100000001)).statusCode, 404, 'the right PIN passes');
      }
      assert.equal((await getTransaction(t.app, wrong, 1)).statusCode, 401, 'a tenth wrong PIN that is not the tenth in a row does not lock');
    });

    it('the tokenization endpoint answers a Basic header alike for a right and a wrong PIN, and counts the wrong ones', async () => {
      const merchant = await t.newMerchant();
      const tokenize = (authorization: string) => t.app.inject({ method: 'POST', url: '/api/v2/tokens', headers: { authorization }, payload: CARD });
      const right = await tokenize(basicOf(merchant));
      const answers = new Set<string>([`${right.statusCode} ${right.body}`]);
      for (let attempt = 0; attempt < 10; attempt++) {
        const wrong = await tokenize(basic(merchant.source.api_key, wrongPinOf(merchant)));
        answers.add(`${wrong.statusCode} ${wrong.body}`);
      }
      // And once locked it answers the same again: no oracle for the PIN here.
      const afterLock = await tokenize(basicOf(merchant));
      answers.add(`${afterLock.statusCode} ${afterLock.body}`);
      assert.deepEqual(
        [...answers],
        [
          `403 ${JSON.stringify(refusalOfUnknownDialect('permission_denied', 'only a tokenization token can tokenize cards (Authorization: Bearer <tokenization token>)'))}`,
        ],
      );
      const charge = await getTransaction(t.app, basicOf(merchant), 100000001);
      assert.equal(charge.statusCode, 429, 'wrong PINs sent to the tokenization endpoint lock the key');
    });

    it('logs each failure with the client address and the credential id, never the secret or the PIN', async () => {
      const merchant = await t.newMerchant();
      const before = t.logLines.length;
      await getTransaction(t.app, basic(merchant.source.api_key, wrongPinOf(merchant)), 1);
      const lines = t.logLines.slice(before).join('');
      const failure = t.logLines
        .slice(before)
        .map((line) => JSON.parse(line) as { msg: string; auth?: Record<string, unknown> })
        .find((line) => line.msg === 'authentication failed');
      assert.deepEqual(failure?.auth, {
        api: 'payin',
        reason: 'wrong_pin',
        status: 401,
        credential_id: merchant.source.api_key.split('_')[2],
        client_address: '127.0.0.1',
      });
      assert.ok(!lines.includes(merchant.source.api_key.split('_')[3]!), 'the secret is not logged');
      assert.ok(!lines.includes(wrongPinOf(merchant)), 'the PIN is not logged');
    });
  });

  describe(`failed authentications are limited per client address (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { env: { PAYRAIL_AUTH_FAILURES_PER_ADDRESS: '3' } });
    });
    after(async () => {
      await t.close();
    });

    it('refuses an address that failed too often, whatever it sends, in each API envelope, for 15 minutes', async () => {
      const merchant = await t.newMerchant();
      for (let attempt = 0; attempt < 3; attempt++) {
        assert.equal((await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': 'nope' } })).statusCode, 401);
      }
      const transfer = await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } });
      assert.equal(transfer.statusCode, 429, transfer.body);
      assert.equal(transfer.json().success, 'false');
      assert.equal(transfer.json().error.code, 'rate_limited');
      assert.equal(transfer.headers['retry-after'], String(15 * 60));
      const payin = await getTransaction(t.app, basicOf(merchant), 100000001);
      assert.equal(payin.statusCode, 429, payin.body);
      assert.deepEqual(Object.keys(payin.json()), Object.keys(refusalOfUnknownDialect('rate_limited', '')));
      assert.equal(payin.json().error.code, 'rate_limited');
      // Another address is not affected.
      const elsewhere = await t.app.inject({
        method: 'GET',
        url: '/api/agent_balance',
        headers: { 'api-key': merchant.transfer_api_key },
        remoteAddress: '192.0.2.7',
      });
      assert.equal(elsewhere.statusCode, 200, elsewhere.body);

      t.clock.advance(15 * 60_000);
      const later = await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } });
      assert.equal(later.statusCode, 200, later.body);
    });
  });
}
