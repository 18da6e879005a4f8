// Built-in connectors in configuration (behaviour.md section 18):
// PAYRAIL_CARD_PROCESSOR=authorize-net and its PAYRAIL_AUTHORIZE_NET_*
// settings, secrets from a variable or a file and never printed, provider
// URL rules per environment, what production still demands, and built-in
// names that no module may take.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { secretsBoxedFromThread, secretsUnboxedForThread } from '../../src/config/thread-clone.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { Secret } from '../../src/domain/secret.ts';
import { createLogger } from '../../src/log.ts';
import { loadProvider } from '../../src/providers/index.ts';
import { tempDir } from '../helpers/stores.ts';

const TRANSACTION_KEY = '7aBcD3fGh1JkLmN5';
const SIGNATURE_KEY = 'A1B2'.repeat(32);
const ANET = {
  PAYRAIL_CARD_PROCESSOR: 'authorize-net',
  PAYRAIL_AUTHORIZE_NET_LOGIN_ID: 'payrail-test',
  PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY: TRANSACTION_KEY,
};
const PRODUCTION = {
  PAYRAIL_ENV: 'production',
  PAYRAIL_TRUST_PROXY_TLS: '1',
  PAYRAIL_PUBLIC_URL: 'https://pay.example.com',
  PAYRAIL_CARD_KEY: crypto.randomBytes(32).toString('base64'),
  PAYRAIL_PAYOUT_NETWORK: './connectors/payout.js',
  PAYRAIL_KYC_PROVIDER: './connectors/kyc.js',
  PAYRAIL_FX_PROVIDER: './connectors/fx.js',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('PAYRAIL_CARD_PROCESSOR=authorize-net', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads its settings, boxed, with the environment's default endpoint", () => {
    const sandbox = loadConfig({ ...ANET, PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY: SIGNATURE_KEY }).connectors.authorizeNet!;
    assert.equal(sandbox.url, 'https://apitest.authorize.net/xml/v1/request.api');
    assert.equal(sandbox.loginId, 'payrail-test');
    assert.ok(sandbox.transactionKey instanceof Secret);
    assert.equal(sandbox.transactionKey.reveal(), TRANSACTION_KEY);
    assert.equal(sandbox.signatureKey?.reveal(), SIGNATURE_KEY);
    const production = loadConfig({ ...PRODUCTION, ...ANET }).connectors.authorizeNet!;
    assert.equal(production.url, 'https://api.authorize.net/xml/v1/request.api');
    assert.equal(production.signatureKey, null, 'optional: without it webhooks are refused and polling moves charges');
    assert.equal(loadConfig({}).connectors.authorizeNet, null, 'not read unless chosen');
  });

  it('takes a key from a file, dropping one trailing line break', () => {
    const file = path.join(dir, 'transaction-key');
    fs.writeFileSync(file, `${TRANSACTION_KEY}\n`);
    const settings = loadConfig({ ...ANET, PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY: '', PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY_FILE: file }).connectors
      .authorizeNet!;
    assert.equal(settings.transactionKey.reveal(), TRANSACTION_KEY);
  });

  it('lists every problem at once, naming variables and files but never a key', () => {
    const empty = path.join(dir, 'empty');
    fs.writeFileSync(empty, '\n');
    const problems = problemsOf({
      PAYRAIL_CARD_PROCESSOR: 'authorize-net',
      PAYRAIL_AUTHORIZE_NET_URL: 'http://gateway.example.com/xml/v1/request.api',
      PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY_FILE: path.join(dir, 'missing'),
      PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY: SIGNATURE_KEY,
      PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY_FILE: empty,
    });
    assert.deepEqual(problems, [
      'PAYRAIL_AUTHORIZE_NET_URL must be an https:// URL, or http:// on a loopback address (a local stand-in), got "http://gateway.example.com/xml/v1/request.api"',
      'PAYRAIL_AUTHORIZE_NET_LOGIN_ID (the API login id) is required with PAYRAIL_CARD_PROCESSOR=authorize-net',
      `PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY_FILE names a file that cannot be read (${path.join(dir, 'missing')}): ENOENT`,
      'PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY and PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY_FILE are both set; set one of them',
    ]);
    const printed = [
      problems.join('\n'),
      JSON.stringify(loadConfig({ ...ANET, PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY: SIGNATURE_KEY })),
      inspect(loadConfig(ANET), { depth: 9 }),
    ];
    for (const text of printed) {
      assert.ok(!text.includes(TRANSACTION_KEY) && !text.includes(SIGNATURE_KEY), text.slice(0, 200));
    }
  });

  it('accepts plain http on a loopback address in the sandbox only, and no cross-over between test and live gateways', () => {
    for (const url of ['http://127.0.0.1:4010/xml/v1/request.api', 'http://localhost:4010/x', 'http://[::1]:4010/x', 'https://anet.internal.example/x']) {
      assert.deepEqual(problemsOf({ ...ANET, PAYRAIL_AUTHORIZE_NET_URL: url }), [], url);
    }
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...ANET, PAYRAIL_AUTHORIZE_NET_URL: 'http://127.0.0.1:4010/xml/v1/request.api' }), [
      'PAYRAIL_AUTHORIZE_NET_URL must be an https:// URL in production, got "http://127.0.0.1:4010/xml/v1/request.api"',
    ]);
    assert.match(
      problemsOf({ ...ANET, PAYRAIL_AUTHORIZE_NET_URL: 'https://api.authorize.net/xml/v1/request.api' }).join(),
      /production gateway; the sandbox environment/,
    );
    assert.match(
      problemsOf({ ...PRODUCTION, ...ANET, PAYRAIL_AUTHORIZE_NET_URL: 'https://apitest.authorize.net/xml/v1/request.api' }).join(),
      /sandbox; production uses/,
    );
    assert.match(problemsOf({ ...ANET, PAYRAIL_AUTHORIZE_NET_URL: 'https://user:pw@anet.example/x' }).join(), /must not carry a user name or password/);
  });

  it('knows every documented Authorize.net host, whatever its case or trailing dot', () => {
    for (const host of ['api.authorize.net', 'API2.Authorize.Net', 'api.authorize.net.', 'api2.authorize.net.']) {
      assert.match(problemsOf({ ...ANET, PAYRAIL_AUTHORIZE_NET_URL: `https://${host}/xml/v1/request.api` }).join(), /production gateway/, host);
    }
    for (const host of ['APITEST.authorize.net', 'apitest.authorize.net.']) {
      assert.match(
        problemsOf({ ...PRODUCTION, ...ANET, PAYRAIL_AUTHORIZE_NET_URL: `https://${host}/xml/v1/request.api` }).join(),
        /sandbox; production uses/,
        host,
      );
    }
  });

  it('shows only scheme, host and path of a refused URL: never its user name, password or query', () => {
    const problems = problemsOf({ ...ANET, PAYRAIL_AUTHORIZE_NET_URL: 'https://user:s3cret@anet.example/x?key=t0ken#frag' }).join();
    assert.match(problems, /got "https:\/\/anet\.example\/x"/);
    assert.doesNotMatch(problems, /s3cret|t0ken|user:|frag/);
    assert.doesNotMatch(problemsOf({ ...ANET, PAYRAIL_AUTHORIZE_NET_URL: 'https://anet.example/x?key=t0ken' }).join(), /t0ken/);
  });

  it('satisfies production for the card processor; the payout network names a built-in one or a module, the others modules', () => {
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...ANET }), []);
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...ANET, PAYRAIL_PAYOUT_NETWORK: '', PAYRAIL_FX_PROVIDER: 'sandbox' }), [
      'production needs a real payout network, not the sandbox simulator: set PAYRAIL_PAYOUT_NETWORK to mtn-momo or pawapay (built in) or a connector module',
      'production needs a real FX provider, not the sandbox simulator: set PAYRAIL_FX_PROVIDER to openexchangerates (built in) or a connector module',
    ]);
    assert.deepEqual(problemsOf({ ...PRODUCTION }), [
      'production needs a real card processor, not the sandbox simulator: set PAYRAIL_CARD_PROCESSOR to authorize-net (built in) or a connector module',
    ]);
  });
});

