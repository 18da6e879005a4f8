// PAYRAIL_KYC_PROVIDER=veriff and Payrail's KYC limits as configuration reads
// them: the API key and shared secret are required (from their variable or a
// _FILE), boxed and never shown; the URL follows the provider-URL rules; the
// limits are USD amounts, the unverified one no higher than the verified one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { tempDir } from '../helpers/stores.ts';

const VERIFF = { PAYRAIL_KYC_PROVIDER: 'veriff', PAYRAIL_VERIFF_API_KEY: 'api-key-7f3c', PAYRAIL_VERIFF_SHARED_SECRET: 'shared-secret-91ab' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('PAYRAIL_KYC_PROVIDER=veriff', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the URL (Veriff host by default), the API key and the shared secret, boxed', () => {
    const config = loadConfig(VERIFF);
    const settings = config.connectors.veriff;
    assert.ok(settings !== null);
    assert.equal(settings.url, 'https://stationapi.veriff.com');
    assert.equal(settings.apiKey.reveal(), 'api-key-7f3c');
    assert.equal(settings.sharedSecret.reveal(), 'shared-secret-91ab');
    assert.doesNotMatch(inspect(config, { depth: 10 }) + JSON.stringify(config), /api-key-7f3c|shared-secret-91ab/);
    assert.equal(loadConfig({}).connectors.veriff, null);
  });

  it('takes the secrets from files', () => {
    fs.writeFileSync(path.join(dir, 'key'), 'from-file-key\n');
    fs.writeFileSync(path.join(dir, 'secret'), 'from-file-secret\n');
    const settings = loadConfig({
      PAYRAIL_KYC_PROVIDER: 'veriff',
      PAYRAIL_VERIFF_API_KEY_FILE: path.join(dir, 'key'),
      PAYRAIL_VERIFF_SHARED_SECRET_FILE: path.join(dir, 'secret'),
    }).connectors.veriff;
    assert.equal(settings?.apiKey.reveal(), 'from-file-key');
    assert.equal(settings?.sharedSecret.reveal(), 'from-file-secret');
  });

  it('requires both secrets, and refuses URLs the provider-URL rules refuse', () => {
    assert.deepEqual(problemsOf({ PAYRAIL_KYC_PROVIDER: 'veriff' }), [
      'PAYRAIL_VERIFF_API_KEY (or PAYRAIL_VERIFF_API_KEY_FILE, a file holding it) is required with PAYRAIL_KYC_PROVIDER=veriff',
      'PAYRAIL_VERIFF_SHARED_SECRET (or PAYRAIL_VERIFF_SHARED_SECRET_FILE, a file holding it) is required with PAYRAIL_KYC_PROVIDER=veriff',
    ]);
    assert.deepEqual(problemsOf({ ...VERIFF, PAYRAIL_VERIFF_URL: 'http://127.0.0.1:9999' }), []);
    assert.match(problemsOf({ ...VERIFF, PAYRAIL_VERIFF_URL: 'http://veriff.example' }).join(), /PAYRAIL_VERIFF_URL must be an https:\/\/ URL/);
    const shown = problemsOf({ ...VERIFF, PAYRAIL_VERIFF_URL: 'https://u:pw0rd@veriff.example/?k=t0ken' }).join();
    assert.match(shown, /PAYRAIL_VERIFF_URL/);
    assert.doesNotMatch(shown, /pw0rd|t0ken/);
  });
});

describe('PAYRAIL_KYC_VERIFIED_LIMIT and PAYRAIL_KYC_UNVERIFIED_LIMIT', () => {
  it('default to 3000.00 and 0', () => {
    assert.deepEqual(loadConfig({}).kycLimits, { verifiedCents: 300_000, unverifiedCents: 0 });
  });

  it('read USD amounts and refuse anything else, or an unverified limit above the verified one', () => {
    assert.deepEqual(loadConfig({ PAYRAIL_KYC_VERIFIED_LIMIT: '500', PAYRAIL_KYC_UNVERIFIED_LIMIT: '25.50' }).kycLimits, {
      verifiedCents: 50_000,
      unverifiedCents: 2_550,
    });
    assert.deepEqual(problemsOf({ PAYRAIL_KYC_VERIFIED_LIMIT: '1e3' }), [
      'PAYRAIL_KYC_VERIFIED_LIMIT must be an amount in USD like "3000.00" (0 allowed), got "1e3"',
    ]);
    assert.deepEqual(problemsOf({ PAYRAIL_KYC_VERIFIED_LIMIT: '10.00', PAYRAIL_KYC_UNVERIFIED_LIMIT: '10.01' }), [
      'PAYRAIL_KYC_UNVERIFIED_LIMIT (10.01) must not exceed PAYRAIL_KYC_VERIFIED_LIMIT (10.00)',
    ]);
  });
});
