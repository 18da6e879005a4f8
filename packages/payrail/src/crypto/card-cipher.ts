// Card data at rest: AES-256-GCM (authenticated encryption) with a random
// 96-bit IV per value. Each value is bound to what it is and whose it is
// (the "context", e.g. `card_number:<source id>`) through the GCM additional
// data, so a ciphertext copied into another row or another source's record
// fails to open instead of decrypting to the wrong card.
//
// Layouts of a sealed value (first byte: the format):
//   1: 1 | IV (12) | tag (16) | ciphertext            under key 1
//   2: 2 | IV (12) | tag (16) | ciphertext            under key 1 and a nonce
//   3: 3 | key id (4, big-endian) | IV | tag | ciphertext   under that key
//   4: 4 | key id (4, big-endian) | IV | tag | ciphertext   under that key and a nonce
// Key 1 is the key Payrail had before keys could rotate (src/crypto/key-ring.ts):
// it keeps sealing formats 1 and 2, so an installation that never rotates
// writes exactly what it always wrote. Any later key writes 3 and 4.
//
// Formats 1 and 3 are sealed under the card-data key itself: what the server
// must be able to open later on its own (a pending charge's card number,
// kept for recovery until the charge is final). Formats 2 and 4 are a nonce's
// card data, sealed under a key derived from the card-data key AND the
// nonce's secret part, which is never stored (only its hash is): once the
// nonce is gone, nobody can open what its row left behind in old database
// pages, row versions or backups, not even with the card-data key
// (docs/api-decisions.md section 8). For the same reason nonce data is never
// re-sealed under a new key: it lives 15 minutes and is not kept.
import crypto, { type KeyObject } from 'node:crypto';
import { randomBytes } from '../domain/random.ts';
import { Secret } from '../domain/secret.ts';
import { DataKey, KeyRing, LEGACY_KEY_ID } from './key-ring.ts';
import { deriveSubkeyFast } from './subkeys.ts';

const FORMAT_LEGACY = 1;
const FORMAT_LEGACY_NONCE = 2;
const FORMAT_KEYED = 3;
const FORMAT_KEYED_NONCE = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 4;
export const CARD_KEY_BYTES = 32;

/** The card fields we keep; each is a distinct context so one can never be opened as the other. */
export type CardField = 'card_number' | 'cvv';

/** What the header of a sealed value says: its key, and whether a nonce is needed to open it. */
export interface SealedKey {
  readonly keyId: number;
  readonly forNonce: boolean;
}

/** The key and kind of a sealed value, or null when it is empty (erased) or of no known format. */
export function sealedKeyOf(sealed: Uint8Array): SealedKey | null {
  if (sealed.length === 0) return null;
  const format = sealed[0];
  if (format === FORMAT_LEGACY || format === FORMAT_LEGACY_NONCE) return { keyId: LEGACY_KEY_ID, forNonce: format === FORMAT_LEGACY_NONCE };
  if ((format === FORMAT_KEYED || format === FORMAT_KEYED_NONCE) && sealed.length > 1 + KEY_ID_BYTES) {
    return { keyId: Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength).readUInt32BE(1), forNonce: format === FORMAT_KEYED_NONCE };
  }
  return null;
}

/** The key id of a fingerprint: `k<id>$<hex>`, or plain hex for key 1. */
export function fingerprintKeyOf(fingerprint: string): number {
  const match = /^k([0-9]{1,10})\$/.exec(fingerprint);
  return match === null ? LEGACY_KEY_ID : Number(match[1]);
}

export class CardCipher {
  readonly #ring: KeyRing;
  /**
   * The last nonce key derived: a nonce's number and security code are
   * sealed (and opened) one right after the other under the same key. It
   * protects nothing the card-data key beside it could not rebuild.
   */
  #lastNonce: { keyId: number; nonce: Buffer; key: KeyObject } | null = null;

  /** A key ring, or one key as key 1 (a ring of one, as before keys rotated). */
  constructor(keys: KeyRing | Buffer) {
    if (Buffer.isBuffer(keys)) {
      if (keys.length !== CARD_KEY_BYTES) throw new Error(`the card-data key must be ${CARD_KEY_BYTES} bytes`);
      this.#ring = new KeyRing([new DataKey(LEGACY_KEY_ID, keys, 0)]);
    } else {
      this.#ring = keys;
    }
  }

  /** The id of the key new data is sealed under. */
  get sealingKeyId(): number {
    return this.#ring.sealing().id;
  }

  seal(value: Secret<string>, field: CardField, sourceId: string): Buffer {
    const key = this.#ring.sealing();
    return key.id === LEGACY_KEY_ID
      ? sealWith(key.key, [FORMAT_LEGACY], value, field, sourceId)
      : sealWith(key.key, keyedHeader(FORMAT_KEYED, key.id), value, field, sourceId);
  }

