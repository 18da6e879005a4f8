// Authorize.net's amounts to integer cents, exactly. Answers carry amounts as
// JSON numbers (settleAmount: 10.5) or decimal strings ("10.50"); either is
// read as decimal text, never through floating point arithmetic: a JSON
// number's shortest round-trip text is what the processor wrote.
import { parseDollarStringOrZero } from '../../domain/money.ts';

/** The cents of a wire amount; throws (an answer Payrail cannot read) when it is not a plain amount with at most two decimals. */
export function centsOfWire(value: string | number | undefined, field: string): number {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : (value ?? '');
  const parsed = parseDollarStringOrZero(text.trim());
  if (!parsed.ok) throw new Error(`authorize-net: ${field} is not an amount (${JSON.stringify(text).slice(0, 40)})`);
  return parsed.cents;
}
