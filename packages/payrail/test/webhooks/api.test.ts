// The webhooks and events API (docs/api-decisions.md sections 11 and 14):
// endpoint management with either merchant credential, merchant scoping,
// refusals in the payin envelope that change nothing, secret rotation, the
// event list's filters and cursor, and production's URL rules.
import { SYSTEM_ACTOR } from '../../src/domain/audit.ts';
import { EVENT_TYPES } from '../../src/domain/webhooks.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { endpointUrlProblem } from '../../src/domain/webhooks.ts';
import { DAY_MS } from '../../src/domain/clock.ts';
import { deliverDue, fanOut } from '../../src/flows/webhooks/deliver.ts';
import { pruneOldEvents } from '../../src/flows/webhooks/retention.ts';
import { createEndpoint } from '../../src/flows/webhooks/endpoints.ts';
import { isPublicAddress } from '../../src/providers/public-address.ts';
import { webhookAddressRule } from '../../src/providers/webhook-address-rule.ts';
import { createWebhookSender, type Resolve, sendWebhook } from '../../src/providers/webhook-sender.ts';

const PRODUCTION_RULE = webhookAddressRule({
  environment: 'production',
  host: '0.0.0.0',
  trustedProxies: [],
  publicUrl: 'https://pay.example.com',
  webhookAllowedAddresses: [],
});
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { caller, transferBody } from '../helpers/transfers.ts';
import { signaturesValid, startReceiver } from '../helpers/webhook-receiver.ts';

type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

function call(t: TestApp, merchant: Merchant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, auth: 'basic' | 'key' = 'basic') {
  const headers = auth === 'basic' ? { authorization: basicOf(merchant) } : { 'api-key': merchant.transfer_api_key };
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}

