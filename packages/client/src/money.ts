// Exact money at the SDK boundary. Amounts are integer cents inside the SDK;
// callers give either integer cents or a decimal string of dollars, and the
// wire gets a decimal string (transfers) or a JSON number written from that
// same decimal text (charges). No arithmetic ever happens on a float.
import { inputError } from './errors.ts';

/** The server's own ceiling: 1 billion dollars, far below 2^53. */
export const AMOUNT_CENTS_MAX = 100_000_000_000;

const DECIMAL_DOLLARS = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,2}))?$/;

/** An amount as the caller may give it: exactly one of the two fields. */
export type AmountInput = { amount: string; amount_cents?: never } | { amount_cents: number; amount?: never };

/** "12.5" -> 1250. Returns null for anything but a plain decimal with at most 2 decimals. */
export function parseDollars(text: string): number | null {
  const match = DECIMAL_DOLLARS.exec(text);
  if (match === null) return null;
  const fraction = (match[2] ?? '').padEnd(2, '0');
  return Number(match[1]) * 100 + Number(fraction);
}

/** 1250 -> "12.50". */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a safe integer, got ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Reads the caller's amount into cents, refusing floats, zero, negatives,
 * more than two decimals and both or neither of the two fields.
 */
export function amountCentsOf(input: { amount?: unknown; amount_cents?: unknown }): number {
  const hasDecimal = input.amount !== undefined;
  const hasCents = input.amount_cents !== undefined;
  if (hasDecimal === hasCents) {
    throw inputError('invalid_amount', 'give exactly one of amount (a decimal string of dollars, e.g. "12.50") or amount_cents (an integer)');
  }
  let cents: number | null;
  if (hasCents) {
    const value = input.amount_cents;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw inputError('invalid_amount', `amount_cents must be an integer number of cents, got ${JSON.stringify(value)}`);
    }
    cents = value;
  } else {
    if (typeof input.amount !== 'string') {
      throw inputError(
        'invalid_amount',
        `amount must be a decimal string of dollars such as "12.50" (or give amount_cents); got ${typeof input.amount}: floats are never used for money`,
      );
    }
    cents = parseDollars(input.amount);
    if (cents === null) throw inputError('invalid_amount', `amount must be a positive decimal of dollars with at most 2 decimals, got "${input.amount}"`);
  }
  if (cents <= 0) throw inputError('invalid_amount', 'amount must be greater than zero');
  if (cents > AMOUNT_CENTS_MAX) throw inputError('invalid_amount', 'amount is too large');
  return cents;
}

/**
 * A dollar amount the server sent as a JSON number or string, in cents. The
 * number's shortest text is what the server wrote, so reading it back as
 * decimal text is exact.
 */
export function centsOfWireDollars(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : null;
  if (text === null) return null;
  const match = /^(-?)(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,2}))?$/.exec(text);
  if (match === null) return null;
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  return match[1] === '-' ? -cents : cents;
}
