// Whether a configured secret key looks like random bytes. Production refuses
// a card-data key that does not (an all-zero key, a repeated pattern, or the
// base64 of a typed passphrase), because every card number, every nonce's
// card data and every PIN hash depends on it (docs/api-decisions.md section 1).
// Random 32 bytes pass these checks except with negligible probability
// (fewer than 16 distinct values: about 1e-20; all printable ASCII: 1e-14).

/** Fewest distinct byte values a random key of 32 bytes may show. */
const DISTINCT_BYTES_MIN = 16;
/** Longest run of equal bytes (0x00 0x00 0x00 ...) a random key may hold. */
const RUN_LENGTH_MAX = 4;

/** The reason a key looks weak, or null when it looks random. */
export function weakKeyReason(key: Uint8Array): string | null {
  if (new Set(key).size < DISTINCT_BYTES_MIN) return 'it repeats too few byte values (all zeros, or a pattern)';
  let run = 1;
  for (let i = 1; i < key.length; i++) {
    run = key[i] === key[i - 1] ? run + 1 : 1;
    if (run > RUN_LENGTH_MAX) return 'it holds a long run of one byte value';
  }
  let ascending = 0;
  for (let i = 1; i < key.length; i++) if (key[i] === ((key[i - 1]! + 1) & 0xff)) ascending++;
  if (ascending >= key.length / 2) return 'it counts upwards (0, 1, 2, ...)';
  if (key.every((byte) => byte >= 0x20 && byte <= 0x7e)) return 'it is printable text (a passphrase), not random bytes';
  return null;
}
