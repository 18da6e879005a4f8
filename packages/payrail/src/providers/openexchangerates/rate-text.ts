// A rate as Open Exchange Rates wrote it (a JSON number's source text,
// json-numbers.ts) to the exact decimal text Payrail quotes from. The text
// is converted digit by digit, never through a binary double, so the value
// is the one the provider published; exponent forms ("1.5E-7") become plain
// decimals. Non-positive and absurd values are refused.
import { RATE_MAX, RATE_MIN } from './settings.ts';

/** Digits of a rate kept at most: far above the 6 to 8 significant decimals the provider publishes, and bounded, as every input is. */
export const RATE_DIGITS_MAX = 30;
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The exact decimal text of a rate written as `source` (JSON number text), or the reason it cannot be used. */
export function rateText(source: string): { readonly text: string } | { readonly problem: string } {
  const shown = source.slice(0, 40);
  if (source.length > 64 || !JSON_NUMBER.test(source)) return { problem: `not a JSON number (${shown})` };
  if (source.startsWith('-')) return { problem: `not positive (${shown})` };
  const exponent = /[eE]([+-]?[0-9]+)$/.exec(source);
  if (exponent !== null && Math.abs(Number(exponent[1])) > 40) return { problem: `outside ${RATE_MIN} to ${RATE_MAX} (${shown})` };
  const text = plainDecimal(source);
  if (!/[1-9]/.test(text)) return { problem: `not positive (${shown})` };
  if (text.replace('.', '').replace(/^0+/, '').length > RATE_DIGITS_MAX) return { problem: `more than ${RATE_DIGITS_MAX} digits (${shown})` };
  // The bounds are coarse: a double compares them well enough; the text stays exact.
  const approximate = Number(text);
  if (approximate < RATE_MIN || approximate > RATE_MAX) return { problem: `outside ${RATE_MIN} to ${RATE_MAX} (${shown})` };
  return { text };
}

/** Non-negative JSON number text ("1.5e-7", "2E+21", "129.250") as plain decimal text ("0.00000015", "2000000000000000000000", "129.25"). */
export function plainDecimal(numberText: string): string {
  const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(numberText);
  if (match === null) throw new Error(`not a non-negative number's text: ${numberText.slice(0, 40)}`);
  const [, whole = '0', fraction = '', exponentText = '0'] = match;
  const digits = `${whole}${fraction}`;
  // The point sits after `whole.length + exponent` digits.
  const point = whole.length + Number(exponentText);
  let text: string;
  if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) text = `${digits}${'0'.repeat(point - digits.length)}`;
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  // Canonical: no leading zeros before the point, no trailing zeros after it.
  const [intPart = '0', fracPart = ''] = text.split('.');
  const cleanInt = intPart.replace(/^0+(?=\d)/, '');
  const cleanFrac = fracPart.replace(/0+$/, '');
  return cleanFrac === '' ? cleanInt : `${cleanInt}.${cleanFrac}`;
}
