// The worker loop's rounds: a job that found work runs again in the next
// round; one that found none backs off on its own (5 ms doubling to 200 ms)
// while the busy ones keep running, and poke() brings every job back at once.
// The loop's clock is driven by the test; rounds are run one by one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { BUSY_LINGER_MS, ERROR_BACKOFF_MS_MAX, ERROR_BACKOFF_MS_MIN, nextIdleBackoffMs, Worker, type Job } from '../../src/worker/worker.ts';

function countingJob(name: string, work: () => number, batchMax?: number): Job & { calls: number } {
  const job = {
    name,
    ...(batchMax === undefined ? {} : { batchMax }),
    calls: 0,
    async runOnce() {
      job.calls += 1;
      return work();
    },
  };
  return job;
}

describe('worker loop', () => {
  it('backs off an idle job while a busy one keeps running', async () => {
    let nowMs = 1_000;
    const busy = countingJob('busy', () => 1);
    const idle = countingJob('idle', () => 0);
    const worker = new Worker([busy, idle], pino({ level: 'silent' }), () => nowMs);

    // 50 rounds within 4 ms: the idle job was looked at once (its first back-off is 5 ms).
    for (let i = 0; i < 50; i++) {
      assert.equal(await worker.round(), 0, 'a round with work is followed at once by the next');
      if (i % 12 === 11) nowMs += 1;
    }
    assert.equal(busy.calls, 50);
    assert.equal(idle.calls, 1);

    // Past the back-off it is looked at again, and the next back-off is twice as long.
    nowMs += 5;
    await worker.round();
    assert.equal(idle.calls, 2);
    nowMs += 9;
    await worker.round();
    assert.equal(idle.calls, 2, 'the second back-off is 10 ms');
    nowMs += 1;
    await worker.round();
    assert.equal(idle.calls, 3);
  });

  it('sleeps until the earliest idle job is due when none found work, and poke() brings them all back', async () => {
    let nowMs = 0;
    let pending = 0;
    const a = countingJob('a', () => (pending > 0 ? pending-- : 0));
    const b = countingJob('b', () => 0);
    const worker = new Worker([a, b], pino({ level: 'silent' }), () => nowMs);
    assert.equal(await worker.round(), 5);
    nowMs += 5;
    assert.equal(await worker.round(), 10);
    nowMs += 10;
    assert.equal(await worker.round(), 20);
    assert.equal(a.calls, 3);

    pending = 2;
    nowMs += 1;
    assert.equal(await worker.round(), 19, 'nothing is due before its back-off ends');
    assert.equal(a.calls, 3);
    worker.poke();
    assert.equal(await worker.round(), 0, 'poked: every job runs, and one found work');
    assert.equal(a.calls, 4);
    assert.equal(b.calls, 4);
    assert.equal(await worker.round(), 0, 'the job with work runs again at once');
    assert.equal(a.calls, 5);
    assert.equal(b.calls, 4, 'the idle one waits out its back-off');
  });

  it('lets a job that found a partial batch linger, and runs one with a full batch again at once', async () => {
    let nowMs = 0;
    let found = 3;
    const batched = countingJob('batched', () => found, 10);
    const worker = new Worker([batched], pino({ level: 'silent' }), () => nowMs);

    assert.equal(await worker.round(), BUSY_LINGER_MS, 'a partial batch: the loop sleeps for the linger');
    assert.equal(batched.calls, 1);
    nowMs += BUSY_LINGER_MS - 1;
    await worker.round();
    assert.equal(batched.calls, 1, 'not called again within the linger');
    nowMs += 1;
    found = 10;
    assert.equal(await worker.round(), 0, 'a full batch: the next round follows at once');
    assert.equal(batched.calls, 2);
    found = 4;
    assert.equal(await worker.round(), BUSY_LINGER_MS);
    assert.equal(batched.calls, 3, 'called again at once after a full batch');

    // A job without a bound is called again at once whenever it found work, as before.
    const unbounded = countingJob('unbounded', () => 1);
    const plain = new Worker([unbounded], pino({ level: 'silent' }), () => nowMs);
    assert.equal(await plain.round(), 0);
    assert.equal(await plain.round(), 0);
    assert.equal(unbounded.calls, 2);
  });

  it('caps the back-off at 200 ms', () => {
    let backoffMs = 0;
    const seen: number[] = [];
    for (let i = 0; i < 9; i++) {
      backoffMs = nextIdleBackoffMs(backoffMs);
      seen.push(backoffMs);
    }
    assert.deepEqual(seen, [5, 10, 20, 40, 80, 160, 200, 200, 200]);
  });

  it('finding 2: a job that throws is logged by name and backs off, and the jobs after it still run every round', async () => {
    let nowMs = 0;
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const before = countingJob('before', () => 1);
    const failing = countingJob('card-keys.reseal', () => {
      throw new Error('card-data key 3 is not loaded');
    });
    const mail = countingJob('mail.send', () => 1);
    const worker = new Worker([before, failing, mail], log, () => nowMs);
    for (let i = 0; i < 20; i++) assert.equal(await worker.round(), 0, 'the others found work: the loop goes on at once');
    assert.equal(before.calls, 20);
    assert.equal(mail.calls, 20, 'the job after the failing one ran every round');
    assert.equal(failing.calls, 1, 'the failing job waits out its back-off instead of spinning');
    const logged = lines.filter((line) => line.job === 'card-keys.reseal');
    assert.equal(logged.length, 1);
    assert.match(JSON.stringify(logged[0]), /card-data key 3 is not loaded/);

    // Its back-off doubles with each throw in a row, up to a bound; poke() does not cut it short.
    nowMs += ERROR_BACKOFF_MS_MIN;
    await worker.round();
    assert.equal(failing.calls, 2);
    worker.poke();
    nowMs += ERROR_BACKOFF_MS_MIN;
    await worker.round();
    assert.equal(failing.calls, 2, 'the second wait is twice as long');
    nowMs += ERROR_BACKOFF_MS_MIN;
    await worker.round();
    assert.equal(failing.calls, 3);
    for (let i = 0; i < 20; i++) {
      nowMs += ERROR_BACKOFF_MS_MAX;
      await worker.round();
    }
    assert.equal(failing.calls, 23, 'the wait is bounded: a failing job is tried again at least every ERROR_BACKOFF_MS_MAX');
    assert.equal(mail.calls, 43);
  });

  it('finding 2: the loop keeps running the other jobs while one throws on every call', async () => {
    const failing = countingJob('failing', () => {
      throw new Error('boom');
    });
    let sent = 0;
    const mail = countingJob('mail.send', () => {
      if (sent >= 5) return 0;
      sent += 1;
      return 1;
    });
    const worker = new Worker([failing, mail], pino({ level: 'silent' }));
    worker.start();
    const deadline = Date.now() + 2000;
    while (sent < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.stop();
    assert.equal(sent, 5);
    assert.equal(failing.calls, 1);
  });
});
