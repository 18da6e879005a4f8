// The canonical text an Idempotency-Key hashes a request body by
// (src/domain/canonical-json.ts): key order never counts, array order does,
// and otherwise it is what JSON.stringify writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../src/domain/canonical-json.ts';

describe('canonical JSON', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } }), '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    assert.equal(canonicalJson({ b: 1, a: 2 }), canonicalJson({ a: 2, b: 1 }));
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  });

  it('writes scalars, escapes and left-out undefined values as JSON.stringify does', () => {
    for (const value of [null, true, 0, -1.5, 1e21, 'a"b\\u2028', '', [], {}, [null, 'x']]) {
      assert.equal(canonicalJson(value), JSON.stringify(value), JSON.stringify(value));
    }
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
    assert.equal(canonicalJson([undefined]), '[null]');
    // Keys that JSON must escape stay escaped.
    assert.equal(canonicalJson({ 'q"k': 1 }), '{"q\\"k":1}');
  });

  it('refuses a value nested past its bound instead of recursing without end', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    assert.throws(() => canonicalJson(deep), /nested deeper/);
  });
});
