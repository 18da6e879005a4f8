// Phone numbers in any form the API accepts: E.164 with "+", E.164 digits
// without it, or a national number of a known country. Check and execute take
// every form (the server normalises them), so the SDK only removes spacing.
// The KYC path takes E.164 digits without "+" and has no country context, so
// the SDK turns a national number into those digits itself.
import { inputError } from './errors.ts';

/**
 * ITU country calling codes by ISO 3166 alpha-2 code. A compact text keeps
 * the zero-dependency package small; it is parsed once, on first use.
 */
const CALLING_CODES_TEXT =
  'AD376 AE971 AF93 AG1 AI1 AL355 AM374 AO244 AR54 AS1 AT43 AU61 AW297 AZ994 BA387 BB1 BD880 BE32 BF226 BG359 BH973 ' +
  'BI257 BJ229 BM1 BN673 BO591 BR55 BS1 BT975 BW267 BY375 BZ501 CA1 CD243 CF236 CG242 CH41 CI225 CL56 CM237 CN86 CO57 ' +
  'CR506 CU53 CV238 CY357 CZ420 DE49 DJ253 DK45 DM1 DO1 DZ213 EC593 EE372 EG20 ER291 ES34 ET251 FI358 FJ679 FR33 GA241 ' +
  'GB44 GD1 GE995 GH233 GM220 GN224 GQ240 GR30 GT502 GU1 GW245 GY592 HK852 HN504 HR385 HT509 HU36 ID62 IE353 IL972 IN91 ' +
  'IQ964 IR98 IS354 IT39 JM1 JO962 JP81 KE254 KG996 KH855 KM269 KN1 KR82 KW965 KY1 KZ7 LA856 LB961 LC1 LI423 LK94 LR231 ' +
  'LS266 LT370 LU352 LV371 LY218 MA212 MD373 ME382 MG261 MK389 ML223 MM95 MN976 MO853 MR222 MT356 MU230 MV960 MW265 MX52 ' +
  'MY60 MZ258 NA264 NE227 NG234 NI505 NL31 NO47 NP977 NZ64 OM968 PA507 PE51 PG675 PH63 PK92 PL48 PR1 PS970 PT351 PY595 ' +
  'QA974 RO40 RS381 RU7 RW250 SA966 SB677 SC248 SD249 SE46 SG65 SI386 SK421 SL232 SM378 SN221 SO252 SR597 SS211 ST239 ' +
  'SV503 SY963 SZ268 TC1 TD235 TG228 TH66 TJ992 TL670 TM993 TN216 TO676 TR90 TT1 TW886 TZ255 UA380 UG256 US1 UY598 UZ998 ' +
  'VC1 VE58 VG1 VI1 VN84 WS685 YE967 ZA27 ZM260 ZW263';

/** National trunk prefixes other than the usual "0". */
const TRUNK_PREFIXES: Readonly<Record<string, string>> = { RU: '8', KZ: '8', BY: '8', HU: '06' };
/** North American numbering plan: trunk prefix "1", the same as the calling code. */
const NANP_CODE = '1';

let callingCodes: Map<string, string> | null = null;

export function callingCodeOf(country: string): string | undefined {
  callingCodes ??= new Map(CALLING_CODES_TEXT.split(' ').map((entry) => [entry.slice(0, 2), entry.slice(2)]));
  return callingCodes.get(country.toUpperCase());
}

const PHONE_TEXT_LENGTH_MAX = 32;

/**
 * Removes the spacing people write ("+254 712-345 678", "(0712) 345678") and
 * turns an international "00" prefix into "+". Anything but digits after
 * that is refused, naming the field.
 */
export function cleanPhone(text: unknown, field: string): string {
  if (typeof text !== 'string') throw inputError('invalid_phone_number', `${field} must be a string`);
  let cleaned = text.replace(/[\s().\-\u00a0]/g, '');
  if (cleaned.startsWith('00')) cleaned = `+${cleaned.slice(2)}`;
  if (cleaned.length === 0 || cleaned.length > PHONE_TEXT_LENGTH_MAX || !/^\+?[0-9]+$/.test(cleaned)) {
    throw inputError('invalid_phone_number', `${field} must be a phone number of digits with an optional leading +, got "${text}"`);
  }
  return cleaned;
}

/**
 * The KYC path form: E.164 digits without "+". `country` lets a national
 * number be converted; without it, digits are taken as E.164 digits.
 */
export function kycDigits(text: unknown, country?: string, field = 'phone'): string {
  const cleaned = cleanPhone(text, field);
  if (cleaned.startsWith('+')) return cleaned.slice(1);
  if (country === undefined) return cleaned;
  const code = callingCodeOf(country);
  if (code === undefined) {
    throw inputError('invalid_phone_number', `${field}: no calling code known for country "${country}"; give the number in E.164 form (+ and country code)`);
  }
  const upper = country.toUpperCase();
  if (code === NANP_CODE) {
    // NANP numbers are ten digits; eleven starting with 1 already carry the code.
    if (cleaned.length === 11 && cleaned.startsWith('1')) return cleaned;
    return `${code}${cleaned}`;
  }
  const trunk = TRUNK_PREFIXES[upper] ?? '0';
  if (cleaned.startsWith(trunk)) return `${code}${cleaned.slice(trunk.length)}`;
  // Digits that already start with the calling code are E.164 digits; else a
  // national number written without its trunk prefix.
  if (cleaned.startsWith(code) && cleaned.length - code.length >= 7) return cleaned;
  return `${code}${cleaned}`;
}
