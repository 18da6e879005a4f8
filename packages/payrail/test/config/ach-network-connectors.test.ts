// The ACH network slot's built-in connector in configuration
// (PAYRAIL_ACH_NETWORK=authorize-net): production's default follows an
// Authorize.net card processor, one set of PAYRAIL_AUTHORIZE_NET_* settings
// serves both slots and is demanded by whichever chooses it, refusals name
// the setting, and the connector is built by name behind a breaker of its own.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { parseCorridors } from '../../src/domain/corridors.ts';
import { createLogger } from '../../src/log.ts';
import { breakerOf } from '../../src/providers/connector-breakers.ts';
import { createProviders } from '../../src/providers/index.ts';

const TRANSACTION_KEY = '7aBcD3fGh1JkLmN5';
const ANET_SETTINGS = { PAYRAIL_AUTHORIZE_NET_LOGIN_ID: 'payrail-test', PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY: TRANSACTION_KEY };
const ANET = { PAYRAIL_CARD_PROCESSOR: 'authorize-net', ...ANET_SETTINGS };
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

describe('PAYRAIL_ACH_NETWORK defaults', () => {
  it('in production: authorize-net when the card processor is authorize-net, else none (checks refused)', () => {
    const withAnet = loadConfig({ ...PRODUCTION, ...ANET });
    assert.equal(withAnet.providers.achNetwork, 'authorize-net');
    assert.equal(withAnet.connectors.authorizeNet?.loginId, 'payrail-test');
    assert.equal(loadConfig({ ...PRODUCTION, PAYRAIL_CARD_PROCESSOR: './connectors/cards.js' }).providers.achNetwork, 'none');
    assert.equal(loadConfig({ ...PRODUCTION, PAYRAIL_CARD_PROCESSOR: './connectors/cards.js' }).connectors.authorizeNet, null);
  });

  it('in the sandbox: the sandbox ACH network, whatever the card processor', () => {
    assert.equal(loadConfig({ ...ANET }).providers.achNetwork, 'sandbox');
    assert.equal(loadConfig({}).providers.achNetwork, 'sandbox');
  });

  it('an explicit choice wins: none keeps checks off beside an Authorize.net card processor', () => {
    assert.equal(loadConfig({ ...PRODUCTION, ...ANET, PAYRAIL_ACH_NETWORK: 'none' }).providers.achNetwork, 'none');
    assert.equal(loadConfig({ ...PRODUCTION, ...ANET, PAYRAIL_ACH_NETWORK: './connectors/ach.js' }).providers.achNetwork, './connectors/ach.js');
  });
});

describe('PAYRAIL_ACH_NETWORK=authorize-net', () => {
  it('reads the one set of Authorize.net settings when only the ACH network chooses it', () => {
    const config = loadConfig({ PAYRAIL_ACH_NETWORK: 'authorize-net', ...ANET_SETTINGS });
    assert.equal(config.providers.cardProcessor, 'sandbox');
    assert.equal(config.connectors.authorizeNet?.url, 'https://apitest.authorize.net/xml/v1/request.api');
    assert.equal(config.connectors.authorizeNet?.transactionKey.reveal(), TRANSACTION_KEY);
  });

  it('names the setting that chose it when its settings are missing, both when both chose it', () => {
    assert.deepEqual(problemsOf({ PAYRAIL_ACH_NETWORK: 'authorize-net' }), [
      'PAYRAIL_AUTHORIZE_NET_LOGIN_ID (the API login id) is required with PAYRAIL_ACH_NETWORK=authorize-net',
      'PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY (or PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY_FILE, a file holding it) is required with PAYRAIL_ACH_NETWORK=authorize-net',
    ]);
    assert.deepEqual(problemsOf({ PAYRAIL_ACH_NETWORK: 'authorize-net', PAYRAIL_CARD_PROCESSOR: 'authorize-net' }), [
      'PAYRAIL_AUTHORIZE_NET_LOGIN_ID (the API login id) is required with PAYRAIL_CARD_PROCESSOR=authorize-net and PAYRAIL_ACH_NETWORK=authorize-net',
      'PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY (or PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY_FILE, a file holding it) is required with PAYRAIL_CARD_PROCESSOR=authorize-net and PAYRAIL_ACH_NETWORK=authorize-net',
    ]);
  });

  it('production: the default itself demands the settings, and the sandbox simulator is refused as the ACH network', () => {
    assert.deepEqual(problemsOf({ ...PRODUCTION, PAYRAIL_CARD_PROCESSOR: 'authorize-net' }), [
      'PAYRAIL_AUTHORIZE_NET_LOGIN_ID (the API login id) is required with PAYRAIL_CARD_PROCESSOR=authorize-net and PAYRAIL_ACH_NETWORK=authorize-net',
      'PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY (or PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY_FILE, a file holding it) is required with PAYRAIL_CARD_PROCESSOR=authorize-net and PAYRAIL_ACH_NETWORK=authorize-net',
    ]);
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...ANET, PAYRAIL_ACH_NETWORK: 'sandbox' }), [
      'production needs a real ACH network, not the sandbox simulator: set PAYRAIL_ACH_NETWORK to authorize-net (built in) or a connector module',
    ]);
  });

  it('refuses another slot built-in name as the ACH network, and authorize-net is no payout network', () => {
    assert.deepEqual(problemsOf({ PAYRAIL_ACH_NETWORK: 'pawapay' }), [
      `PAYRAIL_ACH_NETWORK names Payrail's built-in payout network, which is no ACH network (a module of that name is loaded by its path), got "pawapay"`,
    ]);
    assert.deepEqual(problemsOf({ PAYRAIL_PAYOUT_NETWORK: 'authorize-net' }), [
      `PAYRAIL_PAYOUT_NETWORK names Payrail's built-in card processor, which is no payout network (a module of that name is loaded by its path), got "authorize-net"`,
    ]);
  });

  it('is built by name, on the same settings as the card processor, behind a breaker of its own', async () => {
    const config = loadConfig({ ...ANET, PAYRAIL_ACH_NETWORK: 'authorize-net' });
    const corridors = parseCorridors(JSON.parse(fs.readFileSync(config.corridorsFile, 'utf8')));
    const context = { environment: 'sandbox' as const, publicUrl: 'http://x', sandboxDelayMs: 0, clock: new ManualClock(), log: createLogger('silent') };
    const providers = await createProviders(config.providers, config.connectors, context, { get: () => undefined, set: () => undefined } as never, corridors, {
      offsetMs: async () => 0,
    });
    const network = providers.achNetwork;
    assert.equal(network?.name, 'authorize-net');
    assert.equal(network?.returnWatchMs, 70 * 24 * 3_600_000);
    assert.equal(network?.resendWindowMs, 8 * 3_600_000);
    const achBreaker = breakerOf(network!);
    assert.ok(achBreaker !== null, 'the ACH network has a breaker');
    assert.notEqual(achBreaker, breakerOf(providers.cardProcessor), 'not the card processor one');
  });
});
