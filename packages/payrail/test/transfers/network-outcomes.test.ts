// What the worker does when the payout network's answer is lost or unknown
// (a dropped connection, a timeout): the network may have taken the payout,
// so the transfer is resubmitted under the same reference until the network
// answers, and its money is never given back meanwhile. Only definitive
// "nothing was paid" answers count toward giving up. Every network call
// carries an AbortSignal, and connector errors are logged as a summary only.
// Driven through a connector module that loses replies on purpose, on both
// stores, with the manual clock.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RETRY_BACKOFF_MS_MAX, SUBMIT_ATTEMPTS_MAX } from '../../src/flows/transfers/advance.ts';
import { cancelTransfer } from '../../src/flows/transfers/operator.ts';
import { untilAborted } from '../../src/providers/deadline.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, events, statusBody, transferBody, transferPk } from '../helpers/transfers.ts';
import { pollScripts, polls, resetUnreliableNetwork, submissions, submitScripts, taken, type Misbehaviour } from '../helpers/unreliable-payout-network.ts';

const UNRELIABLE_NETWORK = path.join(import.meta.dirname, '..', 'helpers', 'unreliable-payout-network.ts');

type Api = ReturnType<typeof caller>;
type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

describe('untilAborted', () => {
  it('ends a call that ignores its signal when the signal fires', async () => {
    const controller = new AbortController();
    const call = untilAborted(new Promise<never>(() => undefined), controller.signal);
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    await assert.rejects(call, { name: 'TimeoutError' });
  });

  it('passes an answer or an error through unchanged', async () => {
    const signal = new AbortController().signal;
    assert.equal(await untilAborted(Promise.resolve(7), signal), 7);
    await assert.rejects(untilAborted(Promise.reject(new Error('refused')), signal), { message: 'refused' });
  });
});

