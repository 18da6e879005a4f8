// The Veriff connector against Veriff's API: the same tests run against the
// stand-in (test/providers/veriff/stand-in.ts) and, when
// PAYRAIL_VERIFF_TEST_API_KEY and PAYRAIL_VERIFF_TEST_SHARED_SECRET name a
// test integration (PAYRAIL_VERIFF_TEST_URL, default
// https://stationapi.veriff.com), against Veriff itself; that part is
// skipped otherwise. The stand-in alone also breaks the line on purpose:
// a hung call ends at the caller's deadline, a 5xx and a dropped connection
// throw (outcome unknown), wrong keys are refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret } from '../../src/domain/secret.ts';
import type { SessionKycProvider } from '../../src/providers/kyc.ts';
import { BREAKER_DEFAULTS, isBreakerOpen } from '../../src/providers/breaker.ts';
import { kycWithBreaker } from '../../src/providers/connector-breakers.ts';
import { VeriffAnswerUnusable, VeriffUnavailable } from '../../src/providers/veriff/client.ts';
import { createVeriff } from '../../src/providers/veriff/index.ts';
import { SESSION_LIFETIME_MS } from '../../src/providers/veriff/settings.ts';
import { startVeriffStandIn, type VeriffStandIn } from './veriff/stand-in.ts';

const VENDOR_DATA = '0f8fad5b-d9cb-469f-a165-70867728950e';

interface Target {
  readonly name: string;
  connector(): SessionKycProvider;
}

function contract(target: () => Target): void {
  it('starts a session: a UUID id and an http(s) link that expires in 7 days', async () => {
    const before = Date.now();
    const session = await target().connector().start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }, AbortSignal.timeout(10_000));
    assert.match(session.sessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(session.url, /^https?:\/\//);
    assert.ok(session.expiresAtMs !== null && session.expiresAtMs >= before + SESSION_LIFETIME_MS && session.expiresAtMs <= Date.now() + SESSION_LIFETIME_MS);
  });

  it('reads a new session as pending (no decision yet)', async () => {
    const connector = target().connector();
    const session = await connector.start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA });
    assert.deepEqual(await connector.decision(session.sessionId, AbortSignal.timeout(10_000)), { decision: 'pending', reasonCode: null, decidedAtMs: null });
  });
}

describe('veriff contract (stand-in)', () => {
  let standIn: VeriffStandIn;
  const connectorWith = (overrides: { apiKey?: string; sharedSecret?: string; callTimeoutMs?: number } = {}) =>
    createVeriff({
      url: standIn.url,
      apiKey: new Secret(overrides.apiKey ?? standIn.apiKey),
      sharedSecret: new Secret(overrides.sharedSecret ?? standIn.sharedSecret),
      ...(overrides.callTimeoutMs === undefined ? {} : { callTimeoutMs: overrides.callTimeoutMs }),
    });
  before(async () => {
    standIn = await startVeriffStandIn();
  });
  after(() => standIn.close());

  contract(() => ({ name: 'stand-in', connector: () => connectorWith() }));

  it('sends vendorData and never the phone number', async () => {
    const session = await connectorWith().start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA });
    assert.equal(standIn.session(session.sessionId).vendorData, VENDOR_DATA);
    assert.doesNotMatch(JSON.stringify(standIn.sessions()), /254712345678/);
  });

  it('reads decisions with their reason code and time', async () => {
    const connector = connectorWith();
    const session = await connector.start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA });
    await standIn.decide(session.sessionId, 'resubmission_requested', { reasonCode: 201, decisionTime: '2026-11-28T03:10:00.000Z', webhook: false });
    assert.deepEqual(await connector.decision(session.sessionId), {
      decision: 'resubmission_requested',
      reasonCode: '201',
      decidedAtMs: Date.parse('2026-11-28T03:10:00.000Z'),
    });
    await standIn.decide(session.sessionId, 'approved', { decisionTime: '2026-11-28T03:20:00.000Z', webhook: false });
    assert.deepEqual(await connector.decision(session.sessionId), {
      decision: 'approved',
      reasonCode: null,
      decidedAtMs: Date.parse('2026-11-28T03:20:00.000Z'),
    });
  });

  it('is refused with a wrong API key or shared secret, and for a session Veriff does not know', async () => {
    await assert.rejects(connectorWith({ apiKey: 'wrong' }).start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }), VeriffUnavailable);
    const session = await connectorWith().start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA });
    await assert.rejects(connectorWith({ sharedSecret: 'wrong' }).decision(session.sessionId), VeriffUnavailable);
    await assert.rejects(connectorWith().decision('11111111-2222-4333-8444-555555555555'), VeriffAnswerUnusable);
    await assert.rejects(connectorWith().decision('../../v1/sessions'), /a session id is a UUID/);
  });

  it('throws (outcome unknown) on a 5xx and on a connection dropped after the session was made', async () => {
    standIn.failNext('http-500');
    await assert.rejects(
      connectorWith().start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }),
      (error: Error) => error instanceof VeriffUnavailable && /HTTP 500/.test(error.message),
    );
    const sessionsBefore = standIn.sessions().length;
    standIn.failNext('drop-after-commit');
    await assert.rejects(connectorWith().start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }), VeriffUnavailable);
    assert.equal(standIn.sessions().length, sessionsBefore + 1);
  });

  it('stops waiting for a hung call at the caller deadline, and at its own', async () => {
    standIn.failNext('hang');
    const controller = new AbortController();
    const call = connectorWith().start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }, controller.signal);
    controller.abort(new Error('caller gave up'));
    await assert.rejects(call);
    standIn.failNext('hang');
    await assert.rejects(
      connectorWith({ callTimeoutMs: 50 }).start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }),
      /TimeoutError|no answer|timeout/i,
    );
  });
});

