// The pawaPay connector's pure parts: amounts, statement text, corridor
// settings, failure codes in Payrail's terms, status mapping, the RFC 9421
// signature check (malformed input refused, never thrown), and its settings.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { BUILT_IN_CONNECTORS } from '../../src/domain/connector-spec.ts';
import { amountText, decimalsFor } from '../../src/providers/pawapay/amounts.ts';
import { rejectionClassOf } from '../../src/providers/pawapay/codes.ts';
import { amountDecimalsOf, corridorProblemsOf } from '../../src/providers/pawapay/corridor.ts';
import { customerMessageOf, msisdnOf, outcomeOf, payoutRequestOf } from '../../src/providers/pawapay/operations.ts';
import { contentDigestHolds, parseSignatureInput, verifySignature } from '../../src/providers/pawapay/signatures.ts';
import { tempDir } from '../helpers/stores.ts';
import { connectorAt, submissionFor, zambiaCorridor } from './pawapay/fixtures.ts';
import { newCallbackKey, signedHeaders } from './pawapay/signing.ts';

const PAYOUT_ID = '5f3c2a1b-7d4e-4f60-8a9b-0c1d2e3f4a5b';

describe('pawapay amounts and request', () => {
  it('writes minor units with the decimals the provider takes, never rounding', () => {
    assert.equal(amountText(26_500, 2, 0), '265');
    assert.equal(amountText(26_550, 2, 2), '265.50');
    assert.equal(amountText(5, 2, 2), '0.05');
    assert.equal(amountText(1500, 0, 0), '1500');
    assert.equal(amountText(26_550, 2, 1), '265.5');
    assert.throws(() => amountText(26_550, 2, 0), /do not fit/);
    assert.throws(() => amountText(0, 2, 2), /positive/);
  });

  it('builds the documented v2 payout body: payoutId, amount text, currency, MMO recipient, customerMessage, metadata', () => {
    const submission = submissionFor('+260763456789', { idempotencyUuid: PAYOUT_ID, transferId: '123456' });
    assert.deepEqual(payoutRequestOf(submission), {
      payoutId: PAYOUT_ID,
      amount: '265',
      currency: 'ZMW',
      recipient: { type: 'MMO', accountDetails: { phoneNumber: '260763456789', provider: 'MTN_MOMO_ZMB' } },
      customerMessage: 'Transfer 123456',
      metadata: [{ transferId: '123456' }],
    });
  });

  it('writes an amount quoted with more decimals than the corridor now takes as it is, never rounding; one pawaPay cannot take is refused unsent', async () => {
    assert.equal(decimalsFor(26_550, 2, 0, 2), 1);
    assert.equal(decimalsFor(26_555, 2, 0, 2), 2);
    assert.equal(decimalsFor(26_000, 2, 0, 2), 0);
    assert.equal(decimalsFor(1_001, 3, 0, 2), null);
    assert.equal(payoutRequestOf(submissionFor('+260763456789', { receivedMinor: 26_555 }))?.amount, '265.55');
    const kwd = { ...zambiaCorridor(), currencyMinorUnits: 3 };
    const outcome = await connectorAt('http://127.0.0.1:9', 't').submit(submissionFor('+260763456789', { corridor: kwd, receivedMinor: 1_001 }));
    assert.deepEqual(outcome, { kind: 'rejected', errorCode: 'INVALID_AMOUNT', errorText: 'the amount has more decimals than pawaPay takes (at most 2)' });
  });

  it('keeps customerMessage within 4 to 22 letters and digits', () => {
    assert.equal(customerMessageOf('42'), 'Transfer 42');
    const long = customerMessageOf('12345678901234567890123456');
    assert.ok(long.length >= 4 && long.length <= 22 && /^[A-Za-z0-9 ]+$/.test(long), long);
    assert.equal(msisdnOf('+260763456789'), '260763456789');
    assert.throws(() => msisdnOf('+0123'), /E.164/);
  });
});

