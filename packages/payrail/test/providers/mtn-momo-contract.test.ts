// The PayoutNetwork contract (src/providers/payout-network.ts) checked on the
// MTN MoMo connector, against the stand-in (test/providers/mtn-momo/) always,
// and against MTN's sandbox when PAYRAIL_MTN_MOMO_TEST_SUBSCRIPTION_KEY,
// PAYRAIL_MTN_MOMO_TEST_API_USER and PAYRAIL_MTN_MOMO_TEST_API_KEY are set
// (the cases that need no control of MoMo: the sandbox cannot be made to
// hang or drop a connection on demand). Nothing leaves loopback otherwise.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Secret } from '../../src/domain/secret.ts';
import type { ProviderCallback } from '../../src/providers/callbacks.ts';
import { withDeadline } from '../../src/providers/deadline.ts';
import { MtnMomoUnknownOutcome } from '../../src/providers/mtn-momo/client.ts';
import { createMtnMomo, type MtnMomoNetwork } from '../../src/providers/mtn-momo/index.ts';
import type { PayoutPollRequest, PollOutcome } from '../../src/providers/payout-network.ts';
import { pollRequest, sandboxCorridor, submission } from './mtn-momo/fixtures.ts';
import { type MtnMomoStandIn, SANDBOX_NUMBERS, STAND_IN_NO_WALLET, STAND_IN_NOT_ENOUGH_FUNDS, startMtnMomoStandIn } from './mtn-momo/stand-in.ts';

const log = pino({ level: 'silent' });
const SANDBOX_URL = 'https://sandbox.momodeveloper.mtn.com';
const CALL_TIMEOUT_MS = 400;
/** MTN's sandbox ends a transfer within seconds; the stand-in at once. */
const POLLS_MAX = 20;

interface Target {
  readonly network: MtnMomoNetwork;
  /** Null against the real sandbox. */
  readonly standIn: MtnMomoStandIn | null;
}

/** Polls until the transfer leaves PENDING (the stand-in needs no wait; MTN's sandbox a second or so between asks). */
async function pollUntilFinal(target: Target, request: PayoutPollRequest): Promise<PollOutcome> {
  for (let poll = 1; ; poll += 1) {
    const outcome = await target.network.poll(request);
    if (outcome.kind !== 'pending' || poll >= POLLS_MAX) return outcome;
    if (target.standIn === null) await sleep(1_000);
  }
}

function sharedCases(target: () => Target): void {
  test('a receiver on a sandbox number holds an active wallet', async () => {
    const { network } = target();
    assert.deepEqual(await network.lookupReceiver(`+${SANDBOX_NUMBERS.success}`, undefined, sandboxCorridor()), { registered: true });
  });

  test("a transfer is accepted under its reference id and ends succeeded with MoMo's financial transaction id", async () => {
    const t = target();
    const sent = submission(SANDBOX_NUMBERS.success);
    const outcome = await t.network.submit(sent);
    assert.deepEqual(outcome, { kind: 'accepted', providerRef: sent.idempotencyUuid, pollAfterMs: outcome.kind === 'accepted' ? outcome.pollAfterMs : -1 });
    const final = await pollUntilFinal(t, pollRequest(sent));
    assert.equal(final.kind, 'succeeded');
    assert.ok(final.kind === 'succeeded' && /^\S{1,100}$/.test(final.transactionRef));
    if (t.standIn) {
      const taken = t.standIn.transfers().find((transfer) => transfer.referenceId === sent.idempotencyUuid);
      assert.equal(taken?.amount, '500');
      assert.equal(taken?.currency, 'EUR');
      assert.equal(taken?.externalId, sent.idempotencyKey);
      assert.equal(taken?.msisdn, SANDBOX_NUMBERS.success);
      assert.equal(final.kind === 'succeeded' && final.transactionRef, taken?.financialTransactionId);
    }
  });

  test('a transfer sent again under the same reference is answered 409 and read as accepted', async () => {
    const t = target();
    const sent = submission(SANDBOX_NUMBERS.success);
    assert.equal((await t.network.submit(sent)).kind, 'accepted');
    const takenBefore = t.standIn?.transfersTaken();
    const again = await t.network.submit({ ...sent, attempt: 2 });
    assert.equal(again.kind, 'accepted');
    assert.equal(again.kind === 'accepted' && again.providerRef, sent.idempotencyUuid);
    if (t.standIn) assert.equal(t.standIn.transfersTaken(), takenBefore);
  });

  test('a transfer to the "failed" sandbox number ends failed with MoMo\'s reason as provider-error-code', async () => {
    const t = target();
    const sent = submission(SANDBOX_NUMBERS.failed);
    assert.equal((await t.network.submit(sent)).kind, 'accepted');
    const final = await pollUntilFinal(t, pollRequest(sent));
    assert.equal(final.kind, 'failed');
    if (final.kind !== 'failed') return;
    assert.match(final.errorCode, /^[A-Z_]+$/);
    assert.notEqual(final.errorText, '');
    if (t.standIn) {
      assert.equal(final.errorCode, 'INTERNAL_PROCESSING_ERROR');
      assert.equal(final.errorText, 'MTN Mobile Money could not process the payment');
    }
  });

  test('a transfer to the "pending" sandbox number stays pending', async () => {
    const t = target();
    const sent = submission(SANDBOX_NUMBERS.pending);
    assert.equal((await t.network.submit(sent)).kind, 'accepted');
    assert.equal((await t.network.poll(pollRequest(sent))).kind, 'pending');
  });

  test('the disbursement account balance is read', async () => {
    const { network } = target();
    const balance = await network.balance(sandboxCorridor());
    assert.equal(balance.currency, 'EUR');
    assert.match(balance.availableBalance, /^-?\d+(\.\d+)?$/);
  });
}

