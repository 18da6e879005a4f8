// Card data at rest: AES-256-GCM (authenticated encryption) with a random
// 96-bit IV per value. Each value is bound to what it is and whose it is
// (the "context", e.g. `card_number:<source id>`) through the GCM additional
// data, so a ciphertext copied into another row or another source's record
// fails to open instead of decrypting to the wrong card.
//
// Layout of a sealed value: version (1 byte) | IV (12) | tag (16) | ciphertext.
//
// Version 1 is sealed under the card-data key itself: what the server must be
// able to open later on its own (a pending charge's card number, kept for
// recovery until the charge is final). Version 2 is a nonce's card data,
// sealed under a key derived from the card-data key AND the nonce's secret
// part, which is never stored (only its hash is): once the nonce is gone,
// nobody can open what its row left behind in old database pages, row
// versions or backups, not even with the card-data key
// (docs/api-decisions.md section 8).
import crypto, { type KeyObject } from 'node:crypto';
import { randomBytes } from '../domain/random.ts';
import { Secret } from '../domain/secret.ts';
import { deriveSubkeyFast, deriveSubkeyObject } from './subkeys.ts';

const FORMAT_VERSION = 1;
const NONCE_FORMAT_VERSION = 2;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
export const CARD_KEY_BYTES = 32;

/** The card fields we keep; each is a distinct context so one can never be opened as the other. */
export type CardField = 'card_number' | 'cvv';

export class CardCipher {
  /** The card-data key itself, which also derives the nonce keys. */
  readonly #master: Buffer;
  /** The same key as the crypto calls take it (src/crypto/subkeys.ts says why). */
  readonly #key: KeyObject;
  #fingerprintKeyObject: KeyObject | null = null;
  /**
   * The last nonce key derived: a nonce's number and security code are
   * sealed (and opened) one right after the other under the same key. It
   * protects nothing the card-data key beside it could not rebuild.
   */
  #lastNonce: { nonce: Buffer; key: KeyObject } | null = null;

  constructor(key: Buffer) {
    if (key.length !== CARD_KEY_BYTES) throw new Error(`the card-data key must be ${CARD_KEY_BYTES} bytes`);
    this.#master = Buffer.from(key);
    this.#key = crypto.createSecretKey(key);
  }

  seal(value: Secret<string>, field: CardField, sourceId: string): Buffer {
    return sealWith(this.#key, FORMAT_VERSION, value, field, sourceId);
  }

  /** Throws when the value was tampered with, sealed for another context, or under another key. */
  open(sealed: Buffer, field: CardField, sourceId: string): Secret<string> {
    return openWith(this.#key, FORMAT_VERSION, sealed, field, sourceId);
  }

  /** Seals a nonce's card data under a key only that nonce's text can rebuild. */
  sealForNonce(value: Secret<string>, field: CardField, sourceId: string, nonce: string): Buffer {
    return sealWith(this.#nonceKey(nonce), NONCE_FORMAT_VERSION, value, field, sourceId);
  }

  /**
   * Opens what sealForNonce sealed, given the same nonce; throws for any
   * other. Nonces sealed before nonce keys existed (format 1, under the
   * card-data key) open too: they live 15 minutes, so only across an upgrade.
   */
  openForNonce(sealed: Buffer, field: CardField, sourceId: string, nonce: string): Secret<string> {
    if (sealed[0] === FORMAT_VERSION) return openWith(this.#key, FORMAT_VERSION, sealed, field, sourceId);
    return openWith(this.#nonceKey(nonce), NONCE_FORMAT_VERSION, sealed, field, sourceId);
  }

  /**
   * A keyed hash of a card number within one merchant: equal for the same
   * card, and useless without the card-data key (no table of hashed card
   * numbers can be built). Finds the same card saved twice (docs/api-decisions.md section 15).
   */
  fingerprint(number: Secret<string>, merchantId: string): string {
    return crypto.createHmac('sha256', this.#fingerprintKey).update(`${merchantId}\n${number.reveal()}`).digest('hex');
  }

  get #fingerprintKey(): KeyObject {
    const key = this.#fingerprintKeyObject ?? deriveSubkeyObject(this.#master, 'cardFingerprint');
    this.#fingerprintKeyObject = key;
    return key;
  }

  #nonceKey(nonce: string): KeyObject {
    const given = Buffer.from(nonce, 'utf8');
    const last = this.#lastNonce;
    // Compared in constant time: a nonce is a secret.
    if (last !== null && last.nonce.length === given.length && crypto.timingSafeEqual(last.nonce, given)) return last.key;
    const key = deriveSubkeyFast(this.#master, 'nonceCardData', given);
    this.#lastNonce = { nonce: given, key };
    return key;
  }

  toJSON(): string {
    return 'CardCipher';
  }
}

function sealWith(key: KeyObject, version: number, value: Secret<string>, field: CardField, sourceId: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(context(field, sourceId));
  const body = Buffer.concat([cipher.update(value.reveal(), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([version]), iv, cipher.getAuthTag(), body]);
}

function openWith(key: KeyObject, version: number, sealed: Buffer, field: CardField, sourceId: string): Secret<string> {
  if (sealed.length < HEADER_BYTES || sealed[0] !== version) throw new Error('sealed card data has an unknown format');
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, HEADER_BYTES);
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(context(field, sourceId));
  decipher.setAuthTag(tag);
  try {
    return new Secret(Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8'));
  } catch {
    // The library's message says nothing useful; this one says what it means.
    throw new Error(`sealed ${field} failed authentication (wrong key, wrong source, or altered data)`);
  }
}

function context(field: CardField, sourceId: string): Buffer {
  return Buffer.from(`payrail:${field}:${sourceId}`, 'utf8');
}
