// Card data at rest: AES-256-GCM (authenticated encryption) with a random
// 96-bit IV per value. Each value is bound to what it is and whose it is
// (the "context", e.g. `card_number:<source id>`) through the GCM additional
// data, so a ciphertext copied into another row or another source's record
// fails to open instead of decrypting to the wrong card.
//
// Layout of a sealed value: version (1 byte) | IV (12) | tag (16) | ciphertext.
import crypto from 'node:crypto';
import { Secret } from '../domain/secret.ts';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
export const CARD_KEY_BYTES = 32;

/** The card fields we keep; each is a distinct context so one can never be opened as the other. */
export type CardField = 'card_number' | 'cvv';

export class CardCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== CARD_KEY_BYTES) throw new Error(`the card-data key must be ${CARD_KEY_BYTES} bytes`);
    this.#key = Buffer.from(key);
  }

  seal(value: Secret<string>, field: CardField, sourceId: string): Buffer {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(context(field, sourceId));
    const body = Buffer.concat([cipher.update(value.reveal(), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the value was tampered with, sealed for another context, or under another key. */
  open(sealed: Buffer, field: CardField, sourceId: string): Secret<string> {
    if (sealed.length < HEADER_BYTES || sealed[0] !== FORMAT_VERSION) throw new Error('sealed card data has an unknown format');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, HEADER_BYTES);
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(context(field, sourceId));
    decipher.setAuthTag(tag);
    try {
      return new Secret(Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8'));
    } catch {
      // The library's message says nothing useful; this one says what it means.
      throw new Error(`sealed ${field} failed authentication (wrong key, wrong source, or altered data)`);
    }
  }

  toJSON(): string {
    return 'CardCipher';
  }
}

function context(field: CardField, sourceId: string): Buffer {
  return Buffer.from(`payrail:${field}:${sourceId}`, 'utf8');
}
