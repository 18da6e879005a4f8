// KYC with a provider that verifies in sessions (Veriff, behaviour.md
// section 18), against the Veriff stand-in, on both stores. GET /api/kyc
// hands out a session link (one session per receiver however many ask at
// once) and, once a signed decision webhook says approved, verified with
// Payrail's verified limit; check and execute follow the kept decision. A
// bad signature changes nothing; a replayed or out-of-order decision changes
// nothing a second time; the worker's backstop keeps a decision whose
// webhook never came; a declined receiver gets a new session; a receiver off
// the network is account_not_found and gets none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkOpenSessions, KYC_BACKSTOP_AFTER_MS } from '../../src/flows/transfers/kyc-decisions.ts';
import { applySessionDecision, claimSessionStart, ensureVerification, readVerificationByPhone } from '../../src/store/receivers/verifications.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { caller, failure, receiver, transferBody } from '../helpers/transfers.ts';
import { startVeriffStandIn, type VeriffStandIn } from '../providers/veriff/stand-in.ts';

const unverified = (url: string) => ({ status: 200, body: { success: true, error: '', kyc_verify: false, money_limit: '0', kyc_url: url } });
const VERIFIED = { status: 200, body: { success: true, error: '', kyc_verify: true, money_limit: '3000.00', kyc_url: '' } };