describe('endpoint URL rules', () => {
  it('takes https in production and http(s) in the sandbox; refuses credentials, fragments and other schemes', () => {
    assert.equal(endpointUrlProblem('https://hooks.example.com/payrail', 'production'), null);
    assert.equal(endpointUrlProblem('http://hooks.example.com/payrail', 'production'), 'url must be https in production');
    assert.equal(endpointUrlProblem('http://localhost:3000/hooks', 'sandbox'), null);
    assert.equal(endpointUrlProblem('ftp://example.com/', 'sandbox'), 'url must be an http(s) URL');
    assert.equal(endpointUrlProblem('https://user:pw@example.com/', 'production'), 'url must not carry a user name or password');
    assert.equal(endpointUrlProblem('https://example.com/#x', 'production'), 'url must not have a fragment');
    assert.equal(endpointUrlProblem('not a url', 'sandbox'), 'url must be an absolute http(s) URL');
  });

  it('refuses to send to a non-public address in production, named or resolved', async () => {
    const request = { body: '{}', headers: {}, timeoutMs: 1000, rule: PRODUCTION_RULE, responseBodyBytesMax: 1024 };
    for (const url of ['https://127.0.0.1/x', 'https://[::1]/x', 'https://10.1.2.3/x', 'https://169.254.169.254/latest', 'https://localhost/x']) {
      const response = await sendWebhook({ ...request, url });
      assert.equal(response.statusCode, null);
      assert.equal(response.error, 'url names a non-public address', url);
    }
    assert.equal((await sendWebhook({ ...request, url: 'http://93.184.216.34/x' })).error, 'url is not https');
  });

  it('checks every address a name resolves to when connecting, so a name pointing inside is refused', async () => {
    const request = { body: '{}', headers: {}, timeoutMs: 1000, rule: PRODUCTION_RULE, responseBodyBytesMax: 1024 };
    const resolvingTo =
      (addresses: string[]): Resolve =>
      (_hostname, _options, callback) =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
    for (const addresses of [['127.0.0.1'], ['93.184.216.34', '10.0.0.7'], ['fe80::1'], ['::ffff:192.168.1.1'], ['169.254.169.254']]) {
      const response = await createWebhookSender(resolvingTo(addresses))({ ...request, url: 'https://hooks.example.com/payrail' });
      assert.equal(response.statusCode, null);
      assert.equal(response.error, 'hooks.example.com resolves to a non-public address', addresses.join(' '));
    }
  });

  it('knows public from loopback, private, link-local and reserved addresses', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '10.2.3.4',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      'ff02::1',
      '224.0.0.1',
      'not-an-ip',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`webhooks and events API (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('creates, lists, reads, changes, rotates and deletes an endpoint with either credential; the secret is shown only twice', async () => {
      const merchant = await t.newMerchant();
      const created = await call(t, merchant, 'POST', '/api/v2/webhooks', {
        url: 'http://localhost:4000/hooks',
        events: ['charge.approved', 'transfer.failed'],
      });
      assert.equal(created.statusCode, 200, created.body);
      const endpoint = created.json();
      assert.deepEqual(Object.keys(endpoint).sort(), ['created_at', 'disabled_reason', 'enabled', 'events', 'id', 'signature', 'url']);
      assert.deepEqual(endpoint.events, ['charge.approved', 'transfer.failed']);
      assert.equal(endpoint.enabled, true);

      const listed = await call(t, merchant, 'GET', '/api/v2/webhooks', undefined, 'key');
      assert.equal(listed.statusCode, 200);
      const { signature: _secret, ...shown } = endpoint;
      assert.deepEqual(listed.json(), [shown]);
      assert.deepEqual((await call(t, merchant, 'GET', `/api/v2/webhooks/${endpoint.id}`)).json(), shown);

      const changed = await call(t, merchant, 'PATCH', `/api/v2/webhooks/${endpoint.id}`, { enabled: false, events: [] }, 'key');
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.json().enabled, false);
      assert.equal(changed.json().events.length, EVENT_TYPES.length, 'an empty list means every type');

      // Many HTTP clients send a JSON content type with every request: an empty body is no body.
      const rotatedEmpty = await t.app.inject({
        method: 'POST',
        url: `/api/v2/webhooks/${endpoint.id}/rotate`,
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(rotatedEmpty.statusCode, 200, rotatedEmpty.body);
      const rotated = await call(t, merchant, 'POST', `/api/v2/webhooks/${endpoint.id}/rotate`);
      assert.equal(rotated.statusCode, 200);
      assert.match(rotated.json().signature, /^whsec_/);
      assert.notEqual(rotated.json().signature, endpoint.signature);

      // The secret is sealed at rest, never stored as text.
      const stored = await t.service.db.read((tx) => tx.get<{ secret_enc: Buffer }>('SELECT secret_enc FROM webhook_endpoints WHERE id = ?', [endpoint.id]));
      assert.ok(!Buffer.from(stored!.secret_enc).toString('latin1').includes(rotated.json().signature.slice(6)));

      assert.deepEqual((await call(t, merchant, 'DELETE', `/api/v2/webhooks/${endpoint.id}`)).json(), { id: endpoint.id, deleted: true });
      assert.equal((await call(t, merchant, 'GET', `/api/v2/webhooks/${endpoint.id}`)).statusCode, 404);
      assert.deepEqual((await call(t, merchant, 'GET', '/api/v2/webhooks')).json(), []);
      // The endpoint list takes no parameters, and says so as every list does.
      const withQuery = await call(t, merchant, 'GET', '/api/v2/webhooks?limit=1');
      assert.deepEqual([withQuery.statusCode, withQuery.json().error.code, withQuery.json().error.message], [400, 'invalid_request', 'unknown field limit']);
    });

    it("refuses bad input in the payin envelope and treats another merchant's endpoint and events as unknown", async () => {
      const merchant = await t.newMerchant();
      const other = await t.newMerchant();
      const refusals: Array<[unknown, RegExp]> = [
        [{ url: 'ftp://x.example/' }, /url must be an http\(s\) URL/],
        [{ url: 'http://localhost/x', events: ['charge.exploded'] }, /unknown event type/],
        [{ url: 'http://localhost/x', extra: 1 }, /./],
        [{}, /./],
      ];
      for (const [body, message] of refusals) {
        const response = await call(t, merchant, 'POST', '/api/v2/webhooks', body);
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().error.code, 'invalid_request');
        assert.match(response.json().error.message, message);
      }
      assert.deepEqual((await call(t, merchant, 'GET', '/api/v2/webhooks')).json(), []);

      const mine = (await call(t, merchant, 'POST', '/api/v2/webhooks', { url: 'http://localhost/x' })).json();
      for (const [method, url] of [
        ['GET', `/api/v2/webhooks/${mine.id}`],
        ['PATCH', `/api/v2/webhooks/${mine.id}`],
        ['DELETE', `/api/v2/webhooks/${mine.id}`],
        ['POST', `/api/v2/webhooks/${mine.id}/rotate`],
      ] as const) {
        const response = await call(t, other, method, url, method === 'PATCH' ? { enabled: false } : undefined);
        assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal((await call(t, merchant, 'GET', `/api/v2/webhooks/${mine.id}`)).json().enabled, true);

      const unauthenticated = await t.app.inject({ method: 'GET', url: '/api/v2/events' });
      assert.equal(unauthenticated.statusCode, 401);
      assert.equal(typeof unauthenticated.json().error.code, 'string');
      const events = (await call(t, other, 'GET', '/api/v2/events')).json();
      assert.deepEqual(events, { data: [], has_more: false });
    });

    it('lists events newest first with type and time filters and a cursor; reads one; refuses bad filters', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      // Upper bounds are inclusive: a bound 1 ms before the first event leaves it out.
      const beforeFirst = new Date(t.clock.nowMs() - 1).toISOString();
      for (let i = 0; i < 3; i++) {
        assert.equal((await api.execute(transferBody())).status, 200);
        t.clock.advance(1000);
      }
      const all = (await call(t, merchant, 'GET', '/api/v2/events?type=transfer.created')).json() as {
        data: Array<{ id: string; created_at: string }>;
        has_more: boolean;
      };
      assert.equal(all.data.length, 3);
      assert.equal(all.has_more, false);
      assert.ok(Number(all.data[0]!.id.slice(4)) > Number(all.data[2]!.id.slice(4)), 'newest first');

      const page1 = (await call(t, merchant, 'GET', '/api/v2/events?limit=2', undefined, 'key')).json();
      assert.equal(page1.data.length, 2);
      assert.equal(page1.has_more, true);
      const page2 = (await call(t, merchant, 'GET', `/api/v2/events?limit=2&starting_after=${page1.data[1].id}`)).json();
      assert.equal(page2.data.length, 1);
      assert.equal(page2.has_more, false);
      // Back with ending_before: the newer events nearest the cursor, newest first.
      const ids = (page: { data: Array<{ id: string }> }) => page.data.map((event) => event.id);
      const oldest = page2.data[0].id;
      const back1 = (await call(t, merchant, 'GET', `/api/v2/events?limit=1&ending_before=${oldest}`)).json();
      assert.deepEqual([ids(back1), back1.has_more], [[page1.data[1].id], true]);
      const back2 = (await call(t, merchant, 'GET', `/api/v2/events?limit=2&ending_before=${oldest}`)).json();
      assert.deepEqual([ids(back2), back2.has_more], [ids(page1), false]);
      const both = await call(t, merchant, 'GET', `/api/v2/events?starting_after=${oldest}&ending_before=${oldest}`);
      assert.deepEqual([both.statusCode, both.json().error.message], [400, 'send starting_after or ending_before, not both']);

      const second = all.data[1]!;
      const window = (
        await call(
          t,
          merchant,
          'GET',
          `/api/v2/events?created_from=${encodeURIComponent(second.created_at)}&created_to=${encodeURIComponent(second.created_at)}`,
        )
      ).json();
      assert.deepEqual(
        window.data.map((e: { id: string }) => e.id),
        [second.id],
      );
      assert.equal((await call(t, merchant, 'GET', `/api/v2/events?created_to=${encodeURIComponent(beforeFirst)}`)).json().data.length, 0);

      const one = await call(t, merchant, 'GET', `/api/v2/events/${second.id}`);
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().id, second.id);
      assert.equal(one.json().type, 'transfer.created');

      for (const query of ['type=charge.nope', 'limit=0', 'limit=101', 'created_from=yesterday', 'starting_after=42']) {
        const response = await call(t, merchant, 'GET', `/api/v2/events?${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.equal(response.json().error.code, 'invalid_request');
      }
      // A cursor must name one of the merchant's events; a range must not end before it starts.
      const stranger = await t.newMerchant({ fundCents: 100_000 });
      assert.equal((await caller(t.app, stranger.transfer_api_key).execute(transferBody())).status, 200);
      const foreign = (await call(t, stranger, 'GET', '/api/v2/events?limit=1')).json().data as Array<{ id: string }>;
      assert.equal(foreign.length, 1);
      for (const [query, message] of [
        ['starting_after=evt_99999999', 'starting_after evt_99999999 is not one of your events'],
        ['ending_before=evt_99999999', 'ending_before evt_99999999 is not one of your events'],
        ['ending_before=42', 'ending_before must be an event id (evt_...)'],
        ...foreign.map((event) => [`starting_after=${event.id}`, `starting_after ${event.id} is not one of your events`]),
        ['created_from=2026-02-02T00:00:00Z&created_to=2026-02-01T00:00:00Z', 'created_from must not be after created_to'],
      ]) {
        const response = await call(t, merchant, 'GET', `/api/v2/events?${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.deepEqual(response.json(), { error: { code: 'invalid_request', message } }, query);
      }
      const instant = encodeURIComponent(second.created_at);
      assert.equal((await call(t, merchant, 'GET', `/api/v2/events?created_from=${instant}&created_to=${instant}`)).statusCode, 200);
      assert.equal((await call(t, merchant, 'GET', '/api/v2/events/evt_99999999')).statusCode, 404);
      assert.equal((await call(t, merchant, 'GET', '/api/v2/events/nope')).statusCode, 404);
      assert.equal((await call(t, merchant, 'POST', '/api/v2/events/evt_99999999/resend')).statusCode, 404);
    });

    it('finding 13: refuses http and loopback, private, link-local or special-purpose addresses for production endpoints when they are made', async () => {
      const merchant = await t.newMerchant();
      const production = {
        db: t.service.db,
        clock: t.clock,
        config: { ...t.service.config, environment: 'production' as const, cardKeyBase64: randomBytes(32).toString('base64') },
      };
      for (const [url, message] of [
        ['http://hooks.example.com/x', /https in production/],
        ['https://127.0.0.1/x', /loopback, private or link-local/],
        ['https://[::1]:8443/x', /loopback, private or link-local/],
        ['https://192.168.1.20/x', /loopback, private or link-local/],
        ['https://169.254.169.254/latest/meta-data', /loopback, private or link-local/],
        ['https://localhost/x', /loopback, private or link-local/],
        // finding 13: IPv4-compatible, local-use NAT64, 6to4 and IPv4-translated forms of inside addresses.
        ['https://[::7f00:1]/', /loopback, private or link-local/],
        ['https://[64:ff9b:1::a00:1]/', /loopback, private or link-local/],
        ['https://[2002:7f00:1::1]/', /loopback, private or link-local/],
        ['https://[::ffff:0:7f00:1]/', /loopback, private or link-local/],
      ] as const) {
        await assert.rejects(createEndpoint(production, merchant.merchant_id, { url }, SYSTEM_ACTOR), { code: 'invalid_request', message }, url);
      }
      const made = await createEndpoint(production, merchant.merchant_id, { url: 'https://hooks.example.com/payrail' }, SYSTEM_ACTOR);
      assert.equal(made.url, 'https://hooks.example.com/payrail');
    });

    it('keeps events 30 days, then deletes them with their deliveries', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      await call(t, merchant, 'POST', '/api/v2/webhooks', { url: 'http://127.0.0.1:9/closed' });
      assert.equal((await caller(t.app, merchant.transfer_api_key).execute(transferBody())).status, 200);
      await fanOut({ db: t.service.db, clock: t.clock });
      const count = async (table: string) =>
        Number((await t.service.db.read((tx) => tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE merchant_id = ?`, [merchant.merchant_id])))!.n);
      assert.deepEqual([await count('events'), await count('webhook_deliveries')], [1, 1]);
      t.clock.advance(29 * DAY_MS);
      await pruneOldEvents({ db: t.service.db, clock: t.clock });
      assert.equal(await count('events'), 1);
      t.clock.advance(DAY_MS + 1);
      // Every other test's events are as old: the batch bound is what limits the first call.
      while ((await pruneOldEvents({ db: t.service.db, clock: t.clock }, 2)) > 0);
      assert.deepEqual([await count('events'), await count('webhook_deliveries')], [0, 0]);
      assert.deepEqual((await call(t, merchant, 'GET', '/api/v2/events')).json(), { data: [], has_more: false });
    });

    it('signs with the rotated secret from the rotation on', async () => {
      const receiver = await startReceiver();
      try {
        const merchant = await t.newMerchant({ fundCents: 100_000 });
        const endpoint = (await call(t, merchant, 'POST', '/api/v2/webhooks', { url: receiver.url, events: ['transfer.created'] })).json();
        const rotated = (await call(t, merchant, 'POST', `/api/v2/webhooks/${endpoint.id}/rotate`)).json();
        assert.equal((await caller(t.app, merchant.transfer_api_key).execute(transferBody())).status, 200);
        await deliverDue({ db: t.service.db, clock: t.clock, log: t.service.log, config: t.service.config, send: sendWebhook });
        assert.equal(receiver.received.length, 1);
        assert.ok(signaturesValid(receiver.received[0]!, rotated.signature));
        assert.ok(!signaturesValid(receiver.received[0]!, endpoint.signature));
      } finally {
        await receiver.close();
      }
    });
  });
}
