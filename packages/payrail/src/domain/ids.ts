// Random identifiers and secrets. The CSPRNG (random.ts) is the only source;
// base62 keeps them copy-paste safe (no +, /, = in URLs or headers).
import { randomBytes } from './random.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  // 248 = 4 * 62: bytes at or above it are dropped so every symbol is equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function randomDigits(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 250 && out.length < length) out += String(byte % 10);
    }
  }
  return out;
}

export const newMerchantId = (): string => `mer_${randomBase62(16)}`;
export const newSourceId = (): string => `src_${randomBase62(16)}`;
