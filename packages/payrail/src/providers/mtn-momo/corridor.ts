// A corridor as MoMo needs it (behaviour.md section 18): the corridors file's
// payout_settings name the target environment (MoMo's X-Target-Environment,
// "sandbox" or the market's, such as "mtnuganda") and, optionally, the
// currency MoMo is asked to pay in (MTN's sandbox takes EUR only) and the
// decimals its amounts take. Checked at start (corridorProblems), so a bad
// corridors file stops the service instead of failing payouts.
import type { Corridor } from '../../domain/corridors.ts';

/** MTN's market identifiers are lower-case words ("sandbox", "mtnuganda", "mtnivorycoast"). */
const TARGET_ENVIRONMENT = /^[a-z][a-z0-9]{1,39}$/;
const CURRENCY = /^[A-Z]{3}$/;
const DECIMALS = /^[0-4]$/;
const KNOWN_SETTINGS: ReadonlySet<string> = new Set(['target_environment', 'currency', 'amount_decimals']);

export function corridorProblems(corridor: Corridor): string[] {
  const problems: string[] = [];
  const settings = corridor.payoutSettings;
  const target = settings.target_environment;
  if (target === undefined) {
    problems.push('payout_settings.target_environment is required (MTN MoMo\'s X-Target-Environment: "sandbox", or the market\'s, like "mtnuganda")');
  } else if (!TARGET_ENVIRONMENT.test(target)) {
    problems.push(`payout_settings.target_environment must be a lower-case word like "sandbox" or "mtnuganda", got ${JSON.stringify(target.slice(0, 60))}`);
  }
  const currency = settings.currency;
  if (currency !== undefined && !CURRENCY.test(currency)) {
    problems.push(`payout_settings.currency must be a three-letter ISO 4217 code like "EUR", got ${JSON.stringify(currency.slice(0, 60))}`);
  }
  const decimals = settings.amount_decimals;
  if (decimals !== undefined) {
    if (!DECIMALS.test(decimals)) problems.push(`payout_settings.amount_decimals must be a digit from 0 to 4, got ${JSON.stringify(decimals.slice(0, 60))}`);
    else if (Number(decimals) > corridor.currencyMinorUnits) {
      problems.push(`payout_settings.amount_decimals (${decimals}) exceeds the currency's minor units (${corridor.currencyMinorUnits})`);
    }
  }
  for (const name of Object.keys(settings)) {
    if (!KNOWN_SETTINGS.has(name))
      problems.push(`payout_settings.${name.slice(0, 60)} is not a setting of mtn-momo (target_environment, currency, amount_decimals)`);
  }
  return problems;
}

/** The corridor's X-Target-Environment; corridorProblems made sure at start it is there. */
export function targetEnvironmentOf(corridor: Corridor): string {
  const target = corridor.payoutSettings.target_environment;
  if (target === undefined || !TARGET_ENVIRONMENT.test(target)) throw new Error(`mtn-momo: corridor ${corridor.service} has no usable target_environment`);
  return target;
}

/** The currency MoMo pays in: payout_settings.currency, else the corridor's own. */
export function currencyOf(corridor: Corridor): string {
  return corridor.payoutSettings.currency ?? corridor.currency;
}

/**
 * Decimals MoMo is sent: payout_settings.amount_decimals, else the
 * corridor currency's own minor units. MoMo's amount is decimal text and its
 * reference does not limit decimals; the markets' currencies (UGX, RWF,
 * XAF, XOF, GNF) mostly have none, and where a market takes whole units
 * only of a currency that has cents, the corridor says so with
 * amount_decimals "0".
 */
export function amountDecimalsOf(corridor: Corridor): number {
  const configured = corridor.payoutSettings.amount_decimals;
  if (configured !== undefined && DECIMALS.test(configured)) return Math.min(Number(configured), corridor.currencyMinorUnits);
  return corridor.currencyMinorUnits;
}

/**
 * The received amount (minor units of the corridor currency, already rounded
 * to amountDecimalsOf) as MoMo's decimal text: 150000 KES cents with 0
 * decimals is "1500". An amount not so rounded is a programmer error: it is
 * refused before anything is sent, never rounded here (what was quoted is
 * what is paid).
 */
export function amountText(receivedMinor: number, minorUnits: number, decimals: number): string {
  if (!Number.isSafeInteger(receivedMinor) || receivedMinor <= 0)
    throw new Error(`mtn-momo: the amount must be a positive integer of minor units, got ${receivedMinor}`);
  const drop = 10 ** (minorUnits - decimals);
  if (receivedMinor % drop !== 0) throw new Error(`mtn-momo: ${receivedMinor} minor units is not rounded to ${decimals} decimals`);
  const digits = String(receivedMinor / drop);
  if (decimals === 0) return digits;
  const padded = digits.padStart(decimals + 1, '0');
  return `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
}

/** MoMo's MSISDN: the E.164 number's digits without the plus. */
export function msisdnOf(phoneE164: string): string {
  const digits = phoneE164.replace(/^\+/, '');
  if (!/^[1-9][0-9]{6,14}$/.test(digits)) throw new Error('mtn-momo: the receiver number is not an E.164 number');
  return digits;
}
