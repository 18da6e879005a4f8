// isoTime keeps the last time it rendered: it must still render every time
// exactly as Date does, in any order, and a time no Date holds must throw
// every time without spoiling the next answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTime, parseIsoTimestamp } from '../../src/domain/iso-time.ts';

describe('isoTime', () => {
  it('renders each time as Date does, repeated or not, in any order', () => {
    const base = Date.UTC(2026, 10, 27, 9, 30, 0, 123);
    const times = [base, base, base + 1, base, 0, -1, base + 86_400_000, base + 86_400_000, 8.64e15, -8.64e15];
    for (const ms of times) assert.equal(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);
  });

  it('round-trips through the list filters', () => {
    const ms = Date.UTC(2026, 0, 31, 23, 59, 59, 999);
    assert.equal(parseIsoTimestamp(isoTime(ms)), ms);
  });

  it('throws for a time no Date holds, every time, and answers the next time right', () => {
    const ms = Date.UTC(2026, 5, 1);
    assert.equal(isoTime(ms), '2026-06-01T00:00:00.000Z');
    for (const bad of [Number.NaN, Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) {
      assert.throws(() => isoTime(bad), RangeError);
    }
    assert.equal(isoTime(ms), '2026-06-01T00:00:00.000Z');
    assert.equal(isoTime(ms + 1), '2026-06-01T00:00:00.001Z');
  });
});