describe('mtn-momo against the stand-in', () => {
  let standIn: MtnMomoStandIn;
  let network: MtnMomoNetwork;
  const callbacks: ProviderCallback[] = [];
  let arrived: (() => void) | null = null;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      callbacks.push({ rawBody: Buffer.concat(chunks), headers: { 'content-type': request.headers['content-type'] } });
      response.writeHead(200).end();
      arrived?.();
    });
  });
  let publicUrl = '';

  const make = (overrides: { callTimeoutMs?: number; nowMs?: () => number; publicUrl?: string } = {}): MtnMomoNetwork =>
    createMtnMomo(
      {
        url: standIn.url,
        subscriptionKey: new Secret(standIn.subscriptionKey),
        apiUser: standIn.apiUser,
        apiKey: new Secret(standIn.apiKey),
        callTimeoutMs: overrides.callTimeoutMs ?? CALL_TIMEOUT_MS,
      },
      { log, publicUrl: overrides.publicUrl ?? publicUrl, environment: 'sandbox', ...(overrides.nowMs ? { nowMs: overrides.nowMs } : {}) },
    );

  before(async () => {
    standIn = await startMtnMomoStandIn();
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    if (address === null || typeof address === 'string') throw new Error('no receiver port');
    // Callbacks go to <publicUrl>/providers/mtn-momo/callbacks; the receiver answers any path.
    publicUrl = `http://127.0.0.1:${address.port}`;
    network = make();
  });
  after(async () => {
    await standIn.callbacksIdle();
    await standIn.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  sharedCases(() => ({ network, standIn }));

  test('a transfer whose connection dropped after MoMo took it throws; resubmitted under its reference it is paid once', async () => {
    const sent = submission(SANDBOX_NUMBERS.success);
    const takenBefore = standIn.transfersTaken();
    standIn.failNext('drop-after-accept');
    await assert.rejects(network.submit(sent), MtnMomoUnknownOutcome);
    assert.equal(standIn.transfersTaken(), takenBefore + 1);
    const again = await network.submit({ ...sent, attempt: 2 });
    assert.deepEqual(again, { kind: 'accepted', providerRef: sent.idempotencyUuid, pollAfterMs: 0 });
    assert.equal(standIn.transfersTaken(), takenBefore + 1);
    assert.equal((await network.poll(pollRequest(sent))).kind, 'succeeded');
  });

  test('a hung transfer ends at the call deadline as a thrown error (outcome unknown)', async () => {
    standIn.failNext('hang', 1, 'transfer');
    await network.lookupReceiver(`+${SANDBOX_NUMBERS.success}`, undefined, sandboxCorridor());
    await assert.rejects(network.submit(submission(SANDBOX_NUMBERS.success)), (error: unknown) => {
      assert.ok(error instanceof MtnMomoUnknownOutcome);
      assert.match(error.message, /deadline/);
      return true;
    });
  });

  test("a hung transfer ends when Payrail stops waiting (its AbortSignal), before the connector's own deadline", async () => {
    const patient = make({ callTimeoutMs: 60_000 });
    await patient.lookupReceiver(`+${SANDBOX_NUMBERS.success}`, undefined, sandboxCorridor());
    standIn.failNext('hang', 1, 'transfer');
    await assert.rejects(
      withDeadline(CALL_TIMEOUT_MS, (signal) => patient.submit(submission(SANDBOX_NUMBERS.success, { signal }))),
      (error: unknown) => error instanceof MtnMomoUnknownOutcome || (error instanceof DOMException && error.name === 'TimeoutError'),
    );
  });

  test('a 500 on the transfer is an unknown outcome; the resubmission is taken and paid once', async () => {
    const sent = submission(SANDBOX_NUMBERS.success);
    const takenBefore = standIn.transfersTaken();
    standIn.failNext('http-500', 1, 'transfer');
    await assert.rejects(network.submit(sent), /HTTP 500 INTERNAL_PROCESSING_ERROR/);
    assert.equal((await network.submit({ ...sent, attempt: 2 })).kind, 'accepted');
    assert.equal(standIn.transfersTaken(), takenBefore + 1);
  });

  test('a 503 on a status poll throws instead of failing the payout', async () => {
    const sent = submission(SANDBOX_NUMBERS.success);
    await network.submit(sent);
    standIn.failNext('http-503', 1, 'status');
    await assert.rejects(network.poll(pollRequest(sent)), MtnMomoUnknownOutcome);
    assert.equal((await network.poll(pollRequest(sent))).kind, 'succeeded');
  });

  test('a poll of a reference MoMo does not know (404) throws: the payout is never failed on it', async () => {
    const sent = submission(SANDBOX_NUMBERS.success);
    await assert.rejects(network.poll(pollRequest(sent)), /HTTP 404/);
  });

  test('a transfer MoMo refuses as written (400) is rejected with its code, nothing taken', async () => {
    const takenBefore = standIn.transfersTaken();
    // A reference in version 1's layout: MoMo asks for version 4.
    const outcome = await network.submit(submission(SANDBOX_NUMBERS.success, { idempotencyUuid: '6f1c0c6e-9d3a-11ee-8c90-0242ac120002' }));
    assert.equal(outcome.kind, 'rejected');
    assert.deepEqual(outcome, { kind: 'rejected', errorCode: 'HTTP_400', errorText: 'MTN Mobile Money refused the transfer request (HTTP 400)' });
    assert.equal(standIn.transfersTaken(), takenBefore);
  });

  test('a 404 on the transfer (a wrong path or gateway, undocumented) is unavailable, not rejected; nothing taken', async () => {
    const sent = submission(SANDBOX_NUMBERS.success);
    const takenBefore = standIn.transfersTaken();
    standIn.failNext('http-404', 1, 'transfer');
    const outcome = await network.submit(sent);
    assert.equal(outcome.kind, 'unavailable');
    assert.match(outcome.kind === 'unavailable' ? outcome.reason : '', /HTTP 404 RESOURCE_NOT_FOUND/);
    assert.equal(standIn.transfersTaken(), takenBefore);
    assert.equal((await network.submit({ ...sent, attempt: 2 })).kind, 'accepted');
    assert.equal(standIn.transfersTaken(), takenBefore + 1);
  });

  test('a wrong target environment (a 500 MoMo documents) is an unknown outcome, never a refusal', async () => {
    const sent = submission(SANDBOX_NUMBERS.success, { corridor: sandboxCorridor({ target_environment: 'mtnuganda', currency: 'EUR' }) });
    await assert.rejects(network.submit(sent), /NOT_ALLOWED_TARGET_ENVIRONMENT/);
  });

  test('documented FAILED reasons map to provider-error-code and -text', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [SANDBOX_NUMBERS.rejected, 'APPROVAL_REJECTED', /rejected/],
      [SANDBOX_NUMBERS.timeout, 'EXPIRED', /expired/],
      [STAND_IN_NO_WALLET, 'PAYEE_NOT_FOUND', /not registered/],
      [STAND_IN_NOT_ENOUGH_FUNDS, 'NOT_ENOUGH_FUNDS', /Not enough funds/],
    ];
    for (const [msisdn, code, text] of cases) {
      const sent = submission(msisdn);
      await network.submit(sent);
      const final = await network.poll(pollRequest(sent));
      assert.equal(final.kind, 'failed', msisdn);
      assert.equal(final.kind === 'failed' && final.errorCode, code);
      assert.match(final.kind === 'failed' ? final.errorText : '', text);
    }
  });

  test('a number without a wallet is not registered', async () => {
    assert.deepEqual(await network.lookupReceiver(`+${STAND_IN_NO_WALLET}`, undefined, sandboxCorridor()), { registered: false });
  });

  test('one token serves many calls; concurrent calls without one share a single token request', async () => {
    const fresh = make();
    const before = standIn.tokenRequests();
    await Promise.all(Array.from({ length: 5 }, () => fresh.lookupReceiver(`+${SANDBOX_NUMBERS.success}`, undefined, sandboxCorridor())));
    await fresh.balance(sandboxCorridor());
    assert.equal(standIn.tokenRequests() - before, 1);
    assert.equal(fresh.tokenRequests(), 1);
  });

  test('a token is refreshed shortly before expires_in, not at it', async () => {
    let nowMs = 1_000_000;
    const fresh = make({ nowMs: () => nowMs });
    await fresh.balance(sandboxCorridor());
    nowMs += 49 * 60_000;
    await fresh.balance(sandboxCorridor());
    assert.equal(fresh.tokenRequests(), 1);
    // MoMo's tokens live 3600 s; the cache hands one out until 10 minutes before.
    nowMs += 2 * 60_000;
    await fresh.balance(sandboxCorridor());
    assert.equal(fresh.tokenRequests(), 2);
  });

  test('a token MoMo ended early (401) is requested again once and the call succeeds', async () => {
    const fresh = make();
    await fresh.balance(sandboxCorridor());
    standIn.expireTokens();
    const sent = submission(SANDBOX_NUMBERS.success);
    assert.equal((await fresh.submit(sent)).kind, 'accepted');
    assert.equal(fresh.tokenRequests(), 2);
  });

  test('a refused API key makes every call throw without sending a transfer', async () => {
    const wrong = createMtnMomo(
      {
        url: standIn.url,
        subscriptionKey: new Secret(standIn.subscriptionKey),
        apiUser: standIn.apiUser,
        apiKey: new Secret('wrong'),
        callTimeoutMs: CALL_TIMEOUT_MS,
      },
      { log, publicUrl, environment: 'sandbox' },
    );
    const takenBefore = standIn.transfersTaken();
    await assert.rejects(wrong.submit(submission(SANDBOX_NUMBERS.success)), /token: HTTP 401/);
    assert.equal(standIn.transfersTaken(), takenBefore);
  });

  test('a transfer carries the callback URL; duplicate and stale callbacks each read as a hint naming the payout', async () => {
    standIn.callbackOptions({ duplicate: true, staleAfterFinal: true });
    try {
      callbacks.length = 0;
      const sent = submission(SANDBOX_NUMBERS.success);
      const three = new Promise<void>((resolve) => {
        arrived = () => {
          if (callbacks.length >= 3) resolve();
        };
      });
      await network.submit(sent);
      await three;
      const taken = standIn.transfers().find((transfer) => transfer.referenceId === sent.idempotencyUuid);
      assert.equal(taken?.callbackUrl, `${publicUrl}/providers/mtn-momo/callbacks`);
      const statuses = callbacks.map((callback) => (JSON.parse(callback.rawBody.toString()) as { status: string }).status);
      assert.deepEqual(statuses, ['SUCCESSFUL', 'SUCCESSFUL', 'PENDING']);
      for (const callback of callbacks) {
        const verdict = await network.callbacks!.verify(callback);
        assert.deepEqual(verdict, { accepted: true, hints: [{ kind: 'payout', providerRef: sent.idempotencyKey, reference: sent.idempotencyKey }] });
      }
      // The stale PENDING callback changes nothing: MoMo, asked again, still says it succeeded.
      assert.equal((await network.poll(pollRequest(sent))).kind, 'succeeded');
    } finally {
      standIn.callbackOptions({});
      arrived = null;
    }
  });

  test('a deployment whose public URL is loopback sends no callback URL to a MoMo that is not', async () => {
    const { callbackUrlOf } = await import('../../src/providers/mtn-momo/index.ts');
    assert.equal(callbackUrlOf('http://127.0.0.1:8080', SANDBOX_URL, 'sandbox'), null);
    assert.equal(callbackUrlOf('https://pay.example.com', SANDBOX_URL, 'production'), 'https://pay.example.com/providers/mtn-momo/callbacks');
  });
});

const sandboxKey = process.env.PAYRAIL_MTN_MOMO_TEST_SUBSCRIPTION_KEY;
const sandboxUser = process.env.PAYRAIL_MTN_MOMO_TEST_API_USER;
const sandboxApiKey = process.env.PAYRAIL_MTN_MOMO_TEST_API_KEY;
const sandboxSet = Boolean(sandboxKey && sandboxUser && sandboxApiKey);

describe("mtn-momo against MTN's sandbox", { skip: sandboxSet ? false : 'set PAYRAIL_MTN_MOMO_TEST_SUBSCRIPTION_KEY, _API_USER and _API_KEY to run' }, () => {
  let network: MtnMomoNetwork;
  before(() => {
    network = createMtnMomo(
      {
        url: SANDBOX_URL,
        subscriptionKey: new Secret(sandboxKey ?? ''),
        apiUser: sandboxUser ?? '',
        apiKey: new Secret(sandboxApiKey ?? ''),
        callTimeoutMs: 20_000,
      },
      // No callbacks: MTN's sandbox cannot reach this machine.
      { log, publicUrl: 'http://127.0.0.1:8080', environment: 'sandbox' },
    );
  });
  sharedCases(() => ({ network, standIn: null }));
});
