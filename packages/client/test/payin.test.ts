// The card payin methods against recorded answers: the three charge shapes,
// the automatic Idempotency-Key and its reuse by retries, and tokenization.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { billing, chargeApproved, chargeDeclined, KEYS, nonce, rejected } from './fixtures.ts';
import { clientWith } from './helpers.ts';

const CHARGE = { amount: '25.50', source: 'nonce-abc123', expiry_month: 12, expiry_year: 2030, billing_info: billing };
const BASIC = `Basic ${Buffer.from(`${KEYS.source}:${KEYS.pin}`).toString('base64')}`;

describe('charge', () => {
  it('posts shape 2.1 with Basic auth, the amount as a JSON number and an Idempotency-Key; reads shape A', async () => {
    const { client, fake } = clientWith([{ status: 200, body: chargeApproved(4242, 25.5), expect: { method: 'POST', path: '/api/v2/transactions/charge' } }], {
      idempotency_key: () => 'key-1',
    });
    const result = await client.charge({ ...CHARGE, transaction_details: { order_number: 'A-1' } });
    const { raw, ...rest } = result;
    assert.deepEqual(rest, {
      reference_number: '4242',
      status: 'approved',
      amount_cents: 2550,
      currency: 'USD',
      card_type: 'Visa',
      last_4: '1111',
      auth_code: 'A1B2C3',
      avs_result_code: 'Y',
      cvv2_result_code: 'M',
      error: null,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    assert.deepEqual(raw, chargeApproved(4242, 25.5));
    const sent = fake.sent[0]!;
    assert.deepEqual(sent.headers, { accept: 'application/json', authorization: BASIC, 'idempotency-key': 'key-1', 'content-type': 'application/json' });
    assert.equal(
      sent.body,
      JSON.stringify({
        amount: 25.5,
        source: 'nonce-abc123',
        expiry_month: 12,
        expiry_year: 2030,
        billing_info: billing,
        transaction_details: { order_number: 'A-1' },
      }),
    );
    assert.match(sent.body!, /^\{"amount":25.5,/);
    fake.done();
  });

  it('writes cents as exact dollar text', async () => {
    const { client, fake } = clientWith([{ status: 200, body: chargeApproved(1, 0.29) }]);
    assert.equal((await client.charge({ ...CHARGE, amount: undefined, amount_cents: 29 })).amount_cents, 29);
    assert.match(fake.sent[0]!.body!, /^\{"amount":0.29,/);
  });

  it("makes a fresh Idempotency-Key per call and reuses it for that call's retries", async () => {
    const { client, fake } = clientWith([
      { network: 'ECONNRESET' },
      { status: 500, body: rejected('internal_server_error', 'Server error; retry') },
      { status: 200, body: chargeApproved(7, 25.5) },
      { status: 200, body: chargeApproved(8, 25.5) },
    ]);
    await client.charge(CHARGE);
    await client.charge(CHARGE);
    const keys = fake.sent.map((s) => s.headers['idempotency-key']);
    assert.equal(keys[0], keys[1]);
    assert.equal(keys[1], keys[2]);
    assert.notEqual(keys[2], keys[3]);
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
    fake.done();
  });

  it("sends the caller's idempotency_key", async () => {
    const { client, fake } = clientWith([{ status: 200, body: chargeApproved(7, 25.5) }]);
    await client.charge({ ...CHARGE, idempotency_key: 'order-77' });
    assert.equal(fake.sent[0]!.headers['idempotency-key'], 'order-77');
  });

  it('returns a decline (shape B) as a result carrying its reason', async () => {
    const { client } = clientWith([{ status: 200, body: chargeDeclined(4243, 25.5, 'insufficient_funds', 'Card lacks funds') }]);
    const { raw: _raw, ...result } = await client.charge(CHARGE);
    assert.deepEqual(result, {
      reference_number: '4243',
      status: 'declined',
      amount_cents: 2550,
      currency: 'USD',
      card_type: 'Visa',
      last_4: '0002',
      auth_code: null,
      avs_result_code: null,
      cvv2_result_code: null,
      error: { code: 'insufficient_funds', message: 'Card lacks funds' },
      created_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('reads a failed charge (shape B) and a pending one (shape A, "Pending"/"P")', async () => {
    const { client } = clientWith([
      { status: 200, body: chargeDeclined(5, 1, 'processor_error', 'Processor unavailable', 'failed') },
      { status: 200, body: chargeApproved(6, 1, 'Pending', 'P') },
    ]);
    assert.equal((await client.charge(CHARGE)).status, 'failed');
    assert.equal((await client.charge(CHARGE)).status, 'pending');
  });

  it('throws a rejected request (shape C) and does not retry it', async () => {
    const { client, fake } = clientWith([{ status: 400, body: rejected('invalid_nonce', 'nonce already used') }]);
    await assert.rejects(client.charge(CHARGE), { name: 'PayrailError', code: 'invalid_nonce', status: 400, message: 'nonce already used' });
    fake.done();
  });

  it('throws idempotency_key_reused', async () => {
    const { client } = clientWith([{ status: 400, body: rejected('idempotency_key_reused', 'This Idempotency-Key was used with another request body') }]);
    await assert.rejects(client.charge({ ...CHARGE, idempotency_key: 'k' }), { code: 'idempotency_key_reused', status: 400 });
  });

  it('refuses a float amount and missing credentials before sending', async () => {
    const { client, fake } = clientWith([]);
    await assert.rejects(client.charge({ ...CHARGE, amount: 25.5 as unknown as string }), { code: 'invalid_amount', status: 0 });
    const { client: noKeys } = clientWith([], { payin: {} });
    await assert.rejects(noKeys.charge(CHARGE), { code: 'missing_credentials', status: 0 });
    assert.equal(fake.sent.length, 0);
  });

  it('uses payin.base_url when given', async () => {
    const { client, fake } = clientWith([{ status: 200, body: chargeApproved(1, 25.5) }], {
      payin: { api_key: KEYS.source, pin: KEYS.pin, base_url: 'https://payin.payrail.test/' },
    });
    await client.charge(CHARGE);
    assert.equal(fake.sent[0]!.url, 'https://payin.payrail.test/api/v2/transactions/charge');
  });
});

describe('getCharge', () => {
  it('reads a charge by reference number', async () => {
    const { client, fake } = clientWith([{ status: 200, body: chargeApproved(4242, 25.5), expect: { method: 'GET', path: '/api/v2/transactions/4242' } }]);
    const result = await client.getCharge(4242);
    assert.deepEqual([result.reference_number, result.status], ['4242', 'approved']);
    assert.equal(fake.sent[0]!.headers.authorization, BASIC);
    fake.done();
  });

  it('throws not_found (404)', async () => {
    const { client } = clientWith([{ status: 404, body: rejected('not_found', 'no charge 9') }]);
    await assert.rejects(client.getCharge('9'), { code: 'not_found', status: 404 });
  });

  it('refuses a reference that is not digits', async () => {
    const { client } = clientWith([]);
    await assert.rejects(client.getCharge('4242/../../x'), { code: 'invalid_request', status: 0 });
  });
});

describe('tokenize', () => {
  const CARD = { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv2: '123' };

  it('posts the card with the tokenization token as Bearer', async () => {
    const { client, fake } = clientWith([{ status: 200, body: nonce, expect: { method: 'POST', path: '/api/v2/tokens' } }]);
    assert.deepEqual(await client.tokenize(CARD), nonce);
    assert.equal(fake.sent[0]!.headers.authorization, `Bearer ${KEYS.tokenization}`);
    assert.deepEqual(JSON.parse(fake.sent[0]!.body!), CARD);
    fake.done();
  });

  it('throws invalid_card', async () => {
    const { client } = clientWith([{ status: 400, body: rejected('invalid_card', 'card_number fails the Luhn check') }]);
    await assert.rejects(client.tokenize({ ...CARD, card_number: '4111111111111112' }), { code: 'invalid_card', status: 400 });
  });

  it('refuses a production tokenization token: production cards are tokenized in the browser', async () => {
    const { client, fake } = clientWith([], { payin: { tokenization_token: 'live_pt_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' } });
    await assert.rejects(client.tokenize(CARD), { code: 'invalid_request', status: 0 });
    assert.equal(fake.sent.length, 0);
  });
});

describe('options', () => {
  it('refuses a base_url that is not http(s) and unbounded retries', () => {
    assert.throws(() => clientWith([], { base_url: 'ftp://x' }), { code: 'invalid_request' });
    assert.throws(() => clientWith([], { max_retries: 11 }), { code: 'invalid_request' });
  });
});
