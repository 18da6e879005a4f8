// The per-request derivation of nonce keys gives exactly HKDF-SHA256's key
// (RFC 5869, as deriveSubkey computes it with node's hkdfSync), for any
// salt length, so sealed nonces open whichever function derived their key.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { CardCipher } from '../../src/crypto/card-cipher.ts';
import { deriveSubkey, deriveSubkeyFast } from '../../src/crypto/subkeys.ts';
import { Secret } from '../../src/domain/secret.ts';

describe('subkeys', () => {
  it('derives the same key as HKDF for every salt length', () => {
    for (const length of [0, 1, 16, 32, 44, 64, 65, 200]) {
      const master = crypto.randomBytes(32);
      const salt = crypto.randomBytes(length);
      assert.deepEqual(deriveSubkeyFast(master, 'nonceCardData', salt).export(), deriveSubkey(master, 'nonceCardData', salt), `salt of ${length} bytes`);
    }
  });

  it('opens a nonce sealed right after another only with its own nonce', () => {
    const cipher = new CardCipher(crypto.randomBytes(32));
    const first = cipher.sealForNonce(new Secret('4111111111111111'), 'card_number', 'src_a', 'nonce-one');
    const second = cipher.sealForNonce(new Secret('5555555555554444'), 'card_number', 'src_a', 'nonce-two');
    assert.equal(cipher.openForNonce(first, 'card_number', 'src_a', 'nonce-one').reveal(), '4111111111111111');
    assert.equal(cipher.openForNonce(second, 'card_number', 'src_a', 'nonce-two').reveal(), '5555555555554444');
    assert.throws(() => cipher.openForNonce(first, 'card_number', 'src_a', 'nonce-two'), /failed authentication/);
    assert.throws(() => cipher.openForNonce(second, 'card_number', 'src_a', 'nonce-one'), /failed authentication/);
  });
});
