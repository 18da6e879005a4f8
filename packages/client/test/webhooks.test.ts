// Events and webhooks in the SDK: verifyWebhook against signatures made the
// way the server makes them (node:crypto here, Web Crypto in the SDK), and
// the endpoint and event methods against recorded answers.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { type PayrailEvent, PayrailError, verifyAcceptBlueWebhook, verifyWebhook } from '../src/index.ts';
import { eventPage, KEYS, rejected, transferEvent, webhookEndpoint, webhookEndpointWithSecret } from './fixtures.ts';
import { clientWith } from './helpers.ts';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuv';
const NOW_MS = Date.UTC(2026, 0, 1, 0, 0, 10);

function signed(body: string, options: { secret?: string; atMs?: number } = {}) {
  const secret = options.secret ?? SECRET;
  const t = Math.floor((options.atMs ?? NOW_MS) / 1000);
  const hmac = (text: string) => crypto.createHmac('sha256', secret).update(text).digest('hex');
  return {
    'content-type': 'application/json',
    'x-signature': hmac(body),
    'payrail-signature': `t=${t},v1=${hmac(`${t}.${body}`)}`,
    'payrail-event-id': 'evt_42',
  };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PayrailError);
  assert.equal(error.code, 'invalid_signature');
  return error.message;
}

describe('verifyWebhook', () => {
  const body = JSON.stringify(transferEvent());

  it('returns the typed event when both signatures match, from Node headers or a Fetch Headers', async () => {
    const event = await verifyWebhook(body, signed(body), SECRET, { now_ms: NOW_MS });
    assert.equal(event.id, 'evt_42');
    if (event.type === 'transfer.succeeded') assert.equal(event.data.state, 60);
    else assert.fail(`unexpected type ${event.type}`);
    const fromHeaders: PayrailEvent = await verifyWebhook(new TextEncoder().encode(body), new Headers(signed(body)), SECRET, { now_ms: NOW_MS });
    assert.deepEqual(fromHeaders, event);
  });

  it('refuses a changed body, another secret, a missing or malformed header, and an old or future timestamp', async () => {
    assert.match(await refusal(verifyWebhook(body.replace('60', '80'), signed(body), SECRET, { now_ms: NOW_MS })), /Payrail-Signature does not match/);
    assert.match(await refusal(verifyWebhook(body, signed(body, { secret: 'whsec_other' }), SECRET, { now_ms: NOW_MS })), /does not match/);
    const { 'payrail-signature': _p, ...noPayrail } = signed(body);
    assert.match(await refusal(verifyWebhook(body, noPayrail, SECRET, { now_ms: NOW_MS })), /missing or malformed/);
    const { 'x-signature': _x, ...noPlain } = signed(body);
    assert.match(await refusal(verifyWebhook(body, noPlain, SECRET, { now_ms: NOW_MS })), /X-Signature/);
    assert.match(await refusal(verifyWebhook(body, { ...signed(body), 'x-signature': 'ab'.repeat(32) }, SECRET, { now_ms: NOW_MS })), /X-Signature/);
    assert.match(await refusal(verifyWebhook(body, signed(body, { atMs: NOW_MS - 301_000 }), SECRET, { now_ms: NOW_MS })), /more than 300 s/);
    assert.match(await refusal(verifyWebhook(body, signed(body, { atMs: NOW_MS + 301_000 }), SECRET, { now_ms: NOW_MS })), /more than 300 s/);
    // Within the tolerance (and a wider one when asked) it passes.
    await verifyWebhook(body, signed(body, { atMs: NOW_MS - 299_000 }), SECRET, { now_ms: NOW_MS });
    await verifyWebhook(body, signed(body, { atMs: NOW_MS - 600_000 }), SECRET, { now_ms: NOW_MS, tolerance_s: 900 });
  });
});

