// Card rules that need no I/O: the Luhn check, the brand from the BIN with
// its allowed lengths, the security-code length and the expiry date against
// an injected "now". Card numbers reach this module as plain strings only for
// the duration of a check; callers keep them inside a Secret otherwise.
//
// card_type strings on the wire (tokenization and charge responses):
//   "Visa", "MasterCard", "American Express", "Discover", "JCB",
//   "Diners Club". A number whose leading digits match no brand is refused
//   (`invalid_card`): no issuer makes such cards, so accepting one would only
//   help someone test made-up numbers. `Unknown` names it in messages.
//
// What is kept of a number besides its sealed form: the last 4 digits, and
// the first 6 (`bin`) only for numbers of 16 digits or more. Of a 15-digit
// American Express or a 13-digit Visa, 6 + 4 digits would leave so few
// unknown that the rest could be guessed with the Luhn check; those keep
// `bin` empty (docs/api-decisions.md section 8).

export type CardType = 'Visa' | 'MasterCard' | 'American Express' | 'Discover' | 'JCB' | 'Diners Club' | 'Unknown';

interface BrandRule {
  readonly type: CardType;
  /** Whether a number's leading digits belong to the brand. */
  readonly matches: (digits: string) => boolean;
  readonly lengths: readonly number[];
  readonly cvvLength: number;
}

const prefixBetween = (digits: string, width: number, low: number, high: number): boolean => {
  const prefix = Number(digits.slice(0, width));
  return prefix >= low && prefix <= high;
};

// Order matters only where ranges could overlap; these do not.
const BRANDS: readonly BrandRule[] = [
  { type: 'Visa', matches: (d) => d.startsWith('4'), lengths: [13, 16, 19], cvvLength: 3 },
  {
    type: 'MasterCard',
    matches: (d) => prefixBetween(d, 2, 51, 55) || prefixBetween(d, 4, 2221, 2720),
    lengths: [16],
    cvvLength: 3,
  },
  { type: 'American Express', matches: (d) => d.startsWith('34') || d.startsWith('37'), lengths: [15], cvvLength: 4 },
  {
    type: 'Discover',
    matches: (d) => d.startsWith('6011') || d.startsWith('65') || prefixBetween(d, 3, 644, 649),
    lengths: [16, 17, 18, 19],
    cvvLength: 3,
  },
  { type: 'JCB', matches: (d) => prefixBetween(d, 4, 3528, 3589), lengths: [16, 17, 18, 19], cvvLength: 3 },
  {
    type: 'Diners Club',
    matches: (d) => prefixBetween(d, 3, 300, 305) || d.startsWith('36') || d.startsWith('38') || d.startsWith('39'),
    lengths: [14, 15, 16, 17, 18, 19],
    cvvLength: 3,
  },
];

/** ISO/IEC 7812 bounds on any card number, checked before the brand's own lengths. */
export const CARD_NUMBER_LENGTH_MIN = 12;
export const CARD_NUMBER_LENGTH_MAX = 19;
/** A number that matches no brand: named in messages, never accepted. */
const UNKNOWN_BRAND: BrandRule = {
  type: 'Unknown',
  matches: () => true,
  lengths: [],
  cvvLength: 3,
};

/** A card is accepted through the end of its expiry month, and at most this many years ahead. */
export const EXPIRY_YEARS_AHEAD_MAX = 20;
/** Leading digits stored and shown as `bin`... */
export const BIN_LENGTH = 6;
/** ...for numbers at least this long; shorter ones show only their last 4 digits. */
export const BIN_SHOWN_FROM_LENGTH = 16;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let value = digits.charCodeAt(i) - 48;
    if (value < 0 || value > 9) return false;
    if (double) {
      value *= 2;
      if (value > 9) value -= 9;
    }
    sum += value;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

function brandOf(digits: string): BrandRule {
  return BRANDS.find((rule) => rule.matches(digits)) ?? UNKNOWN_BRAND;
}

export function cardTypeOf(digits: string): CardType {
  return brandOf(digits).type;
}

export interface CardFacts {
  readonly cardType: CardType;
  readonly last4: string;
  readonly bin: string;
  readonly cvvLength: number;
}

export type CardCheck = { ok: true; facts: CardFacts } | { ok: false; reason: string };

/**
 * Checks a card number: digits only, a known brand, a length allowed for it,
 * and the Luhn check digit. Reasons never repeat the number.
 */
export function checkCardNumber(number: string): CardCheck {
  if (!/^[0-9]+$/.test(number)) return { ok: false, reason: 'card_number must contain digits only' };
  if (number.length < CARD_NUMBER_LENGTH_MIN || number.length > CARD_NUMBER_LENGTH_MAX) {
    return { ok: false, reason: `card_number must be ${CARD_NUMBER_LENGTH_MIN} to ${CARD_NUMBER_LENGTH_MAX} digits` };
  }
  const brand = brandOf(number);
  if (brand === UNKNOWN_BRAND) return { ok: false, reason: 'card_number belongs to no card brand we accept' };
  if (!brand.lengths.includes(number.length)) {
    return { ok: false, reason: `card_number has a length not used by ${brand.type} cards (${brand.lengths.join(', ')} digits)` };
  }
  if (!luhnValid(number)) return { ok: false, reason: 'card_number fails the check digit (Luhn)' };
  return {
    ok: true,
    facts: {
      cardType: brand.type,
      last4: number.slice(-4),
      bin: number.length >= BIN_SHOWN_FROM_LENGTH ? number.slice(0, BIN_LENGTH) : '',
      cvvLength: brand.cvvLength,
    },
  };
}

export function checkCvv(cvv: string, facts: CardFacts): string | null {
  if (!/^[0-9]+$/.test(cvv) || cvv.length !== facts.cvvLength) {
    return `cvv2 must be ${facts.cvvLength} digits for ${facts.cardType === 'Unknown' ? 'this card' : `${facts.cardType} cards`}`;
  }
  return null;
}

/**
 * Checks an expiry month and four-digit year against `nowMs` (UTC). The card
 * is valid through the last day of its expiry month. Returns the problem, or
 * null when the date is acceptable. Month range and year shape are checked
 * by the wire schema already; they are checked again here so the rule holds
 * for every caller.
 */
export function checkExpiry(month: number, year: number, nowMs: number): string | null {
  if (!Number.isInteger(month) || month < 1 || month > 12) return 'expiry_month must be from 1 to 12';
  if (!Number.isInteger(year) || year < 1000 || year > 9999) return 'expiry_year must have four digits';
  const now = new Date(nowMs);
  const currentYear = now.getUTCFullYear();
  const currentMonth = now.getUTCMonth() + 1;
  if (year < currentYear || (year === currentYear && month < currentMonth)) return 'the card has expired (expiry_month/expiry_year is in the past)';
  if (year > currentYear + EXPIRY_YEARS_AHEAD_MAX) return `expiry_year is more than ${EXPIRY_YEARS_AHEAD_MAX} years ahead`;
  return null;
}
