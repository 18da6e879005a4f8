// PAYRAIL_FX_PROVIDER=openexchangerates in configuration: the App ID from
// its variable or a file, boxed and never printed; the URL rules of
// config/provider-url.ts; the refresh interval and the largest rate age,
// their defaults and bounds; production accepting it as a real FX provider;
// and the connector built by name, fetching at start without failing the
// start when the provider is down.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { parseCorridors } from '../../src/domain/corridors.ts';
import { createLogger } from '../../src/log.ts';
import { createProviders } from '../../src/providers/index.ts';
import { tempDir } from '../helpers/stores.ts';
import { startOxrStandIn } from './openexchangerates/stand-in.ts';

const APP_ID = '5f4dcc3b5aa765d61d8327deb882cf99';
const OXR = { PAYRAIL_FX_PROVIDER: 'openexchangerates', PAYRAIL_OXR_APP_ID: APP_ID };
const PRODUCTION = {
  PAYRAIL_ENV: 'production',
  PAYRAIL_TRUST_PROXY_TLS: '1',
  PAYRAIL_PUBLIC_URL: 'https://pay.example.com',
  PAYRAIL_CARD_KEY: crypto.randomBytes(32).toString('base64'),
  PAYRAIL_CARD_PROCESSOR: './connectors/card.js',
  PAYRAIL_PAYOUT_NETWORK: './connectors/payout.js',
  PAYRAIL_KYC_PROVIDER: './connectors/kyc.js',
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

describe('PAYRAIL_FX_PROVIDER=openexchangerates', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads its settings with their defaults: the one API host, hourly refresh, three hours of largest age', () => {
    const settings = loadConfig(OXR).connectors.openExchangeRates!;
    assert.equal(settings.url, 'https://openexchangerates.org/api');
    assert.equal(settings.appId.reveal(), APP_ID);
    assert.equal(settings.refreshSeconds, 3600);
    assert.equal(settings.maxAgeSeconds, 10_800);
    assert.equal(loadConfig({ ...OXR, PAYRAIL_OXR_REFRESH_SECONDS: '600' }).connectors.openExchangeRates!.maxAgeSeconds, 1800);
    assert.equal(loadConfig({ ...OXR, PAYRAIL_OXR_REFRESH_SECONDS: '86400' }).connectors.openExchangeRates!.maxAgeSeconds, 172_800, 'capped at two days');
    assert.equal(loadConfig({ ...OXR, PAYRAIL_OXR_MAX_AGE_SECONDS: '5400' }).connectors.openExchangeRates!.maxAgeSeconds, 5400);
    assert.equal(loadConfig({}).connectors.openExchangeRates, null, 'not read unless chosen');
  });

  it('never prints the App ID, and takes it from a file', () => {
    const config = loadConfig(OXR);
    assert.ok(!JSON.stringify(config).includes(APP_ID));
    assert.ok(!inspect(config, { depth: 10 }).includes(APP_ID));
    const file = path.join(dir, 'oxr-app-id');
    fs.writeFileSync(file, `${APP_ID}\n`);
    const fromFile = loadConfig({ PAYRAIL_FX_PROVIDER: 'openexchangerates', PAYRAIL_OXR_APP_ID_FILE: file }).connectors.openExchangeRates!;
    assert.equal(fromFile.appId.reveal(), APP_ID);
  });

  it('reports each bad setting by name', () => {
    assert.deepEqual(problemsOf({ PAYRAIL_FX_PROVIDER: 'openexchangerates' }), [
      'PAYRAIL_OXR_APP_ID (or PAYRAIL_OXR_APP_ID_FILE, a file holding it) is required with PAYRAIL_FX_PROVIDER=openexchangerates',
    ]);
    assert.deepEqual(problemsOf({ ...OXR, PAYRAIL_OXR_APP_ID: 'has space' }), [
      'PAYRAIL_OXR_APP_ID must be the App ID: printable characters without spaces, at most 64',
    ]);
    assert.deepEqual(problemsOf({ ...OXR, PAYRAIL_OXR_REFRESH_SECONDS: '30', PAYRAIL_OXR_MAX_AGE_SECONDS: '1h' }), [
      'PAYRAIL_OXR_REFRESH_SECONDS must be a whole number of seconds from 60 to 86400, got "30"',
      'PAYRAIL_OXR_MAX_AGE_SECONDS must be a whole number of seconds from 3600 to 172800, got "1h"',
    ]);
    assert.deepEqual(problemsOf({ ...OXR, PAYRAIL_OXR_REFRESH_SECONDS: '600', PAYRAIL_OXR_MAX_AGE_SECONDS: '599' }), [
      'PAYRAIL_OXR_MAX_AGE_SECONDS must be a whole number of seconds from 600 to 172800, got "599"',
    ]);
    assert.deepEqual(problemsOf({ ...OXR, PAYRAIL_OXR_URL: 'http://example.com/api' }), [
      'PAYRAIL_OXR_URL must be an https:// URL, or http:// on a loopback address (a local stand-in), got "http://example.com/api"',
    ]);
    assert.deepEqual(problemsOf({ ...OXR, PAYRAIL_OXR_URL: `https://openexchangerates.org/api?app_id=${APP_ID}` }), [
      'PAYRAIL_OXR_URL must have no query or fragment, got "https://openexchangerates.org/api"',
    ]);
    assert.equal(loadConfig({ ...OXR, PAYRAIL_OXR_URL: 'http://127.0.0.1:9/api' }).connectors.openExchangeRates!.url, 'http://127.0.0.1:9/api');
  });

  it('is a real FX provider for production, which accepts https only', () => {
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...OXR }), []);
    assert.deepEqual(problemsOf({ ...PRODUCTION, ...OXR, PAYRAIL_OXR_URL: 'http://127.0.0.1:9/api' }), [
      'PAYRAIL_OXR_URL must be an https:// URL in production, got "http://127.0.0.1:9/api"',
    ]);
  });

  it('is built by name; a provider down at start does not stop the start', async () => {
    const standIn = await startOxrStandIn();
    try {
      standIn.failNext('http-500');
      const config = loadConfig({ ...OXR, PAYRAIL_OXR_URL: standIn.url, PAYRAIL_OXR_APP_ID: standIn.appId });
      const corridors = parseCorridors(JSON.parse(fs.readFileSync(config.corridorsFile, 'utf8')));
      const context = { environment: 'sandbox' as const, publicUrl: 'http://x', sandboxDelayMs: 0, clock: new ManualClock(), log: createLogger('silent') };
      const providers = await createProviders(
        config.providers,
        config.connectors,
        context,
        { get: () => undefined, set: () => undefined } as never,
        corridors,
        {
          offsetMs: async () => 0,
        },
      );
      await standIn.requestsReached(1);
      assert.deepEqual(standIn.queries(), [{ symbols: 'EGP,GHS,KES,NGN,PHP,UGX' }]);
      assert.equal(typeof providers.fx.rate, 'function');
    } finally {
      await standIn.close();
    }
  });
});