describe('pawapay corridor settings', () => {
  it("accepts a provider of the corridor's country and currency", () => {
    assert.deepEqual(corridorProblemsOf(zambiaCorridor()), []);
    assert.deepEqual(corridorProblemsOf(zambiaCorridor({ provider: 'AIRTEL_OAPI_ZMB', amount_decimals: '2' })), []);
  });

  it('names every problem: missing or malformed provider, wrong country or currency, unknown setting, bad decimals', () => {
    assert.match(corridorProblemsOf(zambiaCorridor({})).join('\n'), /provider is required/);
    assert.match(corridorProblemsOf(zambiaCorridor({ provider: 'mtn zambia' })).join('\n'), /must be a pawaPay provider code/);
    assert.match(corridorProblemsOf(zambiaCorridor({ provider: 'MTN_MOMO_RWA' })).join('\n'), /pays in RWA \(RW\).*country is ZM/s);
    assert.match(corridorProblemsOf(zambiaCorridor({ provider: 'MTN_MOMO_RWA' })).join('\n'), /pays RWF/);
    assert.match(corridorProblemsOf(zambiaCorridor({ provider: 'MTN_MOMO_ZMB', target_environment: 'x' })).join('\n'), /not a pawapay setting/);
    assert.match(corridorProblemsOf(zambiaCorridor({ provider: 'MTN_MOMO_ZMB', amount_decimals: '3' })).join('\n'), /must be "0", "1" or "2"/);
    const whole = { ...zambiaCorridor({ provider: 'MTN_MOMO_ZMB', amount_decimals: '2' }), currencyMinorUnits: 0 };
    assert.match(corridorProblemsOf(whole).join('\n'), /more than the currency's 0 minor units/);
  });

  it('amount decimals: whole units unless the corridor says more, never more than the currency has', () => {
    assert.equal(amountDecimalsOf(zambiaCorridor()), 0);
    assert.equal(amountDecimalsOf(zambiaCorridor({ provider: 'MTN_MOMO_ZMB', amount_decimals: '2' })), 2);
    assert.equal(amountDecimalsOf({ ...zambiaCorridor({ provider: 'MTN_MOMO_ZMB', amount_decimals: '2' }), currencyMinorUnits: 1 }), 1);
  });
});

describe('pawapay failure codes and statuses', () => {
  it('rejections: provider down, wallet empty and refused credentials are try-later; invalid requests are final; UNKNOWN_ERROR is unknown', () => {
    for (const code of [
      'PROVIDER_TEMPORARILY_UNAVAILABLE',
      'PAWAPAY_WALLET_OUT_OF_FUNDS',
      'AUTHENTICATION_ERROR',
      'HTTP_SIGNATURE_ERROR',
      'PAYOUTS_NOT_ALLOWED',
    ]) {
      assert.equal(rejectionClassOf(code), 'try_later', code);
    }
    for (const code of ['INVALID_PHONE_NUMBER', 'AMOUNT_OUT_OF_BOUNDS', 'INVALID_AMOUNT', 'INVALID_CURRENCY', 'INVALID_PROVIDER', 'INVALID_PARAMETER']) {
      assert.equal(rejectionClassOf(code), 'final', code);
    }
    assert.equal(rejectionClassOf('UNKNOWN_ERROR'), 'unknown');
  });

  it('maps lifecycle statuses: in flight pending, ENQUEUED pending longer, COMPLETED succeeded, FAILED failed with the code', () => {
    for (const status of ['ACCEPTED', 'PROCESSING', 'IN_RECONCILIATION', 'SUBMITTED']) assert.equal(outcomeOf({ status }, PAYOUT_ID).kind, 'pending', status);
    const enqueued = outcomeOf({ status: 'ENQUEUED' }, PAYOUT_ID);
    const processing = outcomeOf({ status: 'PROCESSING' }, PAYOUT_ID);
    assert.ok(enqueued.kind === 'pending' && processing.kind === 'pending' && enqueued.retryAfterMs > processing.retryAfterMs);
    assert.deepEqual(outcomeOf({ payoutId: PAYOUT_ID, status: 'COMPLETED', providerTransactionId: 'MP1234' }, PAYOUT_ID), {
      kind: 'succeeded',
      transactionRef: 'MP1234',
    });
    assert.deepEqual(outcomeOf({ status: 'COMPLETED' }, PAYOUT_ID), { kind: 'succeeded', transactionRef: PAYOUT_ID });
    for (const code of [
      'RECIPIENT_NOT_FOUND',
      'WALLET_LIMIT_REACHED',
      'PAYER_LIMIT_REACHED',
      'INSUFFICIENT_BALANCE',
      'PAYMENT_NOT_APPROVED',
      'MANUALLY_CANCELLED',
      'UNKNOWN_ERROR',
    ]) {
      assert.deepEqual(outcomeOf({ status: 'FAILED', failureReason: { failureCode: code, failureMessage: `text of ${code}` } }, PAYOUT_ID), {
        kind: 'failed',
        errorCode: code,
        errorText: `text of ${code}`,
      });
    }
    assert.equal(outcomeOf({ status: 'FAILED' }, PAYOUT_ID).kind, 'failed');
  });

  it("an unknown status or another payout's answer throws (never a made-up outcome)", () => {
    assert.throws(() => outcomeOf({ status: 'REVERSED_SOMEHOW' }, PAYOUT_ID), /does not know/);
    assert.throws(() => outcomeOf({}, PAYOUT_ID), /does not know/);
    assert.throws(() => outcomeOf({ payoutId: '00000000-0000-4000-8000-000000000000', status: 'COMPLETED' }, PAYOUT_ID), /another payout/);
  });
});

const LIMITS = { expiresSkewSeconds: 300, createdAheadMaxSeconds: 60, ageMaxSeconds: 15 * 60 };

describe('pawapay callback signatures', () => {
  const key = newCallbackKey();
  const keys = new Map([[key.id, crypto.createPublicKey(key.publicKeyPem)]]);
  const url = new URL('https://pay.example.com/providers/pawapay/callbacks');
  const body = Buffer.from(JSON.stringify({ payoutId: PAYOUT_ID, status: 'COMPLETED' }));
  const nowMs = Date.UTC(2026, 0, 2, 3, 4, 5);
  const request = (headers: Record<string, string | undefined>, raw = body) => ({
    method: 'POST',
    path: url.pathname,
    rawBody: raw,
    headers: { host: url.host, ...headers },
  });
  const signed = signedHeaders(key, url, body, nowMs);

  it('holds for a request signed as pawaPay documents', () => {
    assert.deepEqual(verifySignature(request(signed), keys, nowMs / 1000, LIMITS), { ok: true, keyId: key.id });
  });

  it('refuses a signature without created, created over a minute ahead, or created over 15 minutes ago, even before its expires', () => {
    const noCreated = signedHeaders(key, url, body, nowMs, 60, { withCreated: false });
    assert.deepEqual(verifySignature(request(noCreated), keys, nowMs / 1000, LIMITS), { ok: false, reason: 'the signature names no created time' });
    const ahead = signedHeaders(key, url, body, nowMs + 61_000);
    assert.deepEqual(verifySignature(request(ahead), keys, nowMs / 1000, LIMITS), { ok: false, reason: 'the signature was created in the future' });
    assert.equal(verifySignature(request(signedHeaders(key, url, body, nowMs + 59_000)), keys, nowMs / 1000, LIMITS).ok, true, 'a little ahead is clock skew');
    const longLived = signedHeaders(key, url, body, nowMs, 24 * 3600);
    assert.equal(verifySignature(request(longLived), keys, nowMs / 1000 + 14 * 60, LIMITS).ok, true);
    assert.deepEqual(verifySignature(request(longLived), keys, nowMs / 1000 + 15 * 60 + 1, LIMITS), { ok: false, reason: 'the signature is too old' });
    const noExpires = signedHeaders(key, url, body, nowMs, 60, { withExpires: false });
    assert.equal(verifySignature(request(noExpires), keys, nowMs / 1000 + 10 * 60, LIMITS).ok, true, 'expires is optional');
    assert.deepEqual(verifySignature(request(signed), keys, nowMs / 1000 + 60 + 301, LIMITS), { ok: false, reason: 'the signature has expired' });
  });

  it('verifies an ECDSA signature as r||s (RFC 9421) and, as a fallback, in DER', () => {
    const der = signedHeaders(key, url, body, nowMs, 60, { dsaEncoding: 'der' });
    assert.notEqual(Buffer.from(/:(.*):/.exec(der.signature!)![1]!, 'base64').length, 64);
    assert.deepEqual(verifySignature(request(der), keys, nowMs / 1000, LIMITS), { ok: true, keyId: key.id });
    assert.equal(Buffer.from(/:(.*):/.exec(signed.signature!)![1]!, 'base64').length, 64);
    assert.deepEqual(verifySignature(request(signed), keys, nowMs / 1000, LIMITS), { ok: true, keyId: key.id });
    const tampered = { ...der, 'signature-date': new Date(nowMs + 1000).toISOString() };
    assert.equal(verifySignature(request(tampered), keys, nowMs / 1000, LIMITS).ok, false, 'a DER signature must still hold');
  });

  it('refuses a signature past its expiry, for another host or path, or under an unpublished key', () => {
    assert.equal(verifySignature(request(signed), keys, nowMs / 1000 + 3600, LIMITS).ok, false);
    assert.equal(verifySignature({ ...request(signed), headers: { ...signed, host: 'evil.example.com' } }, keys, nowMs / 1000, LIMITS).ok, false);
    assert.equal(verifySignature({ ...request(signed), path: '/providers/other/callbacks' }, keys, nowMs / 1000, LIMITS).ok, false);
    assert.equal(verifySignature(request(signed), new Map(), nowMs / 1000, LIMITS).ok, false);
  });

  it('refuses malformed headers without throwing', () => {
    const broken: Array<Record<string, string | undefined>> = [
      {},
      { ...signed, 'signature-input': 'garbage' },
      { ...signed, 'signature-input': 'sig-pp=("@method" "@path");alg="ecdsa-p256-sha256";keyid="k"' },
      { ...signed, 'signature-input': signed['signature-input']!.replace('ecdsa-p256-sha256', 'hmac-sha256') },
      { ...signed, signature: 'sig-pp=:not base64!:' },
      { ...signed, signature: 'other=:AAAA:' },
      { ...signed, 'content-digest': 'sha-512=:AAAA:' },
      { ...signed, 'content-digest': 'md5=:AAAA:' },
      { ...signed, 'content-type': undefined },
      { ...signed, signature: 'x'.repeat(10_000) },
    ];
    for (const headers of broken) assert.equal(verifySignature(request(headers), keys, nowMs / 1000, LIMITS).ok, false, JSON.stringify(headers).slice(0, 120));
    assert.equal(parseSignatureInput('sig=("a" "a")'), null, 'a component twice');
    assert.equal(contentDigestHolds(undefined, body), false);
  });

  it('the receiver also tries the host a proxy forwarded (X-Forwarded-Host) when Host was rewritten', async () => {
    const { startPawaPayStandIn } = await import('./pawapay/stand-in.ts');
    const standIn = await startPawaPayStandIn();
    try {
      const real = signedHeaders(standIn.callbackKey, url, body, Date.now());
      const connector = connectorAt(standIn.url, standIn.token);
      const rewritten = { ...real, host: 'payrail-internal:8080' };
      assert.equal((await connector.callbacks!.verify({ rawBody: body, headers: rewritten })).accepted, false);
      assert.deepEqual(await connector.callbacks!.verify({ rawBody: body, headers: { ...rewritten, 'x-forwarded-host': url.host } }), {
        accepted: true,
        hints: [{ kind: 'payout', providerRef: PAYOUT_ID, reference: null }],
      });
    } finally {
      await standIn.close();
    }
  });

  it("reads pawaPay's keys once, and again for an unknown key id at most once a minute", async () => {
    const { startPawaPayStandIn } = await import('./pawapay/stand-in.ts');
    const standIn = await startPawaPayStandIn();
    try {
      let clockMs = Date.now();
      const connector = connectorAt(standIn.url, standIn.token, { nowMs: () => clockMs });
      const good = signedHeaders(standIn.callbackKey, url, body, clockMs);
      const forged = signedHeaders(newCallbackKey('HTTP_EC_P256_KEY:99'), url, body, clockMs);
      const verify = (headers: Record<string, string>) => connector.callbacks!.verify({ rawBody: body, headers: { ...headers, host: url.host } });
      assert.equal((await verify(good)).accepted, true);
      assert.equal((await verify(good)).accepted, true);
      assert.equal(standIn.requestCount(), 1, 'one read for two callbacks');
      assert.equal((await verify(forged)).accepted, false);
      assert.equal((await verify(forged)).accepted, false);
      assert.equal(standIn.requestCount(), 1, 'an unknown key id within a minute of the last read reads nothing');
      clockMs += 61_000;
      assert.equal((await verify(forged)).accepted, false);
      assert.equal(standIn.requestCount(), 2, 'after a minute an unknown key id reads the keys again');
    } finally {
      await standIn.close();
    }
  });

  it('verifies RSA-PSS SHA-512 signatures too', () => {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const digest = `sha-256=:${crypto.createHash('sha256').update(body).digest('base64')}:`;
    const params = `("@method" "@path" "content-digest");alg="rsa-pss-sha512";keyid="rsa-1";created=${nowMs / 1000}`;
    const base = `"@method": POST\n"@path": ${url.pathname}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
    const signature = crypto.sign('sha512', Buffer.from(base), { key: privateKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 });
    const headers = { 'content-digest': digest, 'signature-input': `sig1=${params}`, signature: `sig1=:${signature.toString('base64')}:` };
    assert.deepEqual(verifySignature(request(headers), new Map([['rsa-1', publicKey]]), nowMs / 1000, LIMITS), { ok: true, keyId: 'rsa-1' });
  });

  it("the receiver refuses what it cannot verify, without throwing, even when pawaPay's keys cannot be read", async () => {
    const connector = connectorAt('http://127.0.0.1:9', 'token');
    for (const callback of [
      { rawBody: Buffer.alloc(0), headers: {} },
      { rawBody: body, headers: {} },
      { rawBody: Buffer.from('not json'), headers: { ...signed, host: url.host } },
      { rawBody: body, headers: { ...signed, host: url.host } },
    ]) {
      const verdict = await connector.callbacks!.verify(callback);
      assert.equal(verdict.accepted, false);
    }
  });
});

describe('pawapay configuration', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };

  it('is a shipped payout network', () => {
    assert.ok(BUILT_IN_CONNECTORS.payoutNetwork.shipped.includes('pawapay'));
  });

  it('PAYRAIL_PAYOUT_NETWORK=pawapay reads the token (boxed) and the sandbox URL by default', () => {
    const settings = loadConfig({ PAYRAIL_PAYOUT_NETWORK: 'pawapay', PAYRAIL_PAWAPAY_TOKEN: 'tok-123' }).connectors.pawaPay!;
    assert.equal(settings.url, 'https://api.sandbox.pawapay.io');
    assert.equal(settings.token.reveal(), 'tok-123');
    assert.equal(JSON.stringify(settings).includes('tok-123'), false);
  });

  it('reads the token from a file, and refuses a missing token or the live API in the sandbox', () => {
    const file = path.join(dir, 'pawapay-token');
    fs.writeFileSync(file, 'tok-from-file\n');
    assert.equal(loadConfig({ PAYRAIL_PAYOUT_NETWORK: 'pawapay', PAYRAIL_PAWAPAY_TOKEN_FILE: file }).connectors.pawaPay!.token.reveal(), 'tok-from-file');
    assert.match(problemsOf({ PAYRAIL_PAYOUT_NETWORK: 'pawapay' }).join('\n'), /PAYRAIL_PAWAPAY_TOKEN .* is required/);
    assert.match(
      problemsOf({ PAYRAIL_PAYOUT_NETWORK: 'pawapay', PAYRAIL_PAWAPAY_TOKEN: 't', PAYRAIL_PAWAPAY_URL: 'https://api.pawapay.io' }).join('\n'),
      /live API/,
    );
    assert.match(
      problemsOf({ PAYRAIL_PAYOUT_NETWORK: 'pawapay', PAYRAIL_PAWAPAY_TOKEN: 't', PAYRAIL_PAWAPAY_URL: 'http://pawapay.example.com' }).join('\n'),
      /PAYRAIL_PAWAPAY_URL/,
    );
  });

  it('is read when a corridor names it, and only then', () => {
    const file = path.join(dir, 'corridors.json');
    const corridor = {
      service: '260001',
      country: 'ZM',
      currency: 'ZMW',
      currency_minor_units: 2,
      fx_rate: '26.5',
      min_amount: '1.00',
      max_amount: '1000.00',
      required_attributes: [],
      payout_connector: 'pawapay',
      payout_settings: { provider: 'MTN_MOMO_ZMB' },
    };
    fs.writeFileSync(file, JSON.stringify({ corridors: [corridor] }));
    assert.equal(loadConfig({ PAYRAIL_CORRIDORS_FILE: file, PAYRAIL_PAWAPAY_TOKEN: 't' }).connectors.pawaPay?.token.reveal(), 't');
    assert.match(problemsOf({ PAYRAIL_CORRIDORS_FILE: file }).join('\n'), /PAYRAIL_PAWAPAY_TOKEN/);
    assert.equal(loadConfig({}).connectors.pawaPay, null);
  });
});
