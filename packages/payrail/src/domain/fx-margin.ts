// The quoted FX rate of a corridor with a margin (behaviour.md section 18):
// quoted = provider rate x (1 - fx_margin_percent / 100), in exact decimal
// arithmetic on integers (BigInt), never binary floating point.
//
// Rounding: down (toward zero) to RATE_DECIMALS_MAX decimals, the most a
// rate may carry (domain/money.ts RATE_TEXT_PATTERN). The rate is receiver
// units per US dollar, so rounding down pays the receiver at most 10^-12
// of a unit per dollar less than the exact product, never more: the quote
// keeps at least the whole margin the corridor asks for, and the merchant
// never carries a rounding loss it did not set. Rounding to nearest could
// quote a hair above the margin's rate; the difference is far below any
// currency's minor unit, but "at least the margin" is a rule an operator
// can check by hand.
import { isRateText } from './money.ts';

/** Decimals a quoted rate keeps at most (money.ts RATE_TEXT_PATTERN). */
export const RATE_DECIMALS_MAX = 12;
/** Decimals a margin carries at most (domain/corridors.ts MARGIN_PATTERN). */
const MARGIN_DECIMALS = 4;

/** A provider's rate as exact decimal text: digits, at most one point, no sign or exponent; any number of decimals (they are rounded here). */
const PROVIDER_RATE_PATTERN = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,40})?$/;
/** A margin: "0" up to below "100", at most four decimals. */
const MARGIN_PATTERN = /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/;

/** An exact decimal: `units` / 10^`scale`. */
interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

function parseDecimal(text: string): Decimal {
  const [whole, fraction = ''] = text.split('.');
  return { units: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

/**
 * The quoted rate for `providerRate` (exact decimal text, e.g. "129.25")
 * less `marginPercent` ("0" to below "100", at most 4 decimals), rounded
 * down to 12 decimals, without trailing zeros ("127.31125"). Throws when
 * either input is not such text, or when the result is not a usable rate
 * (zero at 12 decimals, or above 12 integer digits).
 */
export function quotedRate(providerRate: string, marginPercent: string): string {
  if (!PROVIDER_RATE_PATTERN.test(providerRate))
    throw new Error(`a provider rate must be plain decimal text, got ${JSON.stringify(providerRate.slice(0, 60))}`);
  if (!MARGIN_PATTERN.test(marginPercent))
    throw new Error(`an FX margin must be "0" to below "100" with at most 4 decimals, got ${JSON.stringify(marginPercent.slice(0, 20))}`);
  const rate = parseDecimal(providerRate);
  const margin = parseDecimal(marginPercent);
  // (1 - m/100) as an integer over 10^(2 + MARGIN_DECIMALS): 100 % is 10^6.
  const whole = 10n ** BigInt(2 + MARGIN_DECIMALS);
  const kept = whole - margin.units * 10n ** BigInt(MARGIN_DECIMALS - margin.scale);
  // rate x kept / whole, scaled to RATE_DECIMALS_MAX decimals; BigInt division truncates, and every term is non-negative, so this rounds down.
  const numerator = rate.units * kept * 10n ** BigInt(RATE_DECIMALS_MAX);
  const denominator = 10n ** BigInt(rate.scale) * whole;
  const scaled = numerator / denominator;
  const text = formatScaled(scaled, RATE_DECIMALS_MAX);
  // isRateText: not zero, at most 12 integer digits.
  if (!isRateText(text)) {
    throw new Error(`the rate ${providerRate} less a ${marginPercent} % margin is not a usable rate (${text})`);
  }
  return text;
}

/** `units` / 10^`scale` as decimal text without trailing zeros ("127.31125", "3"). */
function formatScaled(units: bigint, scale: number): string {
  const digits = units.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
