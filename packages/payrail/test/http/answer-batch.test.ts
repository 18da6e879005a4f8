// Answers held by the HTTP layer leave together at the end of the I/O phase
// (http/answer-batch.ts): none is written while the phase still runs, all of
// them in the order they were ready, and an answer that becomes ready while
// a batch is being written waits for the next one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerBatch } from '../../src/http/answer-batch.ts';
import { createTestApp } from '../helpers/app.ts';

const nextCheckPhase = () => new Promise((resolve) => setImmediate(resolve));

describe('answer batch', () => {
  it('holds answers until the check phase, then writes them in order', async () => {
    const batch = new AnswerBatch();
    const sent: string[] = [];
    batch.hold(() => sent.push('a'));
    batch.hold(() => sent.push('b'));
    await Promise.resolve();
    assert.deepEqual(sent, [], 'nothing is written during the phase that produced the answers');
    assert.equal(batch.waiting, 2);
    await nextCheckPhase();
    assert.deepEqual(sent, ['a', 'b']);
    assert.equal(batch.waiting, 0);
  });

  it('puts an answer made ready while a batch is written into the next batch', async () => {
    const batch = new AnswerBatch();
    const sent: string[] = [];
    batch.hold(() => {
      sent.push('first');
      batch.hold(() => sent.push('later'));
    });
    await nextCheckPhase();
    assert.deepEqual(sent, ['first']);
    assert.equal(batch.waiting, 1);
    await nextCheckPhase();
    assert.deepEqual(sent, ['first', 'later']);
  });

  it('still answers every request of a burst, each with its own request id', async () => {
    const t = await createTestApp('sqlite');
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) => t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': `burst-${n}` } })),
      );
      assert.deepEqual(
        answers.map((a) => [a.statusCode, a.headers['x-request-id']]),
        answers.map((_, n) => [200, `burst-${n}`]),
      );
    } finally {
      await t.close();
    }
  });
});