describe('endpoint and event methods', () => {
  it('manage endpoints with the transfer key when the client has one, else Basic auth', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: webhookEndpointWithSecret(), expect: { method: 'POST', path: '/api/v2/webhooks' } },
      { status: 200, body: [webhookEndpoint()], expect: { method: 'GET', path: '/api/v2/webhooks' } },
      { status: 200, body: { ...webhookEndpoint(), enabled: false }, expect: { method: 'PATCH', path: '/api/v2/webhooks/we_0123456789abcdef' } },
      { status: 200, body: webhookEndpointWithSecret(), expect: { method: 'POST', path: '/api/v2/webhooks/we_0123456789abcdef/rotate' } },
      { status: 200, body: { id: 'we_0123456789abcdef', deleted: true }, expect: { method: 'DELETE', path: '/api/v2/webhooks/we_0123456789abcdef' } },
    ]);
    const created = await client.createWebhookEndpoint({ url: 'https://merchant.example/payrail/hooks', events: ['transfer.succeeded'] });
    assert.match(created.signature, /^whsec_/);
    assert.equal(fake.sent[0]!.headers['api-key'], KEYS.transfer);
    assert.equal(fake.sent[0]!.body, '{"url":"https://merchant.example/payrail/hooks","events":["transfer.succeeded"]}');
    assert.deepEqual(await client.listWebhookEndpoints(), [webhookEndpoint()]);
    assert.equal((await client.updateWebhookEndpoint(created.id, { enabled: false })).enabled, false);
    assert.equal(fake.sent[2]!.body, '{"enabled":false}');
    await client.rotateWebhookSecret(created.id);
    await client.deleteWebhookEndpoint(created.id);
    fake.done();

    const basicOnly = clientWith([{ status: 200, body: webhookEndpoint(), expect: { method: 'GET', path: '/api/v2/webhooks/we_0123456789abcdef' } }], {
      api_key: undefined,
    });
    await basicOnly.client.getWebhookEndpoint('we_0123456789abcdef');
    assert.equal(basicOnly.fake.sent[0]!.headers.authorization, `Basic ${Buffer.from(`${KEYS.source}:${KEYS.pin}`).toString('base64')}`);
  });

  it('lists, reads and re-sends events; refuses bad ids and filters before sending; reads refusals', async () => {
    const { client, fake } = clientWith([
      { status: 200, body: eventPage(true), expect: { method: 'GET', path: '/api/v2/events' } },
      { status: 200, body: transferEvent(), expect: { method: 'GET', path: '/api/v2/events/evt_42' } },
      { status: 200, body: { id: 'evt_42', deliveries: 2 }, expect: { method: 'POST', path: '/api/v2/events/evt_42/resend' } },
      { status: 404, body: rejected('not_found', 'event evt_7 not found'), expect: { method: 'GET', path: '/api/v2/events/evt_7' } },
      { status: 200, body: eventPage(false), expect: { method: 'GET', path: '/api/v2/events' } },
    ]);
    const page = await client.listEvents({ type: 'transfer.succeeded', starting_after: 'evt_44', limit: 2 });
    assert.equal(page.has_more, true);
    assert.equal(new URL(fake.sent[0]!.url).search, '?type=transfer.succeeded&starting_after=evt_44&limit=2');
    assert.deepEqual(
      page.data.map((e) => e.id),
      ['evt_43', 'evt_42'],
    );
    assert.equal((await client.getEvent('evt_42')).type, 'transfer.succeeded');
    assert.deepEqual(await client.resendEvent('evt_42'), { id: 'evt_42', deliveries: 2 });
    await assert.rejects(client.getEvent('evt_7'), { code: 'not_found', status: 404 });
    // The page before a cursor.
    await client.listEvents({ ending_before: 'evt_40', limit: 2 });
    assert.equal(new URL(fake.sent.at(-1)!.url).search, '?ending_before=evt_40&limit=2');
    await assert.rejects(client.getEvent('42'), { code: 'invalid_request' });
    await assert.rejects(client.getWebhookEndpoint('../x'), { code: 'invalid_request' });
    await assert.rejects(client.listEvents({ limit: 0 }), { code: 'invalid_request' });
    await assert.rejects(client.listEvents({ starting_after: 'evt_2', ending_before: 'evt_1' }), { code: 'invalid_request' });
    await assert.rejects(client.listEvents({ type: 'charge.exploded' as never }), { code: 'invalid_request' });
    fake.done();
  });
});

