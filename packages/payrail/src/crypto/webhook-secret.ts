// Webhook signing secrets at rest. Unlike API keys they cannot be stored as
// hashes (Payrail must sign with them), so each is sealed like card data:
// AES-256-GCM under a key derived from the card-data key for this purpose
// alone, bound to its endpoint id through the additional data, so a sealed
// secret copied to another endpoint's row fails to open.
//
// Layout: version (1 byte) | IV (12) | tag (16) | ciphertext.
import crypto, { type KeyObject } from 'node:crypto';
import type { Config } from '../config.ts';
import { Secret } from '../domain/secret.ts';
import { loadCardKey } from './card-key.ts';
import { deriveSubkeyObject } from './subkeys.ts';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export class WebhookSecretCipher {
  readonly #key: KeyObject;

  constructor(cardKey: Buffer) {
    this.#key = deriveSubkeyObject(cardKey, 'webhookSecret');
  }

  seal(secret: Secret<string>, endpointId: string): Buffer {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(context(endpointId));
    const body = Buffer.concat([cipher.update(secret.reveal(), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer, endpointId: string): Secret<string> {
    if (sealed.length < HEADER_BYTES || sealed[0] !== FORMAT_VERSION) throw new Error('sealed webhook secret has an unknown format');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(context(endpointId));
    decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, HEADER_BYTES));
    try {
      return new Secret(Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8'));
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

const ciphers = new Map<string, WebhookSecretCipher>();

/** One cipher per key source and process, like cardCipherFor. */
export function webhookSecretCipherFor(config: Pick<Config, 'cardKeyBase64' | 'environment' | 'dataDir'>): WebhookSecretCipher {
  const cacheKey = config.cardKeyBase64 !== null ? `env:${crypto.createHash('sha256').update(config.cardKeyBase64).digest('hex')}` : `dir:${config.dataDir}`;
  let cipher = ciphers.get(cacheKey);
  if (cipher === undefined) {
    cipher = new WebhookSecretCipher(loadCardKey(config));
    ciphers.set(cacheKey, cipher);
  }
  return cipher;
}
