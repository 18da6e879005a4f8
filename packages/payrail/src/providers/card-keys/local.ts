// The local key provider: the KEK is the configured card-data key
// (PAYRAIL_CARD_KEY, or the sandbox's key file), and a data key is wrapped
// with AES-256-GCM under a key derived from it for this purpose alone, bound
// to the data key's id through the additional data (a wrapped key copied to
// another id's row fails to unwrap).
//
// Wrapped text: `local:v1:` + base64(IV (12) | tag (16) | ciphertext (32)).
import crypto, { type KeyObject } from 'node:crypto';
import { DATA_KEY_BYTES, type KeyProvider, type WrapContext } from './key-provider.ts';

const PREFIX = 'local:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const WRAP_INFO = 'payrail:data-key-wrap:v1';

export function localKeyProvider(kek: Buffer): KeyProvider {
  if (kek.length !== DATA_KEY_BYTES) throw new Error(`the local key-encryption key must be ${DATA_KEY_BYTES} bytes`);
  const wrapKey: KeyObject = crypto.createSecretKey(Buffer.from(crypto.hkdfSync('sha256', kek, Buffer.alloc(0), WRAP_INFO, DATA_KEY_BYTES)));
  const provider: KeyProvider = {
    name: 'local',
    async wrap(dataKey: Buffer, context: WrapContext): Promise<string> {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', wrapKey, iv);
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    async unwrap(wrapped: string, context: WrapContext): Promise<Buffer> {
      if (!wrapped.startsWith(PREFIX)) throw new Error(`data key ${context.keyId} was not wrapped by the local key provider`);
      const raw = Buffer.from(wrapped.slice(PREFIX.length), 'base64');
      if (raw.length !== IV_BYTES + TAG_BYTES + DATA_KEY_BYTES) throw new Error(`wrapped data key ${context.keyId} has the wrong length`);
      const decipher = crypto.createDecipheriv('aes-256-gcm', wrapKey, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(context));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        throw new Error(`data key ${context.keyId} does not unwrap under the configured card-data key (another key, or altered)`);
      }
    },
    async rewrap(wrapped: string, context: WrapContext): Promise<string> {
      // One local KEK version: rewrapping only renews the IV.
      return provider.wrap(await provider.unwrap(wrapped, context), context);
    },
  };
  return provider;
}

function aad(context: WrapContext): Buffer {
  return Buffer.from(`payrail:data-key:${context.keyId}`, 'utf8');
}
