// The circuit breaker in front of each connector (src/providers/breaker.ts):
// it opens after N failures in a row (errors, or no answer by the caller's
// deadline), refuses without calling the connector while open, lets one
// trial through once its half-open interval has passed, and closes on that
// trial's answer. Answers of any kind are successes. Time is Date's, mocked.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { BreakerOpen, breakerSettingsOf, BREAKER_DEFAULTS, ConnectorBreaker } from '../../src/providers/breaker.ts';
import { breakerOf, fxWithBreaker } from '../../src/providers/connector-breakers.ts';
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
      await assert.rejects(
        breaker.call(AbortSignal.abort(new DOMException('no answer', 'TimeoutError')), () => new Promise<never>(() => undefined)),
        /no answer/,
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

  it("takes a connector's tuning only within bounds", () => {
    assert.deepEqual(breakerSettingsOf(undefined), BREAKER_DEFAULTS);
    assert.deepEqual(breakerSettingsOf({ breaker: { consecutiveFailuresMax: 2 } }), { ...BREAKER_DEFAULTS, consecutiveFailuresMax: 2 });
    assert.deepEqual(breakerSettingsOf({ breaker: { consecutiveFailuresMax: 0, halfOpenAfterMs: Number.POSITIVE_INFINITY } }), BREAKER_DEFAULTS);
  });
});
