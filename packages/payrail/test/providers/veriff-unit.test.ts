// The Veriff connector's own rules, without a network: X-HMAC-SIGNATURE
// (made and checked, refusals that never throw), Veriff's statuses in
// Payrail's terms, and which webhooks become which hints.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it, mock } from 'node:test';
import { Secret } from '../../src/domain/secret.ts';
import { countsAgainstBreaker } from '../../src/providers/breaker.ts';
import { VeriffAnswerUnusable } from '../../src/providers/veriff/client.ts';
import { decisionOfStatus, hintDecisionOf, reasonCodeOf, sessionDecisionOf, timeOf } from '../../src/providers/veriff/decisions.ts';
import { start } from '../../src/providers/veriff/operations.ts';
import { hmacSignature, signatureHolds } from '../../src/providers/veriff/signature.ts';
import { hintsOfWebhook, webhookReceiver } from '../../src/providers/veriff/webhooks.ts';

const SECRET = 'b6c5f3a1-0d7e-4c59-9a8e-2f1d3c4b5a69';
const SESSION = 'aea9ba6d-1b47-47fc-a4fc-f72b6d3584a7';

const decisionBody = (status: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    status: 'success',
    verification: { id: SESSION, status, code: 9001, reasonCode: null, decisionTime: '2026-11-28T03:00:00.000Z', vendorData: 'x', ...extra },
    technicalData: { ip: null },
  });

describe('veriff X-HMAC-SIGNATURE', () => {
  it('is the lower-case hex HMAC-SHA256 of the payload keyed with the shared secret', () => {
    const expected = createHmac('sha256', SECRET).update(SESSION).digest('hex');
    assert.equal(hmacSignature(SECRET, SESSION), expected);
    assert.match(expected, /^[0-9a-f]{64}$/);
  });

  it('holds for the body it signs, in either case, and for nothing else', () => {
    const body = Buffer.from(decisionBody('approved'));
    const signature = hmacSignature(SECRET, body);
    assert.equal(signatureHolds(SECRET, body, signature), true);
    assert.equal(signatureHolds(SECRET, body, signature.toUpperCase()), true);
    assert.equal(signatureHolds(SECRET, Buffer.from(decisionBody('declined')), signature), false);
    assert.equal(signatureHolds(`${SECRET}x`, body, signature), false);
  });

  it('refuses a missing, short, long or non-hex header without throwing', () => {
    const body = Buffer.from('{}');
    for (const header of [undefined, '', 'sha256=abc', 'zz'.repeat(32), 'a'.repeat(63), 'a'.repeat(65), 'a'.repeat(128)]) {
      assert.equal(signatureHolds(SECRET, body, header), false, String(header));
    }
  });
});

describe('veriff decisions', () => {
  it('maps every documented status and refuses unknown ones', () => {
    for (const status of ['approved', 'declined', 'resubmission_requested', 'expired', 'abandoned', 'review']) assert.equal(decisionOfStatus(status), status);
    for (const status of ['created', 'started', 'submitted', 'APPROVED', '', 7, null, 'constructor', 'toString']) assert.equal(decisionOfStatus(status), null);
  });

  it('keeps the reason code of a refusal, the decision time, and no reason for an approval', () => {
    assert.deepEqual(sessionDecisionOf({ status: 'declined', code: 9102, reasonCode: 102, decisionTime: '2026-11-28T03:00:00.000Z' }), {
      decision: 'declined',
      reasonCode: '102',
      decidedAtMs: Date.parse('2026-11-28T03:00:00.000Z'),
    });
    assert.deepEqual(sessionDecisionOf({ status: 'resubmission_requested', reasonCode: '201', decisionTime: null }), {
      decision: 'resubmission_requested',
      reasonCode: '201',
      decidedAtMs: null,
    });
    assert.deepEqual(sessionDecisionOf({ status: 'approved', reasonCode: 102, decisionTime: 'not a time' }), {
      decision: 'approved',
      reasonCode: null,
      decidedAtMs: null,
    });
    assert.equal(sessionDecisionOf({ status: 'submitted' }), null);
    assert.equal(reasonCodeOf(-1), null);
    assert.equal(reasonCodeOf('1 OR 1'), null);
    assert.equal(timeOf('x'.repeat(100)), null);
  });

  it('says approved, declined or pending for a hint', () => {
    assert.equal(hintDecisionOf('approved'), 'approved');
    for (const decision of ['declined', 'resubmission_requested', 'expired', 'abandoned'] as const) assert.equal(hintDecisionOf(decision), 'declined');
    assert.equal(hintDecisionOf('review'), 'pending');
  });
});