describe('accept.blue webhooks', () => {
  const webhook = {
    id: 7,
    webhook_url: 'https://shop.example/accept-blue/webhook/token',
    description: 'Notify Vendure',
    active: true,
    signature: 'AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  };

  it('registers, reads, changes and deletes by integer id; refuses a bad id before sending; reads a 409 as duplicate_webhook', async () => {
    const { client, fake } = clientWith([
      { status: 201, body: webhook, expect: { method: 'POST', path: '/api/v2/webhooks' } },
      { status: 200, body: [webhookEndpoint(), webhook], expect: { method: 'GET', path: '/api/v2/webhooks' } },
      { status: 200, body: webhook, expect: { method: 'GET', path: '/api/v2/webhooks/7' } },
      { status: 200, body: { ...webhook, active: false }, expect: { method: 'PATCH', path: '/api/v2/webhooks/7' } },
      { status: 204, text: '', expect: { method: 'DELETE', path: '/api/v2/webhooks/7' } },
      {
        status: 409,
        body: rejected('duplicate_webhook', 'a webhook with webhook_url x is already registered'),
        expect: { method: 'POST', path: '/api/v2/webhooks' },
      },
    ]);
    const created = await client.createAcceptBlueWebhook({ webhook_url: webhook.webhook_url, description: webhook.description, active: true });
    assert.deepEqual(created, webhook);
    assert.equal(fake.sent[0]!.body, JSON.stringify({ webhook_url: webhook.webhook_url, description: webhook.description, active: true }));
    const listed = await client.listWebhookEndpoints();
    assert.deepEqual(
      listed.filter((entry) => 'webhook_url' in entry),
      [webhook],
    );
    assert.equal((await client.getAcceptBlueWebhook(7)).signature, webhook.signature);
    assert.equal((await client.updateAcceptBlueWebhook(7, { active: false })).active, false);
    assert.equal(fake.sent[3]!.body, '{"active":false}');
    await client.deleteAcceptBlueWebhook(7);
    await assert.rejects(client.createAcceptBlueWebhook({ webhook_url: webhook.webhook_url }), { code: 'duplicate_webhook', status: 409 });
    await assert.rejects(client.getAcceptBlueWebhook(0), { code: 'invalid_request' });
    await assert.rejects(client.getAcceptBlueWebhook(1.5), { code: 'invalid_request' });
    fake.done();
  });

  it('verifyAcceptBlueWebhook checks X-Signature over the raw body keyed by the signature, as the Vendure plugin does', async () => {
    const body = JSON.stringify({
      event: 'transaction',
      type: 'succeeded',
      subType: 'charge',
      id: 'a'.repeat(32),
      timestamp: '2026-01-01T00:00:00.000Z',
      data: {},
    });
    const xSignature = crypto.createHmac('sha256', webhook.signature).update(body).digest('hex');
    const delivery = await verifyAcceptBlueWebhook(body, { 'x-signature': xSignature }, webhook.signature);
    assert.deepEqual([delivery.event, delivery.type, delivery.subType], ['transaction', 'succeeded', 'charge']);
    assert.equal(
      (await verifyAcceptBlueWebhook(new TextEncoder().encode(body), new Headers({ 'X-Signature': xSignature }), webhook.signature)).id,
      'a'.repeat(32),
    );
    assert.match(await refusal(verifyAcceptBlueWebhook(body.replace('charge', 'refund'), { 'x-signature': xSignature }, webhook.signature)), /X-Signature/);
    assert.match(await refusal(verifyAcceptBlueWebhook(body, {}, webhook.signature)), /X-Signature/);
    assert.match(await refusal(verifyAcceptBlueWebhook(body, { 'x-signature': xSignature }, 'another')), /X-Signature/);
  });
});
