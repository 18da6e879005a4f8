// Every key Payrail hands to node's HMAC and AES-GCM calls is a KeyObject,
// never a raw buffer or string: on Node 24 a buffer key costs each call
// about 35-40 us to import (src/crypto/subkeys.ts), on every tokenize,
// charge, PIN check and webhook signature. The calls are watched while each
// keyed operation runs once; a key of any other type fails the test.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CardCipher } from '../../src/crypto/card-cipher.ts';
import { pinKeyFor } from '../../src/crypto/card-key.ts';
import { WebhookSecretCipher } from '../../src/crypto/webhook-secret.ts';
import { signWebhook } from '../../src/crypto/webhook-signature.ts';
import { hashPin, pinHashMatches } from '../../src/domain/credentials.ts';
import { Secret } from '../../src/domain/secret.ts';
import { csrfTokenFor } from '../../src/flows/panel/sessions.ts';

type Keyed = 'createHmac' | 'createCipheriv' | 'createDecipheriv';
const KEYED: readonly Keyed[] = ['createHmac', 'createCipheriv', 'createDecipheriv'];

/** Runs `work` with node's keyed calls watched; returns, per call, its name and whether its key was a KeyObject. */
function keysUsedBy(work: () => void): Array<{ call: Keyed; keyObject: boolean }> {
  const seen: Array<{ call: Keyed; keyObject: boolean }> = [];
  const mutable = crypto as unknown as Record<Keyed, (...args: unknown[]) => unknown>;
  const originals = KEYED.map((name) => [name, mutable[name]] as const);
  for (const [name, original] of originals) {
    mutable[name] = (...args: unknown[]) => {
      // createHmac(algorithm, key), createCipheriv(algorithm, key, iv, ...)
      seen.push({ call: name, keyObject: args[1] instanceof crypto.KeyObject });
      return original.apply(crypto, args);
    };
  }
  try {
    work();
  } finally {
    for (const [name, original] of originals) mutable[name] = original;
  }
  return seen;
}

function assertAllKeyObjects(what: string, seen: ReadonlyArray<{ call: Keyed; keyObject: boolean }>, callsMin: number): void {
  // The watch must have seen the calls, or the test would pass on nothing.
  assert.ok(seen.length >= callsMin, `${what}: ${seen.length} keyed calls seen, expected at least ${callsMin}`);
  const raw = seen.filter((s) => !s.keyObject).map((s) => s.call);
  assert.deepEqual(raw, [], `${what}: calls given a raw key`);
}

describe('keys reach the crypto calls as KeyObjects', () => {
  it('card data: a nonce sealed and opened, a card sealed and opened, a fingerprint', () => {
    const cipher = new CardCipher(crypto.randomBytes(32));
    const number = new Secret('4111111111111111');
    const seen = keysUsedBy(() => {
      const sealed = cipher.sealForNonce(number, 'card_number', 'src_a', 'nonce-text');
      assert.equal(cipher.openForNonce(sealed, 'card_number', 'src_a', 'nonce-text').reveal(), number.reveal());
      // Another nonce: its key is derived afresh (two HMACs).
      cipher.sealForNonce(new Secret('123'), 'cvv', 'src_a', 'another-nonce');
      const kept = cipher.seal(number, 'card_number', 'src_a');
      assert.equal(cipher.open(kept, 'card_number', 'src_a').reveal(), number.reveal());
      cipher.fingerprint(number, 'mer_a');
    });
    // 2 derivations x 2 HMACs, 3 seals, 2 opens, 1 fingerprint HMAC.
    assertAllKeyObjects('card data', seen, 10);
  });

  it('PINs, webhook secrets at rest, webhook signatures and the panel CSRF token', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrail-test-keys-'));
    try {
      const config = { cardKeyBase64: crypto.randomBytes(32).toString('base64'), environment: 'sandbox' as const, dataDir };
      const pinKey = pinKeyFor(config);
      const secrets = new WebhookSecretCipher(crypto.randomBytes(32));
      const seen = keysUsedBy(() => {
        const stored = hashPin(pinKey, 'key_a', '12345678');
        assert.equal(pinHashMatches(stored, pinKey, 'key_a', '12345678'), 'current');
        const sealed = secrets.seal(new Secret('whsec_abc'), 'we_a');
        assert.equal(secrets.open(sealed, 'we_a').reveal(), 'whsec_abc');
        signWebhook(new Secret('whsec_abc'), '{"id":"evt_1"}', 1_700_000_000_000);
        csrfTokenFor('session-token');
      });
      // 2 PIN HMACs, 1 seal, 1 open, 2 signature HMACs, 1 CSRF HMAC.
      assertAllKeyObjects('other keys', seen, 7);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