describe('veriff behind its circuit breaker', () => {
  let standIn: VeriffStandIn;
  before(async () => {
    standIn = await startVeriffStandIn();
  });
  after(() => standIn.close());

  it('opens after consecutive failures and then refuses before sending; webhooks are still verified; an unknown session does not count', async () => {
    const veriff = createVeriff({ url: standIn.url, apiKey: new Secret(standIn.apiKey), sharedSecret: new Secret(standIn.sharedSecret) });
    const guarded = kycWithBreaker(veriff);
    assert.equal(guarded.kind, 'sessions');
    if (guarded.kind !== 'sessions') return;
    // An answer Payrail cannot use (a session Veriff does not know) is not an outage.
    for (let i = 0; i < BREAKER_DEFAULTS.consecutiveFailuresMax + 1; i++) {
      await assert.rejects(guarded.decision('11111111-2222-4333-8444-555555555555', AbortSignal.timeout(5_000)), VeriffAnswerUnusable);
    }
    standIn.failNext('http-500', BREAKER_DEFAULTS.consecutiveFailuresMax);
    for (let i = 0; i < BREAKER_DEFAULTS.consecutiveFailuresMax; i++) {
      await assert.rejects(guarded.start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }, AbortSignal.timeout(5_000)), VeriffUnavailable);
    }
    const sent = standIn.requestCount();
    await assert.rejects(guarded.start({ phoneE164: '+254712345678', vendorData: VENDOR_DATA }, AbortSignal.timeout(5_000)), (error) => isBreakerOpen(error));
    assert.equal(standIn.requestCount(), sent);
    // The signature check is local work: callbacks are read while the API is refused.
    assert.equal(guarded.name, 'veriff');
    assert.equal(guarded.callbacks, veriff.callbacks);
  });
});

const realKey = process.env.PAYRAIL_VERIFF_TEST_API_KEY;
const realSecret = process.env.PAYRAIL_VERIFF_TEST_SHARED_SECRET;
describe('veriff contract (Veriff test integration)', {
  skip: realKey === undefined || realSecret === undefined ? 'PAYRAIL_VERIFF_TEST_API_KEY / _SHARED_SECRET not set' : false,
}, () => {
  contract(() => ({
    name: 'veriff',
    connector: () =>
      createVeriff({
        url: process.env.PAYRAIL_VERIFF_TEST_URL ?? 'https://stationapi.veriff.com',
        apiKey: new Secret(realKey!),
        sharedSecret: new Secret(realSecret!),
      }),
  }));
});
