// Credential format and checks. A key reads `<env>_<kind>_<id>_<secret>`:
// the environment prefix lets us name the right environment when a key is
// used on the wrong one; the id finds the row; only a hash of the whole key
// text is stored (prefix included, so a key with its prefix swapped is
// another key), compared in constant time. A PIN is kept as an HMAC under a
// server-side key, so a copy of the database alone does not give PINs.
//
// Stored hashes say their scheme. Rows written before docs/api-decisions.md
// section 13 hold the older forms (a bare SHA-256 of the secret only, and a
// bare SHA-256 of `id:PIN`); they still verify, and authentication replaces
// them with the current forms on the next success.
import crypto, { type KeyObject } from 'node:crypto';
import { randomBase62, randomDigits } from './ids.ts';

/** One deployment serves one environment; every credential names its own. */
export type Environment = 'sandbox' | 'production';

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
  readonly environment: Environment;
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
  const key = `${ENV_PREFIXES[environment]}_${KIND_TAGS[kind]}_${id}_${secret}`;
  return { environment, id, key, secretHash: hashKey(key) };
}

export function issuePin(pinKey: PinKeys, credentialId: string): { pin: string; pinHash: string } {
  const pin = randomDigits(PIN_LENGTH);
  return { pin, pinHash: hashPin(pinKey, credentialId, pin) };
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

/** Scheme tags of stored hashes; an untagged hash is of the older form. */
const KEY_HASH_TAG = 'sha256key$';
const PIN_HASH_TAG = 'hmac256$';

/**
 * Secrets are 190-bit random strings, so a fast hash is enough: no
 * dictionary applies. (Passwords of people use scrypt; see the panel.) The
 * whole key text is hashed, so the hash also binds environment and kind.
 */
export function hashKey(keyText: string): string {
  // The one-shot crypto.hash: a key is hashed on every request, and it skips building a Hash object.
  return `${KEY_HASH_TAG}${crypto.hash('sha256', keyText, 'hex')}`;
}

/**
 * The HMAC keys of PIN hashes, one per card-data key (src/crypto/key-ring.ts):
 * new hashes are made under the newest, older ones checked under theirs.
 */
export interface PinKeys {
  newestPinKey(): { readonly id: number; readonly key: KeyObject };
  /** undefined when the key is retired (the PIN must be issued again); throws when it is not loaded yet (retry). */
  pinKeyOf(id: number): KeyObject | undefined;
}

/** Key 1's hashes keep the tag they always had; later keys' say their id: `hmac256k<id>$`. */
const PIN_HASH_KEYED = /^hmac256k([0-9]{1,10})\$/;

/**
 * A PIN has only 10^8 values, so a plain hash of it would be reversed by
 * trying them all. An HMAC under a key the database does not hold (derived
 * from the card-data key, src/crypto/card-key.ts) cannot be tried without
 * that key; the credential id binds it to its key.
 */
export function hashPin(pinKeys: PinKeys, credentialId: string, pin: string): string {
  const { id, key } = pinKeys.newestPinKey();
  return `${id === 1 ? PIN_HASH_TAG : `hmac256k${id}$`}${pinHmac(key, credentialId, pin)}`;
}

function pinHmac(key: KeyObject, credentialId: string, pin: string): string {
  return crypto.createHmac('sha256', key).update(`${credentialId}:${pin}`).digest('hex');
}

/** The card-data key id a stored PIN hash was made under; null for the unkeyed older form. */
export function pinHashKeyOf(stored: string): number | null {
  if (stored.startsWith(PIN_HASH_TAG)) return 1;
  const keyed = PIN_HASH_KEYED.exec(stored);
  return keyed === null ? null : Number(keyed[1]);
}

/** How a presented secret compared with a stored hash: `legacy` means right, but stored in the older form. */
export type HashMatch = 'current' | 'legacy' | 'no';

export function keyHashMatches(stored: string, parsed: ParsedKey, keyText: string): HashMatch {
  if (stored.startsWith(KEY_HASH_TAG)) return hashesEqual(stored, hashKey(keyText)) ? 'current' : 'no';
  // Older rows: SHA-256 of the secret alone (the row's environment is checked by the caller).
  return hashesEqual(stored, crypto.createHash('sha256').update(parsed.secret).digest('hex')) ? 'legacy' : 'no';
}

/** `legacy` also when the hash was made under a card-data key older than the newest: the caller makes it again. */
export function pinHashMatches(stored: string | null, pinKeys: PinKeys, credentialId: string, pin: string): HashMatch {
  if (stored === null) return 'no';
  const keyId = pinHashKeyOf(stored);
  if (keyId !== null) {
    const key = pinKeys.pinKeyOf(keyId);
    if (key === undefined) return 'no';
    const hex = stored.slice(stored.indexOf('$') + 1);
    if (!hashesEqual(hex, pinHmac(key, credentialId, pin))) return 'no';
    return keyId === pinKeys.newestPinKey().id ? 'current' : 'legacy';
  }
  return hashesEqual(stored, crypto.createHash('sha256').update(`${credentialId}:${pin}`).digest('hex')) ? 'legacy' : 'no';
}

/** Constant-time comparison of two stored-hash texts. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
