// SharedCallDeadline (providers/deadline.ts): calls started together share
// one signal and one timer, a hung call still ends at its deadline even when
// nothing else keeps the process alive, and an idle deadline holds no timer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedCallDeadline } from '../../src/providers/deadline.ts';

const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

describe('shared call deadline', () => {
  it('shares one signal among calls started together, and holds no timer once they end', async () => {
    const before = timers();
    const deadline = new SharedCallDeadline(10_000);
    const signals: AbortSignal[] = [];
    const answers = await Promise.all(
      [1, 2, 3].map((n) =>
        deadline.run(async (signal) => {
          signals.push(signal);
          return n;
        }),
      ),
    );
    assert.deepEqual(answers, [1, 2, 3]);
    assert.equal(new Set(signals).size, 1);
    assert.equal(timers(), before, 'the window timer is cleared when its last call ends');
  });

  it('ends a hung call at its deadline, with nothing else pending, and passes errors through', async () => {
    const deadline = new SharedCallDeadline(30);
    const startMs = performance.now();
    await assert.rejects(
      deadline.run(() => new Promise(() => {})),
      (error: Error) => error.name === 'TimeoutError',
    );
    assert.ok(performance.now() - startMs >= 30);
    await assert.rejects(
      deadline.run(() => Promise.reject(new Error('refused'))),
      /refused/,
    );
    await assert.rejects(
      deadline.run(() => {
        throw new Error('thrown at once');
      }),
      /thrown at once/,
    );
  });
});