for (const kind of STORE_KINDS) {
  describe(`payout network answers lost or unknown (${kind})`, () => {
    let t: TestApp;
    let api: Api;
    let merchant: Merchant;

    before(async () => {
      resetUnreliableNetwork();
      t = await createTestApp(kind, { env: { PAYRAIL_PAYOUT_NETWORK: UNRELIABLE_NETWORK } });
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(async () => {
      await t.close();
    });

    const stateOf = async (id: string): Promise<[number, number, number]> => {
      const result = ((await api.status(id)).body as { status: { result: { state: number; substate: number; final: number } } }).status.result;
      return [result.state, result.substate, result.final];
    };

    /** Runs the worker once per scripted misbehaviour, letting each backoff pass; the transfer must stay unsettled throughout. */
    const playThrough = async (id: string, rounds: number, expected: [number, number, number]) => {
      for (let round = 1; round <= rounds; round++) {
        await t.worker.drain();
        assert.deepEqual(await stateOf(id), expected, `after network call ${round}`);
        t.clock.advance(RETRY_BACKOFF_MS_MAX);
      }
    };

    it('a payout whose reply was lost is resubmitted under the same reference until the network answers, and never refunded', async () => {
      const body = transferBody({ lastFour: '1101', amount: '25.00' });
      const script: Misbehaviour[] = ['accept_then_lose_reply', ...Array<Misbehaviour>(SUBMIT_ATTEMPTS_MAX + 2).fill('connection_error')];
      submitScripts.set(body.receiver_phone, [...script]);
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });

      await playThrough(body.id, script.length, [40, 3, 0]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 2500, in_flight: start.in_flight + 2500 });
      // Only the first unknown outcome is an event; the retries after it move the schedule only.
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 3],
      ]);
      assert.deepEqual(await api.status(body.id), {
        status: 200,
        body: statusBody(body.id, { state: 40, substate: 3, final: 0, serverTimeMs: t.clock.nowMs() }),
      });
      await assert.rejects(cancelTransfer(t.service, { merchantId: merchant.merchant_id, transferId: body.id }), {
        message: `only a waiting transfer (state 0, substate 9) can be cancelled; transfer ${body.id} is state 40, substate 3`,
      });

      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 3],
        [40, 1],
        [60, 0],
      ]);
      const key = t.service.providerKeys.key('transfer', await transferPk(t.service, merchant.merchant_id, body.id));
      const mine = submissions.filter((s) => s.receiverPhone === body.receiver_phone);
      assert.deepEqual(
        mine.map((s) => [s.idempotencyKey, s.attempt]),
        Array.from({ length: script.length + 1 }, (_, i) => [key, i + 1]),
      );
      // The payout recorded is the one the network took on the first attempt, whose reply was lost.
      const firstRef = taken.get(key)!;
      const trans = ((await api.status(body.id)).body as { status: { result: { trans: string } } }).status.result.trans;
      assert.equal(trans, `SBX-${firstRef.split('.')[2]}-${key}`);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 2500, paid_out: start.paid_out + 2500 });
      await assertLedgerOk(t.service);
    });

    it('"unavailable" answers after an unknown outcome do not settle it: no give-up, no refund', async () => {
      const body = transferBody({ lastFour: '1102', amount: '30.00' });
      const script: Misbehaviour[] = ['connection_error', ...Array<Misbehaviour>(SUBMIT_ATTEMPTS_MAX + 1).fill('unavailable')];
      submitScripts.set(body.receiver_phone, [...script]);
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await playThrough(body.id, script.length, [40, 3, 0]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 3000, in_flight: start.in_flight + 3000 });
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 3],
        [40, 1],
        [60, 0],
      ]);
      await assertLedgerOk(t.service);
    });

    it('a refusal of a resubmission after an unknown outcome does not settle it either: no failure, no refund', async () => {
      const body = transferBody({ lastFour: '1105', amount: '31.00' });
      const script: Misbehaviour[] = ['accept_then_lose_reply', 'rejected', 'rejected'];
      submitScripts.set(body.receiver_phone, [...script]);
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await playThrough(body.id, script.length, [40, 3, 0]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 3100, in_flight: start.in_flight + 3100 });
      assert.ok(
        t.logLines.some((line) => line.includes('payout network refused a resubmission of a payout whose earlier submission may have been taken')),
        'the operator is told',
      );
      // The next resubmission is answered for the payout the network took first: paid once.
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 3],
        [40, 1],
        [60, 0],
      ]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available - 3100, paid_out: start.paid_out + 3100 });
      await assertLedgerOk(t.service);
    });

    it('definitive "unavailable" answers alone give up after SUBMIT_ATTEMPTS_MAX attempts and refund: nothing was paid', async () => {
      const body = transferBody({ lastFour: '1103', amount: '12.00' });
      submitScripts.set(body.receiver_phone, Array<Misbehaviour>(SUBMIT_ATTEMPTS_MAX).fill('unavailable'));
      const start = await balances(t.service, merchant.merchant_id);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await playThrough(body.id, SUBMIT_ATTEMPTS_MAX - 1, [40, 4, 0]);
      await t.worker.drain();
      assert.deepEqual(await api.status(body.id), {
        status: 200,
        body: statusBody(body.id, {
          state: 80,
          substate: 8,
          final: 1,
          serverTimeMs: t.clock.nowMs(),
          attribute: [
            { name: 'provider-error-text', value: 'The payout network stayed unavailable; the transfer was not sent' },
            { name: 'provider-error-code', value: 'NETWORK_UNAVAILABLE' },
          ],
        }),
      });
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [[0, 0], ...Array(SUBMIT_ATTEMPTS_MAX - 1).fill([40, 4]), [80, 8]]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      await assertLedgerOk(t.service);
    });

    it('every network call carries a live AbortSignal, and a timed-out call counts as an unknown outcome', async () => {
      const body = transferBody({ lastFour: '1104' });
      submitScripts.set(body.receiver_phone, ['timeout']);
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      assert.deepEqual(await stateOf(body.id), [40, 3, 0]);
      t.clock.advance(RETRY_BACKOFF_MS_MAX);
      await t.worker.drain();
      assert.deepEqual(await events(t.service, merchant.merchant_id, body.id), [
        [0, 0],
        [40, 3],
        [40, 1],
        [60, 0],
      ]);
      assert.ok(submissions.length > 0 && polls.length > 0);
      assert.deepEqual(
        submissions.filter((s) => !s.signalLive),
        [],
      );
      assert.deepEqual(
        polls.filter((p) => !p.signalLive),
        [],
      );
    });

    it('logs a connector error as its name and message only, never the receiver data it carries', async () => {
      const body = transferBody({ country: 'NG', lastFour: '1105', amount: '40.00' });
      const account = body.attribute.find((a) => a.name === 'receiverAccountNumber')!.value;
      submitScripts.set(body.receiver_phone, ['connection_error']);
      pollScripts.set(body.receiver_phone, ['connection_error']);
      const from = t.logLines.length;
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      t.clock.advance(RETRY_BACKOFF_MS_MAX);
      await t.worker.drain();
      t.clock.advance(RETRY_BACKOFF_MS_MAX);
      await t.worker.drain();
      assert.deepEqual(await stateOf(body.id), [60, 0, 1]);
      const lines = t.logLines.slice(from).map((line) => JSON.parse(line) as { msg: string; err?: Record<string, unknown> });
      const warnings = lines.filter((line) => line.msg.startsWith('payout network'));
      assert.deepEqual(
        warnings.map((line) => [line.msg, line.err?.name, line.err?.message]),
        [
          ['payout network submit did not answer; outcome unknown, will resubmit', 'Error', 'socket hang up'],
          ['payout network poll failed; will retry', 'Error', 'socket hang up'],
        ],
      );
      // The error's own properties (its code, the request it carried) stay out of the log.
      for (const line of warnings)
        assert.deepEqual(
          Object.keys(line.err!).filter((key) => key === 'code' || key === 'request'),
          [],
        );
      assert.deepEqual(
        t.logLines.slice(from).filter((line) => line.includes(account)),
        [],
      );
      await assertLedgerOk(t.service);
    });
  });
}
