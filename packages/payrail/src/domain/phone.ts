// Phone numbers arrive in three forms (E.164 with +, E.164 digits, national).
// We normalise every one to E.164 with libphonenumber-js, whose metadata knows
// which ranges are mobile in each country; writing that by hand would rot.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

export type PhoneParse = { ok: true; e164: string; country: string } | { ok: false; reason: string };

const PHONE_TEXT_LENGTH_MAX = 32;
/** Parsing is the costliest step of a transfer request; results are cached, bounded. */
const CACHE_ENTRIES_MAX = 50_000;
const cache = new Map<string, PhoneParse>();

/**
 * Normalises a phone number. `defaultCountry` interprets national numbers
 * (the receiver's country for receivers, US for senders).
 */
export function parsePhone(text: string, defaultCountry: string): PhoneParse {
  const key = `${defaultCountry}|${text}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const result = parseUncached(text, defaultCountry);
  if (cache.size >= CACHE_ENTRIES_MAX) cache.clear();
  cache.set(key, result);
  return result;
}

function parseUncached(text: string, defaultCountry: string): PhoneParse {
  if (text.length === 0 || text.length > PHONE_TEXT_LENGTH_MAX) {
    return { ok: false, reason: 'is empty or too long' };
  }
  if (!/^\+?[0-9]+$/.test(text)) return { ok: false, reason: 'must contain digits only, with an optional leading +' };
  const candidates: Array<() => ReturnType<typeof parsePhoneNumberFromString>> = [];
  if (text.startsWith('+')) {
    candidates.push(() => parsePhoneNumberFromString(text));
  } else {
    // Digits without +: either E.164 digits or a national number. A national
    // number of the default country wins when it is valid; else try E.164.
    candidates.push(() => parsePhoneNumberFromString(text, defaultCountry as CountryCode));
    candidates.push(() => parsePhoneNumberFromString(`+${text}`));
  }
  for (const candidate of candidates) {
    const parsed = candidate();
    if (parsed === undefined || !parsed.isValid()) continue;
    const type = parsed.getType();
    if (type !== undefined && type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') continue;
    const country = parsed.country;
    if (country === undefined) continue;
    return { ok: true, e164: parsed.number, country };
  }
  return { ok: false, reason: 'is not a valid mobile number' };
}

/** The KYC path form: E.164 digits without the plus. */
export function e164Digits(e164: string): string {
  return e164.startsWith('+') ? e164.slice(1) : e164;
}