describe('a production corridor', () => {
  it('may not name the sandbox simulator as its payout network', () => {
    const sandboxFile = path.join(import.meta.dirname, '..', '..', 'config', 'corridors.sandbox.json');
    const document = JSON.parse(fs.readFileSync(sandboxFile, 'utf8')) as { corridors: Array<Record<string, unknown>> };
    document.corridors[1]!.payout_connector = 'sandbox';
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payrail-corridors-')), 'corridors.json');
    fs.writeFileSync(file, JSON.stringify(document));
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...ANET, PAYRAIL_CORRIDORS_FILE: file }), [
      'production needs a real payout network for corridor 1002, not the sandbox simulator: set its payout_connector to mtn-momo or pawapay (built in) or a connector module',
    ]);
  });
});

describe('built-in connector names', () => {
  it('are refused in another slot, and coming ones are reserved', () => {
    assert.deepEqual(problemsOf({ PAYRAIL_PAYOUT_NETWORK: 'authorize-net', PAYRAIL_KYC_PROVIDER: 'veriff', PAYRAIL_CARD_PROCESSOR: 'pawapay' }), [
      `PAYRAIL_CARD_PROCESSOR names Payrail's built-in payout network, which is no card processor (a module of that name is loaded by its path), got "pawapay"`,
      `PAYRAIL_PAYOUT_NETWORK names Payrail's built-in card processor, which is no payout network (a module of that name is loaded by its path), got "authorize-net"`,
      // veriff is built in: choosing it asks for its settings.
      'PAYRAIL_VERIFF_API_KEY (or PAYRAIL_VERIFF_API_KEY_FILE, a file holding it) is required with PAYRAIL_KYC_PROVIDER=veriff',
      'PAYRAIL_VERIFF_SHARED_SECRET (or PAYRAIL_VERIFF_SHARED_SECRET_FILE, a file holding it) is required with PAYRAIL_KYC_PROVIDER=veriff',
    ]);
  });

  it('are never imported as a module by the loader', async () => {
    const context = { environment: 'sandbox' as const, publicUrl: 'http://x', sandboxDelayMs: 0, clock: new ManualClock(), log: createLogger('silent') };
    await assert.rejects(
      loadProvider('authorize-net', context, () => ({}), 'fx'),
      /refused: it names Payrail's built-in card processor/,
    );
    await assert.rejects(
      loadProvider('openexchangerates', context, () => ({}), 'kyc'),
      /refused: it names Payrail's built-in FX provider, which is no KYC provider/,
    );
  });
});

describe('secrets crossing to the worker thread', () => {
  it('are boxed again on arrival', () => {
    const config = loadConfig(ANET);
    const sent = structuredClone(secretsUnboxedForThread(config));
    const received = secretsBoxedFromThread(sent);
    assert.ok(received.connectors.authorizeNet!.transactionKey instanceof Secret);
    assert.equal(received.connectors.authorizeNet!.transactionKey.reveal(), TRANSACTION_KEY);
    assert.deepEqual(JSON.parse(JSON.stringify(received)), JSON.parse(JSON.stringify(config)));
  });
});
