// Checking a presented key against its stored hash (domain/credentials.ts):
// the key it was issued with matches, any other key does not, whatever was
// checked before; a hash of the older form (the secret alone) still matches
// as `legacy`; a damaged stored hash matches nothing.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { hashKey, issueKey, keyHashMatches, parseKey } from '../../src/domain/credentials.ts';

function check(stored: string, keyText: string): string {
  const parsed = parseKey(keyText);
  assert.ok(parsed !== null, `${keyText} parses`);
  return keyHashMatches(stored, parsed, keyText);
}

describe('keyHashMatches', () => {
  it('matches the issued key only, checked in any order', () => {
    const keys = [issueKey('sandbox', 'transfer_key'), issueKey('sandbox', 'source_key'), issueKey('production', 'transfer_key')];
    for (let round = 0; round < 2; round++) {
      for (const stored of keys) {
        for (const presented of keys) {
          assert.equal(check(stored.secretHash, presented.key), stored === presented ? 'current' : 'no');
        }
      }
    }
  });

  it('refuses a key that differs from the issued one in its last symbol', () => {
    const issued = issueKey('sandbox', 'transfer_key');
    const last = issued.key.at(-1)!;
    const altered = `${issued.key.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`;
    assert.equal(check(issued.secretHash, altered), 'no');
    assert.equal(check(issued.secretHash, issued.key), 'current');
  });

  it('matches a hash of the older form as legacy', () => {
    const issued = issueKey('sandbox', 'source_key');
    const secret = parseKey(issued.key)!.secret;
    const older = crypto.createHash('sha256').update(secret).digest('hex');
    assert.equal(check(older, issued.key), 'legacy');
    assert.equal(check(older, issueKey('sandbox', 'source_key').key), 'no');
  });

  it('matches nothing against a damaged stored hash', () => {
    const issued = issueKey('sandbox', 'transfer_key');
    const stored = hashKey(issued.key);
    for (const damaged of [stored.slice(0, -2), `${stored}00`, `${stored.slice(0, -1)}z`, 'sha256key$', 'sha256key$zz']) {
      assert.equal(check(damaged, issued.key), 'no', damaged);
    }
    assert.equal(check(stored, issued.key), 'current');
  });
});
