// Keys derived from the one configured card-data key (PAYRAIL_CARD_KEY), one
// per purpose, with HKDF-SHA256 (RFC 5869). A derived key opens nothing but
// what it was derived for, and the operator keeps one secret instead of
// several. The purposes are fixed strings here; changing one changes the key
// (and makes what it protected unreadable), so they are never edited.
//
// Keys reach node's crypto calls as KeyObjects, never as raw buffers: on
// Node 24 every createHmac, createCipheriv or createDecipheriv given a
// buffer key pays about 35-40 us to import it (measured on 24.21.0: an
// HMAC 39.8 us with a buffer key, 3.6 us with a KeyObject; AES-GCM 45 vs
// 10 us), while making a KeyObject costs 1.4 us. Node 20 and 22 take both
// at about the same speed. Long-lived keys are made KeyObjects once; a key
// used for one request (a nonce's) is made one where it is derived.
import crypto, { type KeyObject } from 'node:crypto';

/** Every derived key is this long: AES-256 and HMAC-SHA256 keys alike. */
export const SUBKEY_BYTES = 32;

const PURPOSES = {
  /** HMAC key of stored PIN hashes (docs/api-decisions.md section 13). */
  pinHash: 'payrail:pin-hash:v1',
  /** With a nonce's secret part as salt: the key of that nonce's card data. */
  nonceCardData: 'payrail:nonce-card-data:v1',
  /** HMAC key of saved cards' fingerprints, which find the same card saved twice (docs/api-decisions.md section 15). */
  cardFingerprint: 'payrail:card-fingerprint:v1',
  /** Webhook endpoints' signing secrets at rest (docs/api-decisions.md section 11). */
  webhookSecret: 'payrail:webhook-secret:v1',
  /** The key of a card-data key's check value (key-ring.ts keyCheckValue), which shows it is the key a store recorded. */
  keyCheck: 'payrail:key-check:v1',
} as const;

export type SubkeyPurpose = keyof typeof PURPOSES;

export function deriveSubkey(masterKey: Buffer, purpose: SubkeyPurpose, salt: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', masterKey, salt, PURPOSES[purpose], SUBKEY_BYTES));
}

/** deriveSubkey's key as the KeyObject the crypto calls take (see the top of this file). */
export function deriveSubkeyObject(masterKey: Buffer, purpose: SubkeyPurpose): KeyObject {
  return crypto.createSecretKey(deriveSubkey(masterKey, purpose));
}

const FIRST_BLOCK = Buffer.from([1]);

/**
 * The same key as deriveSubkey, as a KeyObject, for a key derived on every
 * request (a nonce's): RFC 5869 with one output block is two HMACs, extract
 * (PRK = HMAC(salt, key)) then expand (HMAC(PRK, info | 0x01)), and two
 * HMACs cost a third of hkdfSync, which sets up a job and key objects each
 * call. test/crypto-subkeys.test.ts checks both give the same key.
 */
export function deriveSubkeyFast(masterKey: Buffer, purpose: SubkeyPurpose, salt: Buffer): KeyObject {
  const prk = crypto.createHmac('sha256', crypto.createSecretKey(salt)).update(masterKey).digest();
  return crypto.createSecretKey(crypto.createHmac('sha256', crypto.createSecretKey(prk)).update(PURPOSES[purpose]).update(FIRST_BLOCK).digest());
}