for (const kind of STORE_KINDS) {
  describe(`KYC in sessions with Veriff (${kind})`, () => {
    let standIn: VeriffStandIn;
    let t: TestApp;
    let api: ReturnType<typeof caller>;

    before(async () => {
      standIn = await startVeriffStandIn();
      t = await createTestApp(kind, {
        env: {
          PAYRAIL_KYC_PROVIDER: 'veriff',
          PAYRAIL_VERIFF_URL: standIn.url,
          PAYRAIL_VERIFF_API_KEY: standIn.apiKey,
          PAYRAIL_VERIFF_SHARED_SECRET: standIn.sharedSecret,
        },
      });
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      standIn.webhookTo(`${address}/providers/veriff/callbacks`);
      const merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await standIn.webhooksIdle();
      await t.close();
      await standIn.close();
    });

    const sessionOf = async (phone: string) => {
      const row = await readVerificationByPhone(t.service.db, phone);
      assert.ok(row?.sessionId, `no session kept for ${phone}`);
      return row;
    };
    const kycOf = (phone: string) => api.kyc(phone.slice(1));

    it('hands out a session link, then verified with 3000.00 once a signed webhook says approved; check and execute follow', async () => {
      const phone = receiver('5678');
      const first = await kycOf(phone);
      const row = await sessionOf(phone);
      assert.deepEqual(first, unverified(standIn.session(row.sessionId!).url));
      // Asked again: the same open session, no new one.
      assert.deepEqual(await kycOf(phone), first);
      const started = standIn.sessions().filter((session) => session.vendorData === t.service.providerKeys.uuid('receiver', row.pk));
      assert.equal(started.length, 1);
      // Veriff is told the row's reference, never the phone number.
      assert.doesNotMatch(JSON.stringify(standIn.sessions()), new RegExp(phone.slice(1)));

      assert.deepEqual(await api.check(transferBody({ receiver_phone: phone })), {
        status: 400,
        body: failure('kyc_not_verified', 'receiver_phone cannot receive transfers until the receiver completes KYC verification'),
      });

      assert.equal(await standIn.decide(row.sessionId!, 'approved'), 200);
      assert.deepEqual(await kycOf(phone), VERIFIED);
      // The corridor's own maximum (2500.00) is below the verified limit here; the limits' edges are tested below.
      const atMost = await api.check(transferBody({ receiver_phone: phone, amount: '2500.00' }));
      assert.equal(atMost.status, 200, JSON.stringify(atMost.body));
      const body = transferBody({ receiver_phone: phone, amount: '25.00' });
      const executed = await api.execute(body);
      assert.equal((executed.body as { success: unknown }).success, true);
    });

    it('a webhook with a bad, missing or malformed signature is refused 401 and changes nothing', async () => {
      const phone = receiver('5679');
      const pendingView = await kycOf(phone);
      const row = await sessionOf(phone);
      await standIn.decide(row.sessionId!, 'approved', { webhook: false });
      const body = JSON.stringify({
        status: 'success',
        verification: { id: row.sessionId, status: 'approved', code: 9001, decisionTime: new Date().toISOString() },
      });
      for (const signature of ['bad', 'missing', 'malformed'] as const) assert.equal(await standIn.sendRaw(body, signature), 401, signature);
      assert.deepEqual(await kycOf(phone), pendingView);
      assert.equal((await readVerificationByPhone(t.service.db, phone))?.decision, 'pending');
      // The same body, signed: the decision is read from Veriff and kept.
      assert.equal(await standIn.sendRaw(body, 'good'), 200);
      assert.deepEqual(await kycOf(phone), VERIFIED);
    });

    it('a declined receiver gets a new session; replayed and out-of-order decisions change nothing a second time', async () => {
      const phone = receiver('5680');
      await kycOf(phone);
      const first = await sessionOf(phone);
      assert.equal(await standIn.decide(first.sessionId!, 'declined', { reasonCode: 102, decisionTime: '2026-11-01T10:00:00.000Z' }), 200);
      const declined = await readVerificationByPhone(t.service.db, phone);
      assert.equal(declined?.decision, 'declined');
      assert.equal(declined?.reasonCode, '102');
      // Declined: a new session, another link.
      const again = await kycOf(phone);
      const second = await sessionOf(phone);
      assert.notEqual(second.sessionId, first.sessionId);
      assert.deepEqual(again, unverified(standIn.session(second.sessionId!).url));
      // The first session's decision, sent again, is about a session since replaced: nothing changes.
      assert.equal(await standIn.resend(first.sessionId!, 0), 200);
      assert.equal((await readVerificationByPhone(t.service.db, phone))?.sessionId, second.sessionId);
      assert.equal((await readVerificationByPhone(t.service.db, phone))?.decision, 'pending');

      assert.equal(await standIn.decide(second.sessionId!, 'resubmission_requested', { decisionTime: '2026-11-01T11:00:00.000Z' }), 200);
      assert.equal(await standIn.decide(second.sessionId!, 'approved', { decisionTime: '2026-11-01T12:00:00.000Z' }), 200);
      const approved = await readVerificationByPhone(t.service.db, phone);
      assert.equal(approved?.decision, 'approved');
      // Older decisions delivered late, and the newest again: nothing changes.
      assert.equal(await standIn.resend(second.sessionId!, 0), 200);
      assert.equal(await standIn.resend(second.sessionId!, 1), 200);
      assert.deepEqual(await readVerificationByPhone(t.service.db, phone), approved);
      // The store's guard itself: an older or equal decision is refused, whatever the provider says.
      const nowMs = t.clock.nowMs();
      const older = { decision: 'declined', reasonCode: '102', decidedAtMs: Date.parse('2026-11-01T11:30:00.000Z') } as const;
      assert.equal(await applySessionDecision(t.service.db, { sessionId: second.sessionId!, decision: older, nowMs }), 'unchanged');
      const same = { decision: 'approved', reasonCode: null, decidedAtMs: Date.parse('2026-11-01T12:00:00.000Z') } as const;
      assert.equal(await applySessionDecision(t.service.db, { sessionId: second.sessionId!, decision: same, nowMs }), 'unchanged');
      assert.deepEqual(await readVerificationByPhone(t.service.db, phone), approved);
      assert.deepEqual(await kycOf(phone), VERIFIED);
    });

    it('the worker backstop keeps a decision whose webhook never came, once the session is a few minutes old', async () => {
      const phone = receiver('5681');
      await kycOf(phone);
      const row = await sessionOf(phone);
      await standIn.decide(row.sessionId!, 'approved', { webhook: false });
      const deps = { db: t.service.db, clock: t.clock, log: t.service.log, kyc: t.service.providers.kyc };
      // Too young: not asked yet.
      assert.equal(await checkOpenSessions(deps), 0);
      t.clock.advance(KYC_BACKSTOP_AFTER_MS + 1);
      await t.worker.drain();
      assert.deepEqual(await kycOf(phone), VERIFIED);
      // Asked once; nothing open is left to ask about.
      assert.equal(await checkOpenSessions(deps), 0);
    });

    it('starts one session for a receiver however many requests ask at once', async () => {
      const phone = receiver('5682');
      const answers = await Promise.all(Array.from({ length: 8 }, () => kycOf(phone)));
      const row = await sessionOf(phone);
      for (const answer of answers) assert.deepEqual(answer, unverified(row.sessionUrl!));
      assert.equal(standIn.sessions().filter((session) => session.vendorData === t.service.providerKeys.uuid('receiver', row.pk)).length, 1);
    });

    it('the store gives the start lease to exactly one of many processes asking at once, and not while a session is open', async () => {
      const row = await ensureVerification(t.service.db, receiver('5690'), 'veriff', t.clock.nowMs());
      const nowMs = t.clock.nowMs();
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, index) => claimSessionStart(t.service.db, { pk: row.pk, token: `token-${index}`, nowMs, leaseUntilMs: nowMs + 60_000 })),
      );
      assert.equal(claims.filter(Boolean).length, 1);
      // Once the lease ran out another may take it.
      assert.equal(await claimSessionStart(t.service.db, { pk: row.pk, token: 'late', nowMs: nowMs + 60_000, leaseUntilMs: nowMs + 120_000 }), true);
      // A receiver with an open session is never claimed.
      const open = await sessionOf(receiver('5682'));
      assert.equal(await claimSessionStart(t.service.db, { pk: open.pk, token: 'x', nowMs, leaseUntilMs: nowMs + 60_000 }), false);
    });

    it('a receiver off the payout network is account_not_found and gets no session; Veriff down is 503 and the next request starts one', async () => {
      const before = standIn.sessions().length;
      assert.deepEqual(await kycOf(receiver('0003')), {
        status: 404,
        body: failure('account_not_found', `no receiver account for ${receiver('0003').slice(1)}`),
      });
      assert.equal(standIn.sessions().length, before);

      const phone = receiver('5683');
      standIn.failNext('http-500');
      assert.deepEqual(await kycOf(phone), {
        status: 503,
        body: failure('service_unavailable', 'the KYC provider did not answer; nothing was written; retry'),
      });
      const answer = await kycOf(phone);
      assert.deepEqual(answer, unverified((await sessionOf(phone)).sessionUrl!));
    });

    it('the sandbox verification call is sandbox_only with a provider verifying in sessions', async () => {
      assert.equal((await api.verify(receiver('5684').slice(1))).status, 404);
      assert.equal(await readVerificationByPhone(t.service.db, receiver('5684')), null);
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`KYC limits of a provider verifying in sessions (${kind})`, () => {
    let standIn: VeriffStandIn;
    let t: TestApp;
    let api: ReturnType<typeof caller>;

    before(async () => {
      standIn = await startVeriffStandIn();
      t = await createTestApp(kind, {
        env: {
          PAYRAIL_KYC_PROVIDER: 'veriff',
          PAYRAIL_VERIFF_URL: standIn.url,
          PAYRAIL_VERIFF_API_KEY: standIn.apiKey,
          PAYRAIL_VERIFF_SHARED_SECRET: standIn.sharedSecret,
          PAYRAIL_KYC_VERIFIED_LIMIT: '100.00',
          PAYRAIL_KYC_UNVERIFIED_LIMIT: '20.00',
        },
      });
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      standIn.webhookTo(`${address}/providers/veriff/callbacks`);
      const merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await standIn.webhooksIdle();
      await t.close();
      await standIn.close();
    });

    it('an unverified receiver gets the unverified limit, an approved one the verified limit; a new receiver is held to the unverified limit', async () => {
      const phone = receiver('6001');
      const view = await api.kyc(phone.slice(1));
      const row = await readVerificationByPhone(t.service.db, phone);
      assert.deepEqual(view, { status: 200, body: { success: true, error: '', kyc_verify: false, money_limit: '20.00', kyc_url: row!.sessionUrl } });
      assert.equal((await api.check(transferBody({ receiver_phone: phone, amount: '20.00' }))).status, 200);
      assert.deepEqual(await api.check(transferBody({ receiver_phone: phone, amount: '20.01' })), {
        status: 400,
        body: failure('kyc_not_verified', 'receiver_phone can receive at most 20.00 per transfer; the receiver must complete KYC verification to receive more'),
      });
      assert.deepEqual(await api.check(transferBody({ lastFour: '0003', amount: '20.01' })), {
        status: 400,
        body: failure(
          'kyc_not_verified',
          'receiver_phone is new to the network and can receive at most 20.00 per transfer once they accept the payment invitation',
        ),
      });
      assert.equal(await standIn.decide(row!.sessionId!, 'approved'), 200);
      assert.deepEqual(await api.kyc(phone.slice(1)), {
        status: 200,
        body: { success: true, error: '', kyc_verify: true, money_limit: '100.00', kyc_url: '' },
      });
      assert.equal((await api.check(transferBody({ receiver_phone: phone, amount: '100.00' }))).status, 200);
      assert.deepEqual(await api.check(transferBody({ receiver_phone: phone, amount: '100.01' })), {
        status: 400,
        body: failure('kyc_not_verified', 'receiver_phone can receive at most 100.00 per transfer'),
      });
    });
  });
}
