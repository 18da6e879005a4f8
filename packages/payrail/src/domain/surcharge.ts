// A merchant's surcharge (accept.blue's "mandatory ISO surcharge",
// docs/acceptblue-compatibility.md): per payment type, none, a percentage of
// the amount, or a fixed amount. A charge of that payment type costs the
// amount plus the surcharge. Pure: parsing the settings' text, the wire
// form, and the one rounding rule.
//
// Percentages keep decimals exactly (3.5 %, 2.999 %) as integer thousandths
// of a percent; fixed amounts are cents. Both are bounded: card-brand rules
// cap a US card surcharge at 3 to 4 %, so anything far above is a typo, not a
// setting.
import { formatCents } from './money.ts';

export const PAYMENT_TYPES = ['card', 'check'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

export type SurchargeSetting =
  | { readonly kind: 'none' }
  | { readonly kind: 'percent'; readonly thousandthsOfPercent: number }
  | { readonly kind: 'currency'; readonly amountCents: number };

export const NO_SURCHARGE: SurchargeSetting = { kind: 'none' };

/** The highest percentage a setting may have: 10 %, in thousandths of a percent. */
export const SURCHARGE_PERCENT_THOUSANDTHS_MAX = 10_000;
/** The highest fixed surcharge: 100.00 USD. */
export const SURCHARGE_AMOUNT_CENTS_MAX = 10_000;

/** A merchant's settings, one per payment type; a type without one is `none`. */
export type SurchargeSettings = Readonly<Record<PaymentType, SurchargeSetting>>;

export const NO_SURCHARGES: SurchargeSettings = { card: NO_SURCHARGE, check: NO_SURCHARGE };

/**
 * The surcharge in cents of a charge of `amountCents`. The one rounding rule:
 * a percentage is rounded half up to the cent (3.5 % of 10.10 = 35.35 cents,
 * 35 cents; 3.5 % of 10.30 = 36.05 cents, 36 cents; 1.5 % of 1.00 = 1.5
 * cents, 2 cents). Integer arithmetic only: amount and rate are bounded far
 * below 2^53 when multiplied.
 */
export function surchargeCentsOf(setting: SurchargeSetting, amountCents: number): number {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new Error(`surcharge of a bad amount: ${amountCents}`);
  switch (setting.kind) {
    case 'none':
      return 0;
    case 'currency':
      return setting.amountCents;
    case 'percent':
      // amount × rate / 100 %, with the rate in thousandths: divide by 100,000.
      return Math.floor((amountCents * setting.thousandthsOfPercent + 50_000) / 100_000);
  }
}

export type SettingParse = { readonly ok: true; readonly setting: SurchargeSetting } | { readonly ok: false; readonly reason: string };

const PERCENT_TEXT = /^(0|[1-9][0-9]?)(?:\.([0-9]{1,3}))?$/;
const DOLLAR_TEXT = /^(0|[1-9][0-9]{0,2})(?:\.([0-9]{1,2}))?$/;

/**
 * A setting from its two parts as an operator or a panel form gives them:
 * `none` (value ignored), `percent` with a plain decimal of up to 3 decimals
 * ("3.5"), or `currency` with dollars of up to 2 decimals ("1.00"). A zero
 * value is none: it charges nothing, and reads back the same.
 */
export function parseSurchargeSetting(type: string, value: string): SettingParse {
  if (type === 'none') return { ok: true, setting: NO_SURCHARGE };
  if (type === 'percent') {
    const match = PERCENT_TEXT.exec(value);
    if (match === null) return { ok: false, reason: 'a percentage is a plain decimal with at most 3 decimals, for example 3.5' };
    const thousandths = Number(match[1]) * 1000 + Number((match[2] ?? '').padEnd(3, '0'));
    if (thousandths > SURCHARGE_PERCENT_THOUSANDTHS_MAX) return { ok: false, reason: 'a percentage is at most 10' };
    return { ok: true, setting: thousandths === 0 ? NO_SURCHARGE : { kind: 'percent', thousandthsOfPercent: thousandths } };
  }
  if (type === 'currency') {
    const match = DOLLAR_TEXT.exec(value);
    if (match === null) return { ok: false, reason: 'an amount is dollars with at most 2 decimals, for example 1.00' };
    const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
    if (cents > SURCHARGE_AMOUNT_CENTS_MAX) return { ok: false, reason: 'an amount is at most 100.00' };
    return { ok: true, setting: cents === 0 ? NO_SURCHARGE : { kind: 'currency', amountCents: cents } };
  }
  return { ok: false, reason: 'the type is percent, currency or none' };
}

/** A setting as `payrail merchant surcharge --card` takes it: `percent:3.5`, `currency:1.00` or `none`. */
export function parseSurchargeOption(text: string): SettingParse {
  if (text === 'none') return parseSurchargeSetting('none', '');
  const colon = text.indexOf(':');
  if (colon < 0) return { ok: false, reason: 'write percent:VALUE, currency:DOLLARS or none' };
  return parseSurchargeSetting(text.slice(0, colon), text.slice(colon + 1));
}

/**
 * A setting as accept.blue's surcharge endpoints show it: `value` a JSON
 * number, a percentage (3.5) or dollars (1.5 for 1.50). None reads as
 * `{type: "percent", value: 0}`: accept.blue always shows both types, and
 * the plugins read a zero surcharge as none.
 */
export function surchargeWire(setting: SurchargeSetting): { type: 'percent' | 'currency'; value: number } {
  switch (setting.kind) {
    case 'none':
      return { type: 'percent', value: 0 };
    case 'percent':
      return { type: 'percent', value: setting.thousandthsOfPercent / 1000 };
    case 'currency':
      return { type: 'currency', value: setting.amountCents / 100 };
  }
}

/** A setting as people read it: "none", "3.5 %", "1.00 USD". */
export function surchargeText(setting: SurchargeSetting): string {
  switch (setting.kind) {
    case 'none':
      return 'none';
    case 'percent':
      return `${setting.thousandthsOfPercent / 1000} %`;
    case 'currency':
      return `${formatCents(setting.amountCents)} USD`;
  }
}
