// The transfer API methods against recorded answers: exactly what is sent
// (headers, paths, bodies) and what the caller gets back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayrailError, type TransferStatus } from '../src/index.ts';
import { balance, check, executed, failure, kyc, status, statusUnknown } from './fixtures.ts';
import { KEYS } from './fixtures.ts';
import { BASE_URL, KE_TRANSFER, clientWith } from './helpers.ts';

async function rejection(promise: Promise<unknown>): Promise<PayrailError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PayrailError, String(error));
    return error;
  }
  assert.fail('expected a PayrailError');
}

const SENT_BODY = {
  id: '1001',
  sender_phone: '+15555550123',
  receiver_phone: '+254712345678',
  amount: '10.00',
  service: '1001',
  receiver_country: 'KE',
  receiver_currency: 'KES',
  attribute: [],
};

describe('balance', () => {
  it('sends API-KEY and returns cents with available = balance + overdraft', async () => {
    const { client, fake } = clientWith([{ status: 200, body: balance(125_000, 50_000), expect: { method: 'GET', path: '/api/agent_balance' } }]);
    assert.deepEqual(await client.balance(), { balance_cents: 125_000, overdraft_cents: 50_000, available_cents: 175_000 });
    assert.equal(fake.sent[0]!.url, `${BASE_URL}/api/agent_balance`);
    assert.deepEqual(fake.sent[0]!.headers, { accept: 'application/json', 'api-key': KEYS.transfer });
    assert.equal(fake.sent[0]!.body, undefined);
    fake.done();
  });

  it('throws authentication_error with status and message', async () => {
    const { client } = clientWith([{ status: 401, body: failure('authentication_error', 'invalid API-KEY') }]);
    const error = await rejection(client.balance());
    assert.deepEqual([error.code, error.status, error.message], ['authentication_error', 401, 'invalid API-KEY']);
  });

  it('needs an api_key', async () => {
    const { client } = clientWith([], { api_key: undefined });
    const error = await rejection(client.balance());
    assert.deepEqual([error.code, error.status], ['missing_credentials', 0]);
  });
});

describe('kyc', () => {
  it('looks up E.164 digits without + and reads the limit in cents', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: kyc(false, '100.00', 'https://sandbox.payrail.test/kyc/abc'), expect: { method: 'GET', path: '/api/kyc/254712340002' } },
    ]);
    assert.deepEqual(await client.kyc('+254 712 340002'), {
      account: '254712340002',
      registered: true,
      verified: false,
      money_limit_cents: 10_000,
      money_limit: '100.00',
      kyc_url: 'https://sandbox.payrail.test/kyc/abc',
    });
    fake.done();
  });

  it('turns a national number into E.164 digits with the country', async () => {
    const { client, fake } = clientWith([{ status: 200, body: kyc(true, '3000.00', ''), expect: { method: 'GET', path: '/api/kyc/254712345678' } }]);
    const result = await client.kyc('0712345678', { country: 'KE' });
    assert.deepEqual([result.verified, result.money_limit_cents, result.kyc_url], [true, 300_000, null]);
    fake.done();
  });

  it('reports a receiver new to the network (account_not_found) as registered: false', async () => {
    const { client } = clientWith([{ status: 404, body: failure('account_not_found', 'no account 254712340003') }]);
    assert.deepEqual(await client.kyc('254712340003'), {
      account: '254712340003',
      registered: false,
      verified: false,
      money_limit_cents: 0,
      money_limit: '0',
      kyc_url: null,
    });
  });

  it('throws invalid_phone_number from the server', async () => {
    const { client } = clientWith([{ status: 400, body: failure('invalid_phone_number', 'account is not a valid mobile number') }]);
    const error = await rejection(client.kyc('12'));
    assert.deepEqual([error.code, error.status], ['invalid_phone_number', 400]);
  });
});