describe('veriff webhooks', () => {
  const receiver = webhookReceiver(new Secret(SECRET));
  const signed = (body: string, signature = hmacSignature(SECRET, body)) =>
    receiver.verify({ rawBody: Buffer.from(body), headers: { 'x-hmac-signature': signature } });

  it('turn a signed decision into a kyc hint naming the session', () => {
    assert.deepEqual(signed(decisionBody('approved')), { accepted: true, hints: [{ kind: 'kyc', sessionId: SESSION, phoneE164: null, decision: 'approved' }] });
    assert.deepEqual(signed(decisionBody('resubmission_requested')), {
      accepted: true,
      hints: [{ kind: 'kyc', sessionId: SESSION, phoneE164: null, decision: 'declined' }],
    });
    // A status Payrail does not know is still a hint: the decision read says what it is.
    assert.deepEqual(signed(decisionBody('brand_new_status')), {
      accepted: true,
      hints: [{ kind: 'kyc', sessionId: SESSION, phoneE164: null, decision: 'pending' }],
    });
  });

  it('turn a signed event (no decision) into a pending hint', () => {
    const event = JSON.stringify({
      id: SESSION.toUpperCase(),
      attemptId: SESSION,
      feature: 'selfid',
      code: 7002,
      action: 'submitted',
      vendorData: 'x',
      endUserId: null,
    });
    assert.deepEqual(signed(event), { accepted: true, hints: [{ kind: 'kyc', sessionId: SESSION, phoneE164: null, decision: 'pending' }] });
  });

  it('refuse a missing, wrong or malformed signature and bodies that are not Veriff webhooks, without throwing', () => {
    const body = decisionBody('approved');
    assert.equal(receiver.verify({ rawBody: Buffer.from(body), headers: {} }).accepted, false);
    assert.equal(signed(body, hmacSignature(`${SECRET}x`, body)).accepted, false);
    assert.equal(signed(body, 'not-hex').accepted, false);
    for (const other of [
      'not json',
      '[]',
      'null',
      '{}',
      JSON.stringify({ verification: { id: 'not-a-uuid', status: 'approved' } }),
      JSON.stringify({ verification: null }),
    ]) {
      assert.equal(signed(other).accepted, false, other);
    }
    assert.equal(receiver.verify({ rawBody: Buffer.alloc(64 * 1024 + 1, 0x20), headers: { 'x-hmac-signature': 'a'.repeat(64) } }).accepted, false);
  });

  it('read ids of any case as the lower-case session id', () => {
    assert.deepEqual(hintsOfWebhook({ verification: { id: SESSION.toUpperCase(), status: 'declined' } }), [
      { kind: 'kyc', sessionId: SESSION, phoneE164: null, decision: 'declined' },
    ]);
  });
});

describe('veriff session links', () => {
  // Veriff's create answer, served without a network: only the link differs between cases.
  const startWith = async (veriffUrl: string, sessionUrl: string) => {
    const answer = JSON.stringify({ status: 'success', verification: { id: SESSION, url: sessionUrl, vendorData: 'r', status: 'created' } });
    const fetched = mock.method(globalThis, 'fetch', async () => new Response(answer, { status: 201, headers: { 'content-type': 'application/json' } }));
    try {
      const settings = { url: veriffUrl, apiKey: new Secret('key'), sharedSecret: new Secret(SECRET) };
      return await start({ settings, nowMs: () => 0 }, 'receiver-ref');
    } finally {
      fetched.mock.restore();
    }
  };

  it('hands out an https link', async () => {
    assert.equal((await startWith('https://stationapi.veriff.com', 'https://alchemy.veriff.com/v/abc')).url, 'https://alchemy.veriff.com/v/abc');
  });

  it('refuses a plain http link from Veriff, or from any http API that is not on loopback, as an unusable answer the breaker does not count', async () => {
    for (const veriffUrl of ['https://stationapi.veriff.com', 'http://veriff.internal.example.com', 'https://127.0.0.1:8443']) {
      const error = await startWith(veriffUrl, 'http://alchemy.veriff.com/v/abc').then(
        () => assert.fail(`an http link from ${veriffUrl} must be refused`),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof VeriffAnswerUnusable, veriffUrl);
      assert.match(error.message, /the session url is not https/);
      assert.equal(countsAgainstBreaker(error), false);
    }
  });

  it('takes a plain http link from a stand-in reached over http on loopback', async () => {
    for (const veriffUrl of ['http://127.0.0.1:9000', 'http://localhost:9000']) {
      assert.equal((await startWith(veriffUrl, 'http://127.0.0.1:9000/v/abc')).url, 'http://127.0.0.1:9000/v/abc', veriffUrl);
    }
  });
});
