// The circuit breaker in front of each connector (src/providers/breaker.ts):
// it opens after N failures in a row (errors, or no answer by the caller's
// deadline), refuses without calling the connector while open, lets one
// trial through once its half-open interval has passed, and closes on that
// trial's answer. Answers of any kind are successes; a call whose caller has
// given up is never sent and never counted, nor is an error marked
// countsAgainstBreaker === false. Time is Date's, mocked.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { BreakerOpen, breakerSettingsOf, BREAKER_DEFAULTS, ConnectorBreaker, NotSent } from '../../src/providers/breaker.ts';
import type { CardProcessor } from '../../src/providers/card-processor.ts';
import type { SettledBatch } from '../../src/providers/card-settlements.ts';
import { breakerOf, cardProcessorWithBreaker, fxWithBreaker } from '../../src/providers/connector-breakers.ts';
import type { FxProvider } from '../../src/providers/fx.ts';

const SETTINGS = { consecutiveFailuresMax: 3, halfOpenAfterMs: 1_000 };

describe('connector circuit breaker', () => {
  let sent = 0;
  const fails = () => {
    sent += 1;
    return Promise.reject(new Error('connect ECONNREFUSED'));
  };
  const answers = <T>(value: T) => {
    sent += 1;
    return Promise.resolve(value);
  };
  const failTimes = async (breaker: ConnectorBreaker, times: number) => {
    for (let i = 0; i < times; i++) await assert.rejects(breaker.call(undefined, fails), /ECONNREFUSED/);
  };

  beforeEach(() => {
    sent = 0;
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  });
  afterEach(() => mock.timers.reset());

  it('opens after N failures in a row and then refuses without sending', async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    await failTimes(breaker, 2);
    assert.deepEqual([breaker.state(), breaker.refusesNow()], ['closed', false]);
    await failTimes(breaker, 1);
    assert.deepEqual([breaker.state(), breaker.refusesNow()], ['open', true]);
    await assert.rejects(
      breaker.call(undefined, () => answers('late')),
      (error) => error instanceof BreakerOpen && error.connector === 'test',
    );
    assert.equal(sent, 3);
  });

  it('counts any answer as a success: failures must be consecutive', async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    await failTimes(breaker, 2);
    assert.deepEqual(await breaker.call(undefined, () => answers({ outcome: 'declined' })), { outcome: 'declined' });
    await failTimes(breaker, 2);
    assert.equal(breaker.state(), 'closed');
  });

  it("counts a call that outlives the caller's deadline as a failure, even when the connector never settles", async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    for (let i = 0; i < SETTINGS.consecutiveFailuresMax; i++) {
      const deadline = new AbortController();
      const call = breaker.call(deadline.signal, () => {
        sent += 1;
        return new Promise<never>(() => undefined);
      });
      deadline.abort(new DOMException('no answer', 'TimeoutError'));
      await assert.rejects(call, /no answer/);
    }
    assert.equal(sent, SETTINGS.consecutiveFailuresMax);
    assert.equal(breaker.state(), 'open');
  });

  it('never sends a call whose caller has already given up, and does not count it', async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    await failTimes(breaker, SETTINGS.consecutiveFailuresMax - 1);
    for (let i = 0; i < SETTINGS.consecutiveFailuresMax + 2; i++) {
      await assert.rejects(
        breaker.call(AbortSignal.abort(new DOMException('no answer', 'TimeoutError')), () => answers('sent anyway')),
        (error) => error instanceof NotSent && error.connector === 'test' && /no answer/.test(error.message),
      );
    }
    assert.equal(sent, SETTINGS.consecutiveFailuresMax - 1, 'the connector was never called');
    assert.equal(breaker.state(), 'closed');

    // Nor is it a half-open breaker's trial: the next live call is.
    await failTimes(breaker, 1);
    mock.timers.tick(SETTINGS.halfOpenAfterMs);
    await assert.rejects(
      breaker.call(AbortSignal.abort(), () => answers(1)),
      NotSent,
    );
    assert.equal(breaker.refusesNow(), false, 'still waiting for a trial');
    assert.equal(await breaker.call(undefined, () => answers('up')), 'up');
    assert.equal(breaker.state(), 'closed');
  });

  const openThenTrial = async (breaker: ConnectorBreaker) => {
    await failTimes(breaker, SETTINGS.consecutiveFailuresMax);
    mock.timers.tick(SETTINGS.halfOpenAfterMs);
    let answerTrial!: (value: string) => void;
    const trial = breaker.call(undefined, () => {
      sent += 1;
      return new Promise<string>((resolve) => {
        answerTrial = resolve;
      });
    });
    assert.equal(breaker.state(), 'half-open');
    return { trial, answerTrial: (value: string) => answerTrial(value) };
  };
  const queueBehindTrial = (breaker: ConnectorBreaker, count: number) =>
    Array.from({ length: count }, () => {
      const deadline = new AbortController();
      return { deadline, call: breaker.call(deadline.signal, () => answers('too late')) };
    });

  it('callers queued behind a trial whose deadlines pass are never sent once it succeeds: the breaker stays closed', async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    const { trial, answerTrial } = await openThenTrial(breaker);
    const queued = queueBehindTrial(breaker, SETTINGS.consecutiveFailuresMax + 2);
    const outcomes = queued.map(({ call }) =>
      call.then(
        () => 'sent',
        (error: unknown) => (error instanceof NotSent ? 'not sent' : error),
      ),
    );
    for (const { deadline } of queued) deadline.abort(new DOMException('no answer', 'TimeoutError'));
    answerTrial('up');
    assert.equal(await trial, 'up');
    await new Promise((resolve) => setImmediate(resolve)); // the queued calls come out from behind the trial
    assert.equal(breaker.state(), 'closed');
    assert.deepEqual(
      await Promise.all(outcomes),
      queued.map(() => 'not sent'),
    );
    assert.equal(sent, SETTINGS.consecutiveFailuresMax + 1, 'only the trial was sent after the breaker opened');
    // The run of failures starts from zero: the expired callers counted for nothing.
    await failTimes(breaker, SETTINGS.consecutiveFailuresMax - 1);
    assert.equal(breaker.state(), 'closed');
  });

  it('a caller queued behind a trial goes at its own deadline, without waiting for the trial', async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    const { trial, answerTrial } = await openThenTrial(breaker);
    const [waiting, live] = queueBehindTrial(breaker, 2);
    waiting!.deadline.abort(new DOMException('no answer', 'TimeoutError'));
    await assert.rejects(waiting!.call, NotSent);
    assert.equal(breaker.state(), 'half-open', 'the trial is still out');
    answerTrial('up');
    assert.equal(await trial, 'up');
    assert.equal(await live!.call, 'too late', 'a caller still waiting is sent once the trial answers');
    assert.equal(sent, SETTINGS.consecutiveFailuresMax + 2);
  });

  it('does not count an error marked countsAgainstBreaker === false, and passes it on unchanged', async () => {
    class AnswerUnusable extends Error {
      readonly countsAgainstBreaker = false;
    }
    const breaker = new ConnectorBreaker('test', SETTINGS);
    for (let i = 0; i < SETTINGS.consecutiveFailuresMax * 2; i++) {
      const unusable = i % 2 === 0 ? new AnswerUnusable('garbled answer') : Object.assign(new Error('garbled answer'), { countsAgainstBreaker: false });
      await assert.rejects(
        breaker.call(undefined, () => Promise.reject(unusable)),
        (error) => error === unusable,
      );
    }
    assert.equal(breaker.state(), 'closed');
    // Any other value of the property counts as usual.
    for (let i = 0; i < SETTINGS.consecutiveFailuresMax; i++) {
      await assert.rejects(
        breaker.call(undefined, () => Promise.reject(Object.assign(new Error('down'), { countsAgainstBreaker: 'no' }))),
        /down/,
      );
    }
    assert.equal(breaker.state(), 'open');
  });

  it('half-opens after its interval: a trial that answers closes it, a trial that fails opens it again', async () => {
    const breaker = new ConnectorBreaker('test', SETTINGS);
    await failTimes(breaker, 3);
    mock.timers.tick(SETTINGS.halfOpenAfterMs - 1);
    assert.equal(breaker.refusesNow(), true);
    mock.timers.tick(1);
    assert.equal(breaker.refusesNow(), false, 'the next call is let through as the trial');
    await assert.rejects(breaker.call(undefined, fails), /ECONNREFUSED/);
    assert.deepEqual([breaker.state(), breaker.refusesNow()], ['open', true]);
    await assert.rejects(
      breaker.call(undefined, () => answers(1)),
      BreakerOpen,
    );

    mock.timers.tick(SETTINGS.halfOpenAfterMs);
    assert.equal(await breaker.call(undefined, () => answers('up')), 'up');
    assert.deepEqual([breaker.state(), breaker.refusesNow()], ['closed', false]);
    assert.equal(sent, 5);
  });

  it('wraps a connector: its calls go through the breaker, and breakerOf finds it', async () => {
    const fx: FxProvider & { breaker: typeof SETTINGS } = { lookupTimeoutMs: 50, breaker: SETTINGS, rate: () => fails() };
    const wrapped = fxWithBreaker(fx);
    assert.equal(wrapped.lookupTimeoutMs, 50);
    const corridor = { currency: 'KES' } as Parameters<FxProvider['rate']>[0];
    for (let i = 0; i < SETTINGS.consecutiveFailuresMax; i++) await assert.rejects(wrapped.rate(corridor), /ECONNREFUSED/);
    await assert.rejects(wrapped.rate(corridor), BreakerOpen);
    assert.equal(sent, SETTINGS.consecutiveFailuresMax);
    assert.equal(breakerOf(wrapped)?.state(), 'open');
    assert.equal(breakerOf(fx), null);
  });

  it("gives the card processor's settlement reads a breaker of their own", async () => {
    let settlementReads = 0;
    const processor = {
      name: 'test-processor',
      breaker: SETTINGS,
      authorize: () => fails(),
      settlements: {
        settledBatches: () => {
          settlementReads += 1;
          return Promise.resolve([] as SettledBatch[]);
        },
      },
    } as unknown as CardProcessor;
    const wrapped = cardProcessorWithBreaker(processor);
    const charges = breakerOf(wrapped);
    const settlements = breakerOf(wrapped.settlements!);
    assert.ok(charges !== null && settlements !== null && charges !== settlements);
    const request = {} as Parameters<CardProcessor['authorize']>[0];
    for (let i = 0; i < SETTINGS.consecutiveFailuresMax; i++) await assert.rejects(wrapped.authorize(request), /ECONNREFUSED/);
    assert.equal(charges.state(), 'open');
    // A settlement read neither waits on the charges' breaker nor becomes its trial.
    mock.timers.tick(SETTINGS.halfOpenAfterMs);
    assert.deepEqual(await wrapped.settlements!.settledBatches({ fromMs: 0, toMs: 1, signal: AbortSignal.timeout(1_000) }), []);
    assert.equal(settlementReads, 1);
    assert.deepEqual([charges.state(), charges.refusesNow(), settlements.state()], ['open', false, 'closed']);
  });

  it("takes a connector's tuning only within bounds", () => {
    assert.deepEqual(breakerSettingsOf(undefined), BREAKER_DEFAULTS);
    assert.deepEqual(breakerSettingsOf({ breaker: { consecutiveFailuresMax: 2 } }), { ...BREAKER_DEFAULTS, consecutiveFailuresMax: 2 });
    assert.deepEqual(breakerSettingsOf({ breaker: { consecutiveFailuresMax: 0, halfOpenAfterMs: Number.POSITIVE_INFINITY } }), BREAKER_DEFAULTS);
  });
});
