// Where webhooks may be delivered (behaviour.md section 11): public
// addresses only, in production and in the sandbox, judged on IANA's whole
// special-purpose registries, IPv4-embedding IPv6 forms by the IPv4 they
// carry. The sandbox also takes loopback receivers while it is local-only
// (listens on loopback, no trusted proxy, a loopback public URL), and any
// address the operator allow-lists. Refusals only:
// nothing here sends a request outside 127.0.0.0/8.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type DeliveryDeps, deliverDue } from '../../src/flows/webhooks/deliver.ts';
import { createEndpoint } from '../../src/flows/webhooks/endpoints.ts';
import { embeddedIpv4, isPublicAddress } from '../../src/providers/public-address.ts';
import { hostAllowed, webhookAddressRule } from '../../src/providers/webhook-address-rule.ts';
import { createWebhookSender, type Resolve, sendWebhook } from '../../src/providers/webhook-sender.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { caller, transferBody } from '../helpers/transfers.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/** A resolver that answers `addresses` for any name: a name pointing inside, without DNS. */
const resolvingTo =
  (addresses: string[]): Resolve =>
  (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

const REFUSED = [
  // What production took: IPv4-compatible (::/96), local-use NAT64, 6to4 and IPv4-translated forms of inside addresses.
  '::7f00:1',
  '::a00:1',
  '::127.0.0.1',
  '64:ff9b:1::a00:1',
  '64:ff9b:1::808:808',
  '2002:7f00:1::1',
  '2002:c0a8:101::1',
  '2002:a9fe:a9fe::',
  '::ffff:0:7f00:1',
  '::ffff:0:10.0.0.1',
  '64:ff9b::7f00:1',
  '64:ff9b::169.254.169.254',
  '::ffff:169.254.169.254',
  '::ffff:7f00:1',
  // The rest of the IPv6 registry, and what is not global unicast.
  '2001::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:2::1',
  '2001:db8::1',
  '2620:4f:8000::1',
  '3fff::1',
  '5f00::1',
  '100::1',
  '100:0:0:1::1',
  'fec0::1',
  'fe80::1%eth0',
  'fd00:ec2::254',
  '::',
  '::1',
  '0:0:0:0:0:0:0:1',
  // The IPv4 registry.
  '192.0.2.1',
  '192.0.0.170',
  '192.31.196.1',
  '192.52.193.1',
  '192.88.99.1',
  '192.175.48.1',
  '198.18.0.1',
  '198.51.100.1',
  '203.0.113.1',
  '240.0.0.1',
  '255.255.255.255',
  '100.100.100.200',
];
const PUBLIC = ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:5db8:d822::1', '::ffff:0:8.8.8.8'];

describe('the public-address rule', () => {
  it('finding 13: the IANA special-purpose ranges are refused, IPv4-embedding forms judged by the IPv4 they carry', () => {
    assert.deepEqual(
      REFUSED.filter((address) => isPublicAddress(address)),
      [],
    );
    assert.deepEqual(
      PUBLIC.filter((address) => !isPublicAddress(address)),
      [],
    );
    assert.equal(embeddedIpv4('2002:7f00:1::1'), '127.0.0.1');
    assert.equal(embeddedIpv4('64:ff9b::a9fe:a9fe'), '169.254.169.254');
    assert.equal(embeddedIpv4('::ffff:0:a00:1'), '10.0.0.1');
    assert.equal(embeddedIpv4('2606:4700:4700::1111'), null);
  });

  it('finding 13: production refuses to send to https://[::7f00:1]/ and to names resolving to such forms, connecting nowhere', async () => {
    const rule = webhookAddressRule({
      environment: 'production',
      host: '0.0.0.0',
      trustedProxies: [],
      publicUrl: 'https://pay.example.com',
      webhookAllowedAddresses: [],
    });
    const request = { body: '{}', headers: {}, timeoutMs: 1000, rule, responseBodyBytesMax: 1024 };
    for (const url of [
      'https://[::7f00:1]/',
      'https://[64:ff9b:1::a00:1]/',
      'https://[2002:7f00:1::1]/',
      'https://[::ffff:0:7f00:1]/',
      'https://2130706433/',
    ]) {
      assert.equal((await sendWebhook({ ...request, url })).error, 'url names a non-public address', url);
    }
    for (const addresses of [['::7f00:1'], ['2002:a9fe:a9fe::1'], ['64:ff9b::a00:1']]) {
      const response = await createWebhookSender(resolvingTo(addresses))({ ...request, url: 'https://hooks.example.com/payrail' });
      assert.equal(response.error, 'hooks.example.com resolves to a non-public address', addresses[0]);
    }
  });

  it('finding 6: a sandbox on loopback but published through a proxy or under a public URL refuses loopback receivers unless allow-listed', () => {
    const base = { PAYRAIL_DATA_DIR: '/tmp/payrail-unused', HOST: '127.0.0.1', PORT: '18999' };
    const loopbackHosts = ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1'];
    const names = ['localhost', 'LOCALHOST', 'hooks.localhost', '[::1]', '127.0.0.1'];
    const published = [
      { PAYRAIL_TRUSTED_PROXIES: '127.0.0.1' },
      { PAYRAIL_TRUSTED_PROXIES: '10.0.0.0/8, ::1' },
      { PAYRAIL_PUBLIC_URL: 'https://sandbox.example.com' },
      { PAYRAIL_PUBLIC_URL: 'http://192.168.1.20:8000' },
      { PAYRAIL_PUBLIC_URL: 'http://localhost.example.com' },
      { PAYRAIL_PUBLIC_URL: 'http://127.0.0.1.nip.io' },
      { PAYRAIL_PUBLIC_URL: 'https://sandbox.example.com', PAYRAIL_TRUSTED_PROXIES: '127.0.0.1' },
    ];
    for (const env of published) {
      const rule = webhookAddressRule(loadConfig({ ...base, ...env }));
      for (const address of loopbackHosts) assert.equal(rule.allows(address), false, `${JSON.stringify(env)} ${address}`);
      for (const host of names) assert.equal(hostAllowed(rule, host), false, `${JSON.stringify(env)} ${host}`);
      assert.doesNotMatch(rule.refusal, /loopback is taken/);
      // The operator may still list loopback (a receiver on the same host, on purpose).
      const listed = webhookAddressRule(loadConfig({ ...base, ...env, PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.0/8, ::1' }));
      assert.equal(listed.allows('127.0.0.1'), true, JSON.stringify(env));
      assert.equal(hostAllowed(listed, 'localhost'), true, JSON.stringify(env));
    }
    // Local-only: loopback HOST, no proxy, a public URL (or its default) on loopback.
    for (const env of [
      {},
      { PAYRAIL_PUBLIC_URL: 'http://localhost:18999' },
      { PAYRAIL_PUBLIC_URL: 'http://[::1]:18999/' },
      { PAYRAIL_PUBLIC_URL: 'http://127.0.0.1:18999' },
    ]) {
      const rule = webhookAddressRule(loadConfig({ ...base, ...env }));
      assert.equal(rule.allows('127.0.0.1'), true, JSON.stringify(env));
      assert.equal(hostAllowed(rule, 'localhost'), true, JSON.stringify(env));
      assert.equal(rule.allows('10.0.0.1'), false, JSON.stringify(env));
    }
  });

  it('the allow-list setting takes addresses and CIDR ranges, names a bad entry, and is refused in production', () => {
    const base = { PAYRAIL_DATA_DIR: '/tmp/payrail-unused' };
    assert.deepEqual(loadConfig({ ...base, PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: '10.1.0.0/16, fd00::5' }).webhookAllowedAddresses, ['10.1.0.0/16', 'fd00::5']);
    assert.throws(
      () => loadConfig({ ...base, PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: '10.1.0.0/40' }),
      /PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES must list IP addresses or CIDR ranges/,
    );
    assert.throws(() => loadConfig({ ...base, PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: 'intranet.local' }), /PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES/);
    assert.throws(
      () => loadConfig({ ...base, PAYRAIL_ENV: 'production', PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: '10.1.0.0/16' }),
      /PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES is for the sandbox only/,
    );
  });
});

type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

function postEndpoint(t: TestApp, merchant: Merchant, url: string) {
  return t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: { authorization: basicOf(merchant) }, payload: { url } });
}

for (const kind of STORE_KINDS) {
  describe(`sandbox webhook addresses (${kind})`, () => {
    let shared: TestApp;
    let local: TestApp;
    before(async () => {
      // A shared sandbox listens on every interface; the default local one on loopback only.
      shared = await createTestApp(kind, { env: { HOST: '0.0.0.0', PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: '10.1.0.0/16' } });
      local = await createTestApp(kind);
    });
    after(async () => {
      await shared.close();
      await local.close();
    });

    it('finding 3: a sandbox listening beyond loopback refuses loopback, private, link-local and special-purpose endpoint URLs', async () => {
      const merchant = await shared.newMerchant();
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://localhost:5432/',
        'http://[::1]:22/',
        'http://10.0.0.5/x',
        'http://192.168.1.1/',
        'http://169.254.169.254/latest/meta-data',
        'http://[fe80::1]/',
        'http://[::7f00:1]/',
        'http://0x7f.1/',
      ]) {
        const response = await postEndpoint(shared, merchant, url);
        assert.equal(response.statusCode, 400, url);
        assert.match(response.json().error.message, /must not name a loopback, private, link-local or other special-purpose address in the sandbox/, url);
      }
      const listed = await postEndpoint(shared, merchant, 'http://10.1.2.3:8080/hooks');
      assert.equal(listed.statusCode, 200, listed.body);
      assert.equal((await postEndpoint(shared, merchant, 'http://10.2.0.1/hooks')).statusCode, 400);
    });

    it('finding 6: a sandbox listening on loopback behind a reverse proxy refuses loopback endpoint URLs at creation and delivery', async () => {
      const proxied = await createTestApp(kind, { env: { PAYRAIL_TRUSTED_PROXIES: '127.0.0.1', PAYRAIL_PUBLIC_URL: 'https://sandbox.example.com' } });
      try {
        const merchant = await proxied.newMerchant();
        for (const url of [
          'http://127.0.0.1:8080/x',
          'http://127.1:22/',
          'http://[::1]:22/',
          'http://localhost:5432/',
          'http://LOCALHOST/',
          'http://hooks.localhost/',
        ]) {
          const response = await postEndpoint(proxied, merchant, url);
          assert.equal(response.statusCode, 400, url);
          assert.match(response.json().error.message, /must not name a loopback/, url);
        }
        const request = { body: '{}', headers: {}, timeoutMs: 1000, rule: webhookAddressRule(proxied.service.config), responseBodyBytesMax: 1024 };
        assert.equal((await sendWebhook({ ...request, url: 'http://127.0.0.1:9/hook' })).error, 'url names a non-public address');
        const resolved = await createWebhookSender(resolvingTo(['127.0.0.1']))({ ...request, url: 'http://localhost.example.com/hook' });
        assert.equal(resolved.error, 'localhost.example.com resolves to a non-public address');
      } finally {
        await proxied.close();
      }
    });

    it('finding 3: a delivery to a loopback receiver is refused, unsent, by a sandbox listening beyond loopback; the same one is delivered by a local sandbox', async () => {
      const receiver = await startReceiver();
      try {
        const merchant = await local.newMerchant({ fundCents: 100_000 });
        // Made while loopback was allowed (or a name that now resolves to loopback): checked again at delivery.
        await createEndpoint(
          { db: local.service.db, clock: local.clock, config: local.service.config },
          merchant.merchant_id,
          { url: receiver.url },
          { kind: 'cli', id: 'test', label: null, address: null },
        );
        assert.equal((await caller(local.app, merchant.transfer_api_key).execute(transferBody())).status, 200);
        const deps = (config: DeliveryDeps['config']): DeliveryDeps => ({
          db: local.service.db,
          clock: local.clock,
          log: local.service.log,
          config,
          send: sendWebhook,
        });
        await deliverDue(deps({ ...local.service.config, host: '0.0.0.0' }), 8, 1);
        assert.equal(receiver.received.length, 0);
        const row = await local.service.db.read((tx) =>
          tx.get<{ last_error: string }>('SELECT last_error FROM webhook_deliveries WHERE merchant_id = ?', [merchant.merchant_id]),
        );
        assert.equal(row?.last_error, 'url names a non-public address');
        local.clock.advance(60 * 60_000);
        await deliverDue(deps(local.service.config));
        assert.equal(receiver.received.length, 1);
      } finally {
        await receiver.close();
      }
    });

    it('finding 3: a sandbox delivery to a name resolving to a private address is refused; an allow-listed one is let through', async () => {
      const rule = webhookAddressRule(shared.service.config);
      const request = { body: '{}', headers: {}, timeoutMs: 1000, rule, responseBodyBytesMax: 1024, url: 'http://hooks.example.com/payrail' };
      for (const addresses of [['10.0.0.7'], ['93.184.216.34', '192.168.0.1'], ['127.0.0.1'], ['fd12::1']]) {
        const response = await createWebhookSender(resolvingTo(addresses))(request);
        assert.equal(response.error, 'hooks.example.com resolves to a non-public address', addresses.join(' '));
      }
      assert.equal(rule.allows('10.1.200.1'), true);
      assert.equal(rule.allows('::ffff:10.1.200.1'), true);
      assert.equal(webhookAddressRule(local.service.config).allows('127.0.0.1'), true);
      assert.equal(webhookAddressRule(local.service.config).allows('10.0.0.1'), false);
    });
  });
}