describe('check', () => {
  it('posts the transfer with the amount as a decimal string and reads the quote', async () => {
    const { client, fake } = clientWith([{ status: 200, body: check('unregistered'), expect: { method: 'POST', path: '/api/checkTransfer' } }]);
    const result = await client.check({ ...KE_TRANSFER, amount: undefined, amount_cents: 1000 });
    assert.deepEqual(result, {
      fx_rate: '129.25',
      received_amount: '1292.50',
      receiver_status: 'unregistered',
      attributes: { fx_rate: '129.25', receivedAmount: '1292.50', receiverStatus: 'unregistered' },
    });
    assert.deepEqual(JSON.parse(fake.sent[0]!.body!), SENT_BODY);
    assert.equal(fake.sent[0]!.headers['content-type'], 'application/json');
    fake.done();
  });

  it('sends attributes given as a map and gateway_id as the gatewayId attribute', async () => {
    const { client, fake } = clientWith([{ status: 200, body: check() }]);
    await client.check({ ...KE_TRANSFER, attributes: { receiverName: 'Jane Doe' }, gateway_id: 4242 });
    assert.deepEqual(JSON.parse(fake.sent[0]!.body!).attribute, [
      { name: 'receiverName', value: 'Jane Doe' },
      { name: 'gatewayId', value: '4242' },
    ]);
  });

  it("sends approvely_id as the approvelyId attribute (CashQ's name of gatewayId)", async () => {
    const { client, fake } = clientWith([{ status: 200, body: check() }]);
    await client.check({ ...KE_TRANSFER, approvely_id: 4242 });
    assert.deepEqual(JSON.parse(fake.sent[0]!.body!).attribute, [{ name: 'approvelyId', value: '4242' }]);
    const bad = clientWith([]);
    assert.equal((await rejection(bad.client.check({ ...KE_TRANSFER, approvely_id: '42x' }))).code, 'invalid_request');
    const differ = { ...KE_TRANSFER, attributes: [{ name: 'approvelyId', value: '1' }], approvely_id: '2' };
    assert.equal((await rejection(bad.client.check(differ))).code, 'invalid_request');
    assert.equal(bad.fake.sent.length, 0);
  });

  it('throws service_unavailable (503) as retryable, retrying it first like a server failure', async () => {
    const unavailable = failure('service_unavailable', 'the FX provider (KES rate) did not answer; nothing was written; retry');
    const { client, fake } = clientWith(
      [
        { status: 503, body: unavailable },
        { status: 200, body: check() },
      ],
      { max_retries: 1 },
    );
    assert.equal((await client.check(KE_TRANSFER)).fx_rate, '129.25');
    assert.equal(fake.sent.length, 2);
    const once = clientWith([{ status: 503, body: unavailable }], { max_retries: 0 });
    const error = await rejection(once.client.check(KE_TRANSFER));
    assert.deepEqual([error.code, error.status, error.retryable], ['service_unavailable', 503, true]);
  });

  it('refuses bad input before any request', async () => {
    const { client, fake } = clientWith([]);
    assert.deepEqual([(await rejection(client.check({ ...KE_TRANSFER, id: 'abc' }))).code, fake.sent.length], ['invalid_request', 0]);
    assert.equal((await rejection(client.check({ ...KE_TRANSFER, amount: 10 as unknown as string }))).code, 'invalid_amount');
    assert.equal((await rejection(client.check({ ...KE_TRANSFER, receiver_phone: 'call me' }))).code, 'invalid_phone_number');
    assert.equal((await rejection(client.check({ ...KE_TRANSFER, gateway_id: 'x1' }))).code, 'invalid_request');
    assert.equal((await rejection(client.check({ ...KE_TRANSFER, attributes: [{ name: 'gatewayId', value: '1' }], gateway_id: '2' }))).code, 'invalid_request');
    assert.equal(fake.sent.length, 0);
  });

  it('throws kyc_not_verified as the server reports it', async () => {
    const { client } = clientWith([{ status: 400, body: failure('kyc_not_verified', 'receiver limit is 100.00') }]);
    const error = await rejection(client.check(KE_TRANSFER));
    assert.deepEqual([error.code, error.status, error.message], ['kyc_not_verified', 400, 'receiver limit is 100.00']);
  });
});

