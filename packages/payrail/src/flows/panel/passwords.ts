// Password hashing for panel users: scrypt from node:crypto with a random
// salt. The parameters are stored with each hash so they can be raised later
// without invalidating existing passwords. scrypt is memory-hard on purpose,
// so at most HASHES_CONCURRENT_MAX run at once and the queue is bounded.
import crypto from 'node:crypto';

/** N=2^15, r=8: 32 MiB and a few hundred milliseconds per hash on a small server. */
const SCRYPT_N = 1 << 15;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const SCRYPT_MAXMEM_BYTES = 256 * 1024 * 1024;
const HASHES_CONCURRENT_MAX = 2;
const HASHES_QUEUED_MAX = 64;

export { PASSWORD_LENGTH_MAX, PASSWORD_LENGTH_MIN } from '../../domain/password-policy.ts';

export class PasswordBusyError extends Error {
  override readonly name = 'PasswordBusyError';
}

let running = 0;
const waiting: Array<() => void> = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASHES_CONCURRENT_MAX) {
    if (waiting.length >= HASHES_QUEUED_MAX) throw new PasswordBusyError('too many sign-ins at once; try again');
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next waiter, or give it back.
    const next = waiting.shift();
    if (next !== undefined) next();
    else running -= 1;
  }
}

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto.scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N: n, r, p, maxmem: SCRYPT_MAXMEM_BYTES }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await withSlot(() => scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P));
  return `scrypt$${SCRYPT_N}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A hash of a password nobody knows, checked when the e-mail is unknown so timing does not tell. */
let decoyHash: Promise<string> | null = null;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(crypto.randomBytes(24).toString('base64'));
  return decoyHash;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') throw new Error('unknown password hash format');
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await withSlot(() => scrypt(password, salt, n, r, p));
  return key.length === expected.length && crypto.timingSafeEqual(key, expected);
}

/** A readable random password for `payrail user create` without --password. */
export function generatePassword(): string {
  return crypto.randomBytes(18).toString('base64url');
}
