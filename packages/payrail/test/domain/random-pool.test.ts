// The pooled CSPRNG (domain/random.ts): every value is fresh, of the length
// asked, in memory of its own (changing one changes no other), across pool
// refills and for sizes that bypass the pool.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBytes } from '../../src/domain/random.ts';

describe('random bytes from the pool', () => {
  it('hands out each byte once: 16-byte values over several refills never repeat', () => {
    const seen = new Set<string>();
    // 4096-byte pool: 2,000 values of 16 bytes refill it about eight times.
    for (let i = 0; i < 2_000; i++) {
      const value = randomBytes(16);
      assert.equal(value.length, 16);
      const hex = value.toString('hex');
      assert.ok(!seen.has(hex), `value ${i} repeated an earlier one`);
      seen.add(hex);
    }
  });

  it('gives each caller its own memory', () => {
    const a = randomBytes(12);
    const copyOfA = Buffer.from(a);
    const b = randomBytes(12);
    b.fill(0);
    assert.deepEqual(a, copyOfA, 'clearing one value left the other as it was');
  });

  it('serves sizes past the pool share and zero, and refuses nonsense', () => {
    assert.equal(randomBytes(0).length, 0);
    const large = randomBytes(10_000);
    assert.equal(large.length, 10_000);
    // 10,000 random bytes are not all alike.
    assert.ok(new Set(large).size > 200);
    assert.throws(() => randomBytes(-1), RangeError);
    assert.throws(() => randomBytes(1.5), RangeError);
  });
});