describe('execute', () => {
  it('reads the created transfer, whose numbers arrive as strings', async () => {
    const { client, fake } = clientWith([{ status: 200, body: executed('1001'), expect: { method: 'POST', path: '/api/transfer' } }]);
    const result = await client.execute(KE_TRANSFER);
    assert.deepEqual(result, {
      id: '1001',
      state: 0,
      substate: 0,
      code: 0,
      final: false,
      outcome: 'new',
      waiting_for: null,
      invitation_url: null,
      gateway_id: null,
      provider_error: null,
      attributes: {},
      payment_id: null,
      server_time: null,
      trans: null,
      sum_prov: null,
      resolved_by_status: false,
    });
    assert.deepEqual(JSON.parse(fake.sent[0]!.body!), SENT_BODY);
    fake.done();
  });

  it('throws duplicate_transfer when the first attempt is refused: the id was used before', async () => {
    const { client, fake } = clientWith([{ status: 400, body: failure('duplicate_transfer', 'transfer id 1001 already used') }]);
    const error = await rejection(client.execute(KE_TRANSFER));
    assert.deepEqual([error.code, error.status], ['duplicate_transfer', 400]);
    fake.done();
  });

  it('after a network error, a retry answered duplicate_transfer resolves through status, sending once', async () => {
    const { client, fake, time } = clientWith([
      { network: 'socket hang up', expect: { method: 'POST', path: '/api/transfer' } },
      { status: 400, body: failure('duplicate_transfer', 'transfer id 1001 already used'), expect: { method: 'POST', path: '/api/transfer' } },
      { status: 200, body: status('1001', 40, 1, 0), expect: { method: 'GET', path: '/api/status/1001' } },
    ]);
    const result = await client.execute(KE_TRANSFER);
    assert.deepEqual([result.id, result.state, result.outcome, result.resolved_by_status], ['1001', 40, 'processing', true]);
    assert.deepEqual(time.sleeps, [500]);
    // The same body both times: a retry is the same request, never a new transfer.
    assert.equal(fake.sent[0]!.body, fake.sent[1]!.body);
    fake.done();
  });

  it('after internal_server_error, a retry refused for funds the first attempt took also resolves through status', async () => {
    const { client, fake } = clientWith([
      { status: 500, body: failure('internal_server_error', 'Server error; retry') },
      { status: 400, body: failure('insufficient_funds', 'balance too low') },
      { status: 200, body: status('1001', 60, 0, 1) },
    ]);
    const result = await client.execute(KE_TRANSFER);
    assert.deepEqual([result.outcome, result.final, result.resolved_by_status, result.trans], ['succeeded', true, true, 'T123']);
    fake.done();
  });

  it('after a retry, a refusal for a transfer that does not exist is thrown as is', async () => {
    const { client, fake } = clientWith([
      { network: 'ECONNRESET' },
      { status: 400, body: failure('insufficient_funds', 'balance too low') },
      { status: 200, body: statusUnknown('1001') },
    ]);
    const error = await rejection(client.execute(KE_TRANSFER));
    assert.deepEqual([error.code, error.status], ['insufficient_funds', 400]);
    fake.done();
  });

  it('gives up after max_retries further attempts, with growing waits', async () => {
    const { client, fake, time } = clientWith(
      [{ network: 'ECONNREFUSED' }, { network: 'ECONNREFUSED' }, { network: 'ECONNREFUSED' }, { network: 'ECONNREFUSED' }],
      { max_retries: 3, retry_delay_ms: 100 },
    );
    const error = await rejection(client.execute(KE_TRANSFER));
    assert.deepEqual([error.code, error.status, error.retryable], ['network_error', 0, true]);
    assert.equal(error.message, 'POST https://sandbox.payrail.test/api/transfer failed after 4 attempts: ECONNREFUSED');
    assert.deepEqual(time.sleeps, [100, 200, 400]);
    fake.done();
  });
});