  /** Throws when the value was tampered with, sealed for another context, or under another key. */
  open(sealed: Buffer, field: CardField, sourceId: string): Secret<string> {
    const found = sealedKeyOf(sealed);
    if (found === null || found.forNonce) throw new Error('sealed card data has an unknown format');
    return openWith(this.#ring.key(found.keyId).key, headerBytesOf(sealed), sealed, field, sourceId);
  }

  /** Seals a nonce's card data under a key only that nonce's text can rebuild. */
  sealForNonce(value: Secret<string>, field: CardField, sourceId: string, nonce: string): Buffer {
    const key = this.#ring.sealing();
    const header = key.id === LEGACY_KEY_ID ? [FORMAT_LEGACY_NONCE] : keyedHeader(FORMAT_KEYED_NONCE, key.id);
    return sealWith(this.#nonceKey(key, nonce), header, value, field, sourceId);
  }

  /**
   * Opens what sealForNonce sealed, given the same nonce; throws for any
   * other. Nonces sealed before nonce keys existed (format 1, under the
   * card-data key) open too: they live 15 minutes, so only across an upgrade.
   */
  openForNonce(sealed: Buffer, field: CardField, sourceId: string, nonce: string): Secret<string> {
    const found = sealedKeyOf(sealed);
    if (found === null) throw new Error('sealed card data has an unknown format');
    const key = this.#ring.key(found.keyId);
    return openWith(found.forNonce ? this.#nonceKey(key, nonce) : key.key, headerBytesOf(sealed), sealed, field, sourceId);
  }

  /**
   * A keyed hash of a card number within one merchant: equal for the same
   * card under the same key, and useless without the card-data key (no table
   * of hashed card numbers can be built). Finds the same card saved twice
   * (docs/api-decisions.md section 15). Under key 1 it is the plain hex it
   * always was; under a later key it is `k<id>$<hex>`, so the re-seal job
   * knows which to compute again.
   */
  fingerprint(number: Secret<string>, merchantId: string): string {
    return fingerprintUnder(this.#ring.sealing(), number, merchantId);
  }

  toJSON(): string {
    return 'CardCipher';
  }

  #nonceKey(key: DataKey, nonce: string): KeyObject {
    const given = Buffer.from(nonce, 'utf8');
    const last = this.#lastNonce;
    // Compared in constant time: a nonce is a secret.
    if (last !== null && last.keyId === key.id && last.nonce.length === given.length && crypto.timingSafeEqual(last.nonce, given)) return last.key;
    const derived = deriveSubkeyFast(key.master, 'nonceCardData', given);
    this.#lastNonce = { keyId: key.id, nonce: given, key: derived };
    return derived;
  }
}

export function fingerprintUnder(key: DataKey, number: Secret<string>, merchantId: string): string {
  const hex = crypto.createHmac('sha256', key.fingerprintKey).update(`${merchantId}\n${number.reveal()}`).digest('hex');
  return key.id === LEGACY_KEY_ID ? hex : `k${key.id}$${hex}`;
}

function keyedHeader(format: number, keyId: number): number[] {
  return [format, (keyId >>> 24) & 0xff, (keyId >>> 16) & 0xff, (keyId >>> 8) & 0xff, keyId & 0xff];
}

function headerBytesOf(sealed: Buffer): number {
  return sealed[0] === FORMAT_KEYED || sealed[0] === FORMAT_KEYED_NONCE ? 1 + KEY_ID_BYTES : 1;
}

function sealWith(key: KeyObject, header: number[], value: Secret<string>, field: CardField, sourceId: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(context(field, sourceId));
  const body = Buffer.concat([cipher.update(value.reveal(), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from(header), iv, cipher.getAuthTag(), body]);
}

function openWith(key: KeyObject, headerBytes: number, sealed: Buffer, field: CardField, sourceId: string): Secret<string> {
  if (sealed.length < headerBytes + IV_BYTES + TAG_BYTES) throw new Error('sealed card data has an unknown format');
  const iv = sealed.subarray(headerBytes, headerBytes + IV_BYTES);
  const tag = sealed.subarray(headerBytes + IV_BYTES, headerBytes + IV_BYTES + TAG_BYTES);
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(context(field, sourceId));
  decipher.setAuthTag(tag);
  try {
    return new Secret(Buffer.concat([decipher.update(sealed.subarray(headerBytes + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8'));
  } catch {
    // The library's message says nothing useful; this one says what it means.
    throw new Error(`sealed ${field} failed authentication (wrong key, wrong source, or altered data)`);
  }
}

function context(field: CardField, sourceId: string): Buffer {
  return Buffer.from(`payrail:${field}:${sourceId}`, 'utf8');
}
