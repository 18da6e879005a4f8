// Saved-card tokens (accept.blue's `card_ref`, docs/acceptblue-compatibility.md):
// 16 characters, two letters then fourteen letters or digits, all upper case,
// as accept.blue issues them. Drawn from the CSPRNG (random.ts): about 82
// bits, so a token cannot be guessed; each is scoped to its merchant besides.
import { randomBytes } from './random.ts';

export const CARD_REF_PATTERN = /^[A-Z]{2}[A-Z0-9]{14}$/;
/** A token as a payment source: `tkn-` and the card_ref. */
export const TOKEN_SOURCE_PREFIX = 'tkn-';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LETTERS_AND_DIGITS = `${LETTERS}0123456789`;

/** `length` symbols of `alphabet`, each equally likely (bytes past the last whole multiple are dropped). */
function randomOf(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

export function newCardRef(): string {
  return randomOf(LETTERS, 2) + randomOf(LETTERS_AND_DIGITS, 14);
}
