// The pawaPay connector's contract, run against the stand-in and, when
// PAYRAIL_PAWAPAY_TEST_TOKEN is set (a sandbox API token from
// dashboard.sandbox.pawapay.io), against pawaPay's real sandbox too
// (PAYRAIL_PAWAPAY_TEST_URL overrides its address). Fault tests (a dropped
// connection, a hang, 5xx, a missing payout, callbacks) need the stand-in's
// switches and run against it only.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { countsAgainstBreaker } from '../../src/providers/breaker.ts';
import type { PayoutNetwork, PollOutcome } from '../../src/providers/payout-network.ts';
import { connectorAt, pollRequest, submissionFor, zambiaCorridor } from './pawapay/fixtures.ts';
import { startPawaPayStandIn, type PawaPayStandIn, ZMB_NUMBERS } from './pawapay/stand-in.ts';

interface Target {
  readonly name: string;
  readonly connector: () => PayoutNetwork;
  /** Polls until the payout is final (the real sandbox takes seconds; the stand-in answers at once). */
  readonly settle: (providerRef: string) => Promise<PollOutcome>;
}

const SANDBOX_POLLS_MAX = 30;

function targetOf(name: string, url: string, token: string, waitMs: number): Target {
  const connector = () => connectorAt(url, token);
  return {
    name,
    connector,
    async settle(providerRef) {
      const network = connector();
      for (let i = 0; i < SANDBOX_POLLS_MAX; i += 1) {
        const outcome = await network.poll(pollRequest(providerRef));
        if (outcome.kind !== 'pending') return outcome;
        // Only the real sandbox gets here: it has no event to await.
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
      return { kind: 'pending', retryAfterMs: 0 };
    },
  };
}

let standIn: PawaPayStandIn;
before(async () => {
  standIn = await startPawaPayStandIn();
});
after(async () => {
  await standIn.close();
});

const sandboxToken = process.env.PAYRAIL_PAWAPAY_TEST_TOKEN;
const targets: Array<() => Target> = [() => targetOf('stand-in', standIn.url, standIn.token, 0)];
const sandboxTarget = () => targetOf('pawaPay sandbox', process.env.PAYRAIL_PAWAPAY_TEST_URL ?? 'https://api.sandbox.pawapay.io', sandboxToken ?? '', 1000);

for (const [label, make, skip] of [
  ['stand-in', targets[0]!, false],
  ['pawaPay sandbox', sandboxTarget, sandboxToken === undefined],
] as const) {
  describe(`pawapay contract: ${label}`, { skip: skip ? "set PAYRAIL_PAWAPAY_TEST_TOKEN to run against pawaPay's sandbox" : false }, () => {
    it('pays a published success number: accepted under the payoutId, then succeeded with the provider transaction id', async () => {
      const target = make();
      const submission = submissionFor(ZMB_NUMBERS.completed);
      const outcome = await target.connector().submit(submission);
      assert.equal(outcome.kind, 'accepted');
      assert.equal(outcome.kind === 'accepted' && outcome.providerRef, submission.idempotencyUuid);
      const final = await target.settle(submission.idempotencyUuid);
      assert.equal(final.kind, 'succeeded');
      assert.ok(final.kind === 'succeeded' && final.transactionRef.length > 0);
    });

    it('a resubmission under the same payoutId is accepted again (DUPLICATE_IGNORED) and the original stands', async () => {
      const target = make();
      const submission = submissionFor(ZMB_NUMBERS.completed);
      const first = await target.connector().submit(submission);
      const again = await target.connector().submit({ ...submission, attempt: 2 });
      assert.deepEqual(again, first);
    });

    // pawaPay's v1 test table names the 119 outcome OTHER_ERROR, its v2 code list UNSPECIFIED_FAILURE: the real sandbox may answer either.
    for (const [phone, code, alsoFromSandbox] of [
      [ZMB_NUMBERS.recipientNotFound, 'RECIPIENT_NOT_FOUND', null],
      [ZMB_NUMBERS.unspecifiedFailure, 'UNSPECIFIED_FAILURE', 'OTHER_ERROR'],
    ] as const) {
      it(`maps a payout that fails with ${code} to failed with pawaPay's code and text`, async () => {
        const target = make();
        const submission = submissionFor(phone);
        assert.equal((await target.connector().submit(submission)).kind, 'accepted');
        const final = await target.settle(submission.idempotencyUuid);
        assert.equal(final.kind, 'failed');
        const accepted = label === 'stand-in' || alsoFromSandbox === null ? [code] : [code, alsoFromSandbox];
        assert.ok(final.kind === 'failed' && (accepted as readonly string[]).includes(final.errorCode), JSON.stringify(final));
        assert.ok(final.kind === 'failed' && final.errorText.length > 0);
      });
    }

    it('the number that never calls back stays pending', async () => {
      const target = make();
      const submission = submissionFor(ZMB_NUMBERS.stuck);
      assert.equal((await target.connector().submit(submission)).kind, 'accepted');
      const outcome = await target.connector().poll(pollRequest(submission.idempotencyUuid));
      assert.equal(outcome.kind, 'pending');
    });

    it("an amount above the provider's limits is rejected for good, nothing paid", async () => {
      const target = make();
      const outcome = await target.connector().submit(submissionFor(ZMB_NUMBERS.completed, { receivedMinor: 9_000_000_000 }));
      assert.deepEqual(outcome.kind === 'rejected' && outcome.errorCode, 'AMOUNT_OUT_OF_BOUNDS');
    });

    it("looks a receiver up: a number of the corridor's provider is registered, another provider's or a malformed one is not", async () => {
      const network = make().connector();
      const corridor = zambiaCorridor();
      assert.deepEqual(await network.lookupReceiver(ZMB_NUMBERS.completed, AbortSignal.timeout(10_000), corridor), { registered: true });
      assert.deepEqual(await network.lookupReceiver(ZMB_NUMBERS.otherProvider, AbortSignal.timeout(10_000), corridor), { registered: false });
      assert.deepEqual(await network.lookupReceiver('+2607', AbortSignal.timeout(10_000), corridor), { registered: false });
    });
  });
}

describe('pawapay contract: faults (stand-in)', () => {
  const network = () => connectorAt(standIn.url, standIn.token);

  it('a connection dropped after pawaPay took the payout throws; the resubmission is DUPLICATE_IGNORED and the receiver is paid once', async () => {
    const submission = submissionFor(ZMB_NUMBERS.completed);
    standIn.failNext('drop-after-accept');
    await assert.rejects(network().submit(submission), /no answer|broke off/);
    const again = await network().submit({ ...submission, attempt: 2 });
    assert.equal(again.kind, 'accepted');
    const payouts = standIn.payouts().filter((payout) => payout.payoutId === submission.idempotencyUuid);
    assert.equal(payouts.length, 1);
    assert.equal(payouts[0]!.initiations, 2);
    assert.equal((await network().poll(pollRequest(submission.idempotencyUuid))).kind, 'succeeded');
  });

  it('a 503 after pawaPay took the payout throws (outcome unknown), never rejected', async () => {
    const submission = submissionFor(ZMB_NUMBERS.completed);
    standIn.failNext('http-503-after-accept');
    await assert.rejects(network().submit(submission), /HTTP 503/);
    assert.equal((await network().submit(submission)).kind, 'accepted');
    assert.equal(standIn.payouts().filter((payout) => payout.payoutId === submission.idempotencyUuid).length, 1);
  });

  it('a 500 throws', async () => {
    standIn.failNext('http-500');
    await assert.rejects(network().submit(submissionFor(ZMB_NUMBERS.completed)), /HTTP 500/);
  });

  it("a hung call ends as a thrown error at the deadline (Payrail's signal)", async () => {
    standIn.failNext('hang');
    await assert.rejects(network().submit(submissionFor(ZMB_NUMBERS.completed, { signal: AbortSignal.timeout(200) })), /Payrail stopped waiting/);
  });

  it("a hung call ends at the connector's own deadline too", async () => {
    standIn.failNext('hang');
    const bounded = connectorAt(standIn.url, standIn.token, { callTimeoutMs: 200 });
    await assert.rejects(bounded.poll(pollRequest('0b5c7c1e-8f0a-4d8e-9a55-0d6f7a1c2b3d', new AbortController().signal)), /Payrail stopped waiting/);
  });

  it('a CLOSED provider or an empty pawaPay wallet is unavailable: nothing paid, try later', async () => {
    standIn.failNext('provider-closed');
    const closed = await network().submit(submissionFor(ZMB_NUMBERS.completed));
    assert.equal(closed.kind, 'unavailable');
    assert.match(closed.kind === 'unavailable' ? closed.reason : '', /PROVIDER_TEMPORARILY_UNAVAILABLE/);
    standIn.failNext('wallet-out-of-funds');
    const empty = await network().submit(submissionFor(ZMB_NUMBERS.completed));
    assert.equal(empty.kind, 'unavailable');
  });

  it('a wrong token is unavailable (the operator fixes it), not a failed transfer', async () => {
    const outcome = await connectorAt(standIn.url, 'not-the-token').submit(submissionFor(ZMB_NUMBERS.completed));
    assert.equal(outcome.kind, 'unavailable');
  });

  it('a 429 on the payout request is unavailable, nothing taken; on a poll it throws an error the breaker counts', async () => {
    const submission = submissionFor(ZMB_NUMBERS.completed);
    const takenBefore = standIn.payouts().length;
    standIn.failNext('http-429');
    assert.deepEqual(await network().submit(submission), { kind: 'unavailable', reason: 'pawaPay rate-limited the payout request (HTTP 429)' });
    assert.equal(standIn.payouts().length, takenBefore, 'nothing taken');
    assert.equal((await network().submit({ ...submission, attempt: 2 })).kind, 'accepted');
    standIn.failNext('http-429');
    const error = await network()
      .poll(pollRequest(submission.idempotencyUuid))
      .then(
        () => assert.fail('a rate-limited poll must throw'),
        (thrown: unknown) => thrown,
      );
    assert.match(String(error), /HTTP 429/);
    assert.equal(countsAgainstBreaker(error), true);
    assert.equal((await network().poll(pollRequest(submission.idempotencyUuid))).kind, 'succeeded');
  });

  it('NOT_FOUND on the poll of an accepted payout throws; it is never failed', async () => {
    const submission = submissionFor(ZMB_NUMBERS.completed);
    assert.equal((await network().submit(submission)).kind, 'accepted');
    standIn.failNext('not-found');
    await assert.rejects(network().poll(pollRequest(submission.idempotencyUuid)), /NOT_FOUND/);
    assert.equal((await network().poll(pollRequest(submission.idempotencyUuid))).kind, 'succeeded');
  });

  it('a payout in flight polls as pending, then final', async () => {
    const slow = await startPawaPayStandIn({ pendingPolls: 2 });
    try {
      const connector = connectorAt(slow.url, slow.token);
      const submission = submissionFor(ZMB_NUMBERS.completed);
      await connector.submit(submission);
      assert.equal((await connector.poll(pollRequest(submission.idempotencyUuid))).kind, 'pending');
      assert.equal((await connector.poll(pollRequest(submission.idempotencyUuid))).kind, 'pending');
      assert.equal((await connector.poll(pollRequest(submission.idempotencyUuid))).kind, 'succeeded');
    } finally {
      await slow.close();
    }
  });
});

describe('pawapay contract: signed callbacks (stand-in)', () => {
  interface Received {
    readonly rawBody: Buffer;
    readonly headers: Record<string, string | undefined>;
  }
  const received: Received[] = [];
  let receiver: ReturnType<typeof createServer>;
  let callbackUrl = '';

  before(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ rawBody: Buffer.concat(chunks), headers: flat(request.headers) });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    callbackUrl = `http://127.0.0.1:${address.port}/providers/pawapay/callbacks`;
  });
  after(async () => {
    standIn.callbackTo(null);
    standIn.callbackMode('signed');
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  function flat(headers: IncomingHttpHeaders): Record<string, string | undefined> {
    const out: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
    return out;
  }

  async function payAndReceive(phone: string): Promise<{ payoutId: string; callbacks: Received[] }> {
    received.length = 0;
    standIn.callbackTo(callbackUrl);
    const submission = submissionFor(phone);
    assert.equal((await connectorAt(standIn.url, standIn.token).submit(submission)).kind, 'accepted');
    await standIn.callbacksIdle();
    return { payoutId: submission.idempotencyUuid, callbacks: [...received] };
  }

  it('a signed callback verifies and hints at its payout (providerRef = payoutId)', async () => {
    standIn.callbackMode('signed');
    const { payoutId, callbacks } = await payAndReceive(ZMB_NUMBERS.recipientNotFound);
    assert.equal(callbacks.length, 1);
    const verdict = await connectorAt(standIn.url, standIn.token).callbacks!.verify(callbacks[0]!);
    assert.deepEqual(verdict, { accepted: true, hints: [{ kind: 'payout', providerRef: payoutId, reference: null }] });
  });

  it('a callback signed by another key is refused', async () => {
    standIn.callbackMode('bad-signature');
    const { callbacks } = await payAndReceive(ZMB_NUMBERS.completed);
    const verdict = await connectorAt(standIn.url, standIn.token).callbacks!.verify(callbacks[0]!);
    assert.equal(verdict.accepted, false);
  });

  it('an unsigned callback is refused', async () => {
    standIn.callbackMode('unsigned');
    const { callbacks } = await payAndReceive(ZMB_NUMBERS.completed);
    const verdict = await connectorAt(standIn.url, standIn.token).callbacks!.verify(callbacks[0]!);
    assert.equal(verdict.accepted, false);
    assert.match(verdict.accepted ? '' : verdict.reason, /not signed/);
  });

  it('a signed callback whose body was changed is refused', async () => {
    standIn.callbackMode('signed');
    const { callbacks } = await payAndReceive(ZMB_NUMBERS.recipientNotFound);
    const original = callbacks[0]!;
    const tampered = Buffer.from(original.rawBody.toString('utf8').replace('"FAILED"', '"COMPLETED"'), 'utf8');
    assert.notDeepEqual(tampered, original.rawBody);
    const verdict = await connectorAt(standIn.url, standIn.token).callbacks!.verify({ ...original, rawBody: tampered });
    assert.equal(verdict.accepted, false);
  });

  it('duplicate callbacks each verify to the same hint (applying it twice changes nothing: Payrail re-reads the status)', async () => {
    standIn.callbackMode('duplicate');
    const { payoutId, callbacks } = await payAndReceive(ZMB_NUMBERS.completed);
    assert.equal(callbacks.length, 2);
    const connector = connectorAt(standIn.url, standIn.token);
    for (const callback of callbacks) {
      assert.deepEqual(await connector.callbacks!.verify(callback), { accepted: true, hints: [{ kind: 'payout', providerRef: payoutId, reference: null }] });
    }
  });

  it('callbacks delivered out of order each verify to their own payout', async () => {
    standIn.callbackMode('signed');
    standIn.callbackTo(callbackUrl);
    standIn.holdCallbacks();
    received.length = 0;
    const connector = connectorAt(standIn.url, standIn.token);
    const first = submissionFor(ZMB_NUMBERS.completed);
    const second = submissionFor(ZMB_NUMBERS.recipientNotFound);
    await connector.submit(first);
    await connector.submit(second);
    await standIn.callbacksIdle();
    standIn.releaseCallbacks({ reverse: true });
    await standIn.callbacksIdle();
    const refs: string[] = [];
    for (const callback of received) {
      const verdict = await connector.callbacks!.verify(callback);
      assert.equal(verdict.accepted, true);
      if (verdict.accepted) refs.push(...verdict.hints.map((hint) => (hint.kind === 'payout' ? hint.providerRef : '')));
    }
    assert.deepEqual(refs, [second.idempotencyUuid, first.idempotencyUuid]);
  });
});
