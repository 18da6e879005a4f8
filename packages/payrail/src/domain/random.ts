// Random bytes for identifiers, secrets and IVs, from crypto.randomFillSync
// (the operating system's CSPRNG), drawn from a pool refilled 4 KiB at a
// time. A call to crypto.randomBytes costs about 2 us of fixed overhead
// whatever its size, and a tokenize + charge pair asks for small amounts
// four times (the nonce, three IVs); from the pool each costs a copy. Every
// pooled byte is handed out once, and the caller gets its own copy, so no
// two values share bytes and none keeps a view into the pool.
import crypto from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
/** The next unused byte of the pool; POOL_BYTES means empty. */
let next = POOL_BYTES;

/** `length` fresh random bytes in a buffer of their own. */
export function randomBytes(length: number): Buffer {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`random byte count must be a non-negative integer, got ${length}`);
  // Large requests bypass the pool rather than drain it.
  if (length > POOL_BYTES / 8) return crypto.randomBytes(length);
  if (next + length > POOL_BYTES) {
    crypto.randomFillSync(pool);
    next = 0;
  }
  const out = Buffer.allocUnsafe(length);
  pool.copy(out, 0, next, next + length);
  // The handed-out bytes are erased from the pool, so no later read of it can see them.
  pool.fill(0, next, next + length);
  next += length;
  return out;
}
