// Credential format and checks. A key reads `<env>_<kind>_<id>_<secret>`:
// the environment prefix lets us name the right environment when a key is
// used on the wrong one; the id finds the row; only a hash of the secret is
// stored, compared in constant time.
import crypto from 'node:crypto';
import type { Environment } from '../config.ts';
import { randomBase62, randomDigits } from './ids.ts';

export type CredentialKind = 'transfer_key' | 'source_key' | 'tokenization_token';

const KIND_TAGS: Record<CredentialKind, string> = { transfer_key: 'tk', source_key: 'sk', tokenization_token: 'pt' };
const TAG_KINDS: Record<string, CredentialKind> = { tk: 'transfer_key', sk: 'source_key', pt: 'tokenization_token' };
export const ENV_PREFIXES: Record<Environment, string> = { sandbox: 'sbx', production: 'live' };

const ID_LENGTH = 16;
const SECRET_LENGTH = 32; // 32 base62 symbols: about 190 bits
export const PIN_LENGTH = 8;
const KEY_PATTERN = /^(sbx|live)_(tk|sk|pt)_([0-9A-Za-z]{16})_([0-9A-Za-z]{32})$/;
/** Anything longer is not a key of ours; refuse before any work. */
export const CREDENTIAL_TEXT_LENGTH_MAX = 128;

export interface IssuedKey {
  readonly id: string;
  readonly key: string;
  readonly secretHash: string;
}

export interface ParsedKey {
  readonly environment: Environment;
  readonly kind: CredentialKind;
  readonly id: string;
  readonly secret: string;
}

export function issueKey(environment: Environment, kind: CredentialKind): IssuedKey {
  const id = randomBase62(ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { id, key: `${ENV_PREFIXES[environment]}_${KIND_TAGS[kind]}_${id}_${secret}`, secretHash: hashSecret(secret) };
}

export function issuePin(credentialId: string): { pin: string; pinHash: string } {
  const pin = randomDigits(PIN_LENGTH);
  return { pin, pinHash: hashPin(credentialId, pin) };
}

export function parseKey(text: string): ParsedKey | null {
  if (text.length > CREDENTIAL_TEXT_LENGTH_MAX) return null;
  const match = KEY_PATTERN.exec(text);
  if (match === null) return null;
  return {
    environment: match[1] === 'live' ? 'production' : 'sandbox',
    kind: TAG_KINDS[match[2]!]!,
    id: match[3]!,
    secret: match[4]!,
  };
}

/**
 * Secrets are 190-bit random strings, so a fast hash is enough: no
 * dictionary applies. (Passwords of people use scrypt; see the panel.)
 */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

/**
 * A PIN is short, so its hash is bound to its key's id: a PIN alone is
 * useless, and guessing one needs the key's 190-bit secret first.
 */
export function hashPin(credentialId: string, pin: string): string {
  return crypto.createHash('sha256').update(`${credentialId}:${pin}`).digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
