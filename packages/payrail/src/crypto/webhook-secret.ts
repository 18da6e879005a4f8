// Webhook signing secrets at rest. Unlike API keys they cannot be stored as
// hashes (Payrail must sign with them), so each is sealed like card data:
// AES-256-GCM under a key derived from the card-data key for this purpose
// alone, bound to its endpoint id through the additional data, so a sealed
// secret copied to another endpoint's row fails to open.
//
// Layouts: 1 | IV (12) | tag (16) | ciphertext under key 1 of the card-data
// key ring; 2 | key id (4, big-endian) | IV | tag | ciphertext under a later
// key (src/crypto/key-ring.ts). The re-seal job moves them to the newest key.
import crypto from 'node:crypto';
import type { Config } from '../config.ts';
import { Secret } from '../domain/secret.ts';
import { keyRingFor } from './card-key.ts';
import { DataKey, KeyRing, LEGACY_KEY_ID } from './key-ring.ts';

const FORMAT_LEGACY = 1;
const FORMAT_KEYED = 2;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 4;

/** The key id of a sealed webhook secret, or null when it has no known format. */
export function webhookSecretKeyOf(sealed: Uint8Array): number | null {
  if (sealed.length === 0) return null;
  if (sealed[0] === FORMAT_LEGACY) return LEGACY_KEY_ID;
  if (sealed[0] === FORMAT_KEYED && sealed.length > 1 + KEY_ID_BYTES) return Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength).readUInt32BE(1);
  return null;
}

export class WebhookSecretCipher {
  readonly #ring: KeyRing;

  /** A key ring, or one card-data key as key 1. */
  constructor(keys: KeyRing | Buffer) {
    this.#ring = Buffer.isBuffer(keys) ? new KeyRing([new DataKey(LEGACY_KEY_ID, keys, 0)]) : keys;
  }

  seal(secret: Secret<string>, endpointId: string): Buffer {
    const key = this.#ring.sealing();
    const header = key.id === LEGACY_KEY_ID ? Buffer.from([FORMAT_LEGACY]) : Buffer.from([FORMAT_KEYED, 0, 0, 0, 0]);
    if (key.id !== LEGACY_KEY_ID) header.writeUInt32BE(key.id, 1);
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', key.webhookKey, iv);
    cipher.setAAD(context(endpointId));
    const body = Buffer.concat([cipher.update(secret.reveal(), 'utf8'), cipher.final()]);
    return Buffer.concat([header, iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer, endpointId: string): Secret<string> {
    const keyId = webhookSecretKeyOf(sealed);
    const headerBytes = sealed[0] === FORMAT_KEYED ? 1 + KEY_ID_BYTES : 1;
    if (keyId === null || sealed.length < headerBytes + IV_BYTES + TAG_BYTES) throw new Error('sealed webhook secret has an unknown format');
    const key = this.#ring.key(keyId);
    const decipher = crypto.createDecipheriv('aes-256-gcm', key.webhookKey, sealed.subarray(headerBytes, headerBytes + IV_BYTES));
    decipher.setAAD(context(endpointId));
    decipher.setAuthTag(sealed.subarray(headerBytes + IV_BYTES, headerBytes + IV_BYTES + TAG_BYTES));
    try {
      return new Secret(Buffer.concat([decipher.update(sealed.subarray(headerBytes + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8'));
    } catch {
      throw new Error('sealed webhook secret failed authentication (wrong key, wrong endpoint, or altered data)');
    }
  }

  toJSON(): string {
    return 'WebhookSecretCipher';
  }
}

function context(endpointId: string): Buffer {
  return Buffer.from(`payrail:webhook-secret:${endpointId}`, 'utf8');
}

const ciphers = new WeakMap<KeyRing, WebhookSecretCipher>();

/** One cipher per key ring and process, like cardCipherFor. */
export function webhookSecretCipherFor(
  config: Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'> & { readonly cardKeyFile?: string | null },
): WebhookSecretCipher {
  const ring = keyRingFor(config);
  let cipher = ciphers.get(ring);
  if (cipher === undefined) {
    cipher = new WebhookSecretCipher(ring);
    ciphers.set(ring, cipher);
  }
  return cipher;
}
