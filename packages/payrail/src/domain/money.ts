// Exact money handling. Amounts live as integer minor units (cents for USD)
// everywhere inside Payrail; decimal text only exists at the wire boundary.

/** Largest amount we ever accept, in cents: far below 2^53 so sums stay exact. */
export const AMOUNT_CENTS_MAX = 100_000_000_000; // 1 billion dollars

const DECIMAL_DOLLARS = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,2}))?$/;

export type AmountParse = { ok: true; cents: number } | { ok: false; reason: string };

/**
 * Parses a decimal string of dollars with at most two decimals ("5", "5.0",
 * "5.00"). Exponents, signs, spaces, NaN and more decimals are refused.
 */
export function parseDollarString(text: string): AmountParse {
  const match = DECIMAL_DOLLARS.exec(text);
  if (match === null) {
    return { ok: false, reason: 'must be a positive decimal number of dollars with at most 2 decimals' };
  }
  const whole = Number(match[1]);
  const fraction = (match[2] ?? '').padEnd(2, '0');
  const cents = whole * 100 + Number(fraction);
  if (cents <= 0) return { ok: false, reason: 'must be greater than zero' };
  if (cents > AMOUNT_CENTS_MAX) return { ok: false, reason: 'is too large' };
  return { ok: true, cents };
}

/** Like parseDollarString, but zero ("0", "0.00") is allowed: an overdraft of none. */
export function parseDollarStringOrZero(text: string): AmountParse {
  return /^0(\.0{1,2})?$/.test(text) ? { ok: true, cents: 0 } : parseDollarString(text);
}

/**
 * Parses a JSON number of dollars. The number's shortest round-trip text is
 * what the client wrote (JSON.parse keeps it), so reading that text back is
 * exact and avoids binary floating point arithmetic.
 */
export function parseDollarNumber(value: number): AmountParse {
  if (!Number.isFinite(value)) return { ok: false, reason: 'must be a finite number' };
  if (value <= 0) return { ok: false, reason: 'must be greater than zero' };
  const text = String(value);
  if (text.includes('e') || text.includes('E')) {
    return { ok: false, reason: 'must be a plain decimal number of dollars with at most 2 decimals' };
  }
  return parseDollarString(text);
}

/** Formats cents as a dollar string with exactly two decimals: 1234 -> "12.34". */
export function formatCents(cents: number): string {
  assertInteger(cents, 'cents');
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const fraction = String(abs % 100).padStart(2, '0');
  return `${sign}${whole}.${fraction}`;
}

/** Cents as a JSON number of dollars (for the payin API, which types amounts as numbers). */
export function centsToDollarNumber(cents: number): number {
  return Number(formatCents(cents));
}

/**
 * Converts a USD amount to the receiver currency's minor units with a decimal
 * rate given as text ("129.25"), rounding half up. Pure integer arithmetic on
 * BigInt, so no rounding error can creep in whatever the rate's precision.
 */
export function convertCents(amountCents: number, rateText: string, targetMinorUnits: number): number {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(rateText);
  if (match === null) throw new Error(`invalid fx rate text: ${rateText}`);
  const rateFraction = match[2] ?? '';
  const rateScaled = BigInt((match[1] ?? '0') + rateFraction); // rate * 10^rateFraction.length
  // amount(USD) = amountCents / 100; result minor = amount * rate * 10^target
  const numerator = BigInt(amountCents) * rateScaled * 10n ** BigInt(targetMinorUnits);
  const denominator = 100n * 10n ** BigInt(rateFraction.length);
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  const rounded = remainder * 2n >= denominator ? quotient + 1n : quotient;
  return Number(rounded);
}

/** Formats minor units of a currency with the given exponent: (12925, 2) -> "129.25", (5, 0) -> "5". */
export function formatMinor(minor: number, minorUnits: number): string {
  assertInteger(minor, 'minor');
  if (minorUnits === 0) return String(minor);
  const base = 10 ** minorUnits;
  const whole = Math.floor(minor / base);
  const fraction = String(minor % base).padStart(minorUnits, '0');
  return `${whole}.${fraction}`;
}

function assertInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be a safe integer, got ${value}`);
}

/** An exchange rate as exact decimal text: positive, at most 12 decimals ("129.25"). */
export const RATE_TEXT_PATTERN = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,12})?$/;

export function isRateText(text: string): boolean {
  return RATE_TEXT_PATTERN.test(text) && /[1-9]/.test(text);
}
