// The shared rate-limit counter (src/http/rate-limit-store.ts): a hit that
// shares nothing is counted at once, without a promise; a hit that shares
// waits for the store; both count the same, across two processes' counters
// on one store, and a window's count starts again at the next window.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.ts';
import { SharedCounter, sharedStoreClass, type HitCount } from '../../src/http/rate-limit-store.ts';
import { createSqliteStore, type TestStore } from '../helpers/stores.ts';

const WINDOW_MS = 60_000;
/** A twentieth of it (20) is shared at once: hits 1, 21, 41, ... share, the rest count locally. */
const MAX = 400;

describe('SharedCounter', () => {
  let store: TestStore;
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const log = pino({ level: 'silent' });

  before(async () => {
    store = await createSqliteStore();
  });
  after(async () => {
    await store.dispose();
  });

  async function count(result: HitCount | Promise<HitCount>): Promise<{ current: number; waited: boolean }> {
    const waited = result instanceof Promise;
    return { current: (await result).current, waited };
  }

  it('counts hits that share nothing at once, and shares every twentieth of the limit through the store', async () => {
    const counter = new SharedCounter({ db: store.db, clock, log });
    const waitedAt: number[] = [];
    for (let hit = 1; hit <= 45; hit++) {
      const { current, waited } = await count(counter.hit('cred:a', WINDOW_MS, MAX));
      assert.equal(current, hit);
      if (waited) waitedAt.push(hit);
    }
    // The first hit of a window shares (nothing shared yet); then every 20 unshared hits.
    assert.deepEqual(waitedAt, [1, 21, 41]);
  });

  it("adds another process's shared hits to the count, and starts again in the next window", async () => {
    const first = new SharedCounter({ db: store.db, clock, log });
    const second = new SharedCounter({ db: store.db, clock, log });
    for (let hit = 0; hit < 20; hit++) await first.hit('addr:b', WINDOW_MS, MAX);
    // The second counter's first hit shares: it learns the first's 1 shared hit, not its 19 local ones yet.
    assert.deepEqual(await count(second.hit('addr:b', WINDOW_MS, MAX)), { current: 2, waited: true });
    // The first's 21st hit shares its 20 unshared ones: the total now holds both counters' hits.
    assert.deepEqual(await count(first.hit('addr:b', WINDOW_MS, MAX)), { current: 22, waited: true });
    clock.advance(WINDOW_MS);
    assert.deepEqual(await count(first.hit('addr:b', WINDOW_MS, MAX)), { current: 1, waited: true });
  });

  it('answers the rate-limit plugin in the same call when nothing is shared, and after the store otherwise', async () => {
    const Store = sharedStoreClass(new SharedCounter({ db: store.db, clock, log }));
    const limiter = new Store();
    const answers: Array<{ current: number; inCall: boolean }> = [];
    for (let hit = 1; hit <= 3; hit++) {
      let inCall = true;
      const answered = new Promise<void>((resolve, reject) =>
        limiter.incr(
          'cred:c',
          (error, result) => {
            if (error !== null || result === undefined) reject(error ?? new Error('no result'));
            else {
              answers.push({ current: result.current, inCall });
              resolve();
            }
          },
          WINDOW_MS,
          MAX,
        ),
      );
      inCall = false;
      await answered;
    }
    assert.deepEqual(answers, [
      { current: 1, inCall: false },
      { current: 2, inCall: true },
      { current: 3, inCall: true },
    ]);
  });
});