describe('status', () => {
  it('reads the status shape', async () => {
    const { client, fake } = clientWith([
      {
        status: 200,
        body: status('1001', 80, 5, 1, [
          { name: 'provider-error-text', value: 'Receiver wallet is blocked' },
          { name: 'provider-error-code', value: 'W05' },
        ]),
        expect: { method: 'GET', path: '/api/status/1001' },
      },
    ]);
    const expected: TransferStatus = {
      id: '1001',
      state: 80,
      substate: 5,
      code: 0,
      final: true,
      outcome: 'failed',
      waiting_for: null,
      invitation_url: null,
      gateway_id: null,
      provider_error: { text: 'Receiver wallet is blocked', code: 'W05' },
      attributes: { 'provider-error-text': 'Receiver wallet is blocked', 'provider-error-code': 'W05' },
      payment_id: null,
      server_time: '2026-01-01T00:00:05.000Z',
      trans: null,
      sum_prov: null,
    };
    assert.deepEqual(await client.status('1001'), expected);
    fake.done();
  });

  it('reads an unknown id in execute\'s shape (state "-2") as not_found, final', async () => {
    const { client } = clientWith([{ status: 200, body: statusUnknown('999') }]);
    const result = await client.status('999');
    assert.deepEqual([result.id, result.state, result.final, result.outcome], ['999', -2, true, 'not_found']);
  });

  it('reads a transfer_not_found error as not_found too', async () => {
    const { client } = clientWith([{ status: 404, body: failure('transfer_not_found', 'no transfer 999') }]);
    const result = await client.status('999');
    assert.deepEqual([result.id, result.state, result.final, result.outcome], ['999', -2, true, 'not_found']);
  });

  it('names why a waiting transfer waits', async () => {
    const { client } = clientWith([{ status: 200, body: status('1001', 0, 9, 0, [{ name: 'waitingFor', value: 'invitation' }]) }]);
    const result = await client.status('1001');
    assert.deepEqual([result.outcome, result.waiting_for, result.final], ['waiting', 'invitation', false]);
  });

  it('retries internal_server_error and network errors, then answers', async () => {
    const { client, fake, time } = clientWith([
      { status: 500, body: failure('internal_server_error', 'Server error; retry') },
      { network: 'ETIMEDOUT' },
      { status: 200, body: status('1001', 40, 1, 0) },
    ]);
    assert.equal((await client.status('1001')).outcome, 'processing');
    assert.deepEqual(time.sleeps, [500, 1000]);
    fake.done();
  });

  it('does not retry a 4xx answer', async () => {
    const { client, fake } = clientWith([{ status: 400, body: failure('invalid_request', 'id must be digits') }]);
    await rejection(client.status('1001'));
    fake.done();
  });

  it('refuses an id that is not digits before sending', async () => {
    const { client, fake } = clientWith([]);
    assert.equal((await rejection(client.status('../agent_balance'))).code, 'invalid_request');
    assert.equal(fake.sent.length, 0);
  });
});

describe('waitForFinal', () => {
  it('polls after about 1 s, then x1.5 each time up to 10 s apart, until final', async () => {
    const script = [0, 0, 0, 0, 0, 0, 0, 0].map(() => ({ status: 200, body: status('1001', 40, 1, 0) }));
    const { client, fake, time } = clientWith([...script, { status: 200, body: status('1001', 60, 0, 1) }]);
    const result = await client.waitForFinal('1001');
    assert.deepEqual([result.outcome, result.final], ['succeeded', true]);
    assert.deepEqual(time.sleeps, [1000, 1500, 2250, 3375, 5063, 7595, 10000, 10000, 10000]);
    fake.done();
  });

  it('bounds the total wait and throws wait_timeout naming the last state', async () => {
    const script = Array.from({ length: 4 }, () => ({ status: 200, body: status('1001', 40, 1, 0) }));
    const { client, fake, time } = clientWith(script);
    const error = await rejection(client.waitForFinal('1001', { timeout_ms: 5000 }));
    assert.deepEqual([error.code, error.status], ['wait_timeout', 0]);
    assert.equal(error.message, 'transfer 1001 is not final after 5000 ms (state 40, substate 1)');
    // 1000 + 1500 + 2250 = 4750, then the last 250 ms up to the deadline.
    assert.deepEqual(time.sleeps, [1000, 1500, 2250, 250]);
    fake.done();
  });

  it('returns at once for an unknown id (final by the specification)', async () => {
    const { client, fake } = clientWith([{ status: 200, body: statusUnknown('77') }]);
    assert.equal((await client.waitForFinal('77')).outcome, 'not_found');
    fake.done();
  });

  it('refuses an unbounded or negative timeout', async () => {
    const { client } = clientWith([]);
    assert.equal((await rejection(client.waitForFinal('1', { timeout_ms: -1 }))).code, 'invalid_request');
    assert.equal((await rejection(client.waitForFinal('1', { timeout_ms: Infinity }))).code, 'invalid_request');
  });
});

describe('sandbox', () => {
  it('accepts an invitation and completes KYC on the E.164 digits of the receiver', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: { success: true, error: '' }, expect: { method: 'POST', path: '/sandbox/invitations/254712340003/accept' } },
      { status: 200, body: { success: true, error: '' }, expect: { method: 'POST', path: '/sandbox/kyc/254712340002/verify' } },
    ]);
    await client.sandbox.acceptInvitation('0712340003', { country: 'KE' });
    await client.sandbox.completeKyc('+254712340002');
    assert.deepEqual(
      fake.sent.map((s) => s.body),
      [undefined, undefined],
    );
    fake.done();
  });

  it('throws what a production server answers', async () => {
    const { client } = clientWith([{ status: 404, body: failure('not_found', 'This call exists in the sandbox only') }]);
    await assert.rejects(client.sandbox.completeKyc('+254712340002'), { code: 'not_found', status: 404 });
  });
});
