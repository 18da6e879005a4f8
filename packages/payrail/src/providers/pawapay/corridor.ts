// A corridor's payout_settings as the pawaPay connector reads them:
//   provider         pawaPay's provider code of the receivers' wallets
//                    (MTN_MOMO_ZMB); required. Its last three letters are the
//                    ISO 3166-1 alpha-3 country pawaPay names it by.
//   amount_decimals  how many decimals the provider takes in an amount ("0",
//                    "1" or "2"); pawaPay's active configuration says it per
//                    provider (decimalsInAmount: TWO_PLACES or NONE). Default
//                    0: whole units, which every provider takes.
import type { Corridor } from '../../domain/corridors.ts';

const PROVIDER_PATTERN = /^[A-Z0-9]+(_[A-Z0-9]+)*_([A-Z]{3})$/;
const DECIMALS_PATTERN = /^[0-2]$/;
/** pawaPay takes at most two decimals in any amount. */
export const AMOUNT_DECIMALS_MAX = 2;
/** Whole units unless the corridor says more: no provider refuses them. */
export const AMOUNT_DECIMALS_DEFAULT = 0;

/**
 * The countries pawaPay serves (alpha-3 as in its provider codes) with their
 * alpha-2 code and the currencies its providers there take. A provider code
 * of a country not listed here is accepted unchecked (pawaPay adds markets).
 */
const COUNTRIES: Readonly<Record<string, { readonly alpha2: string; readonly currencies: readonly string[] }>> = {
  BEN: { alpha2: 'BJ', currencies: ['XOF'] },
  BFA: { alpha2: 'BF', currencies: ['XOF'] },
  CIV: { alpha2: 'CI', currencies: ['XOF'] },
  CMR: { alpha2: 'CM', currencies: ['XAF'] },
  COD: { alpha2: 'CD', currencies: ['CDF', 'USD'] },
  COG: { alpha2: 'CG', currencies: ['XAF'] },
  ETH: { alpha2: 'ET', currencies: ['ETB'] },
  GAB: { alpha2: 'GA', currencies: ['XAF'] },
  GHA: { alpha2: 'GH', currencies: ['GHS'] },
  KEN: { alpha2: 'KE', currencies: ['KES'] },
  LSO: { alpha2: 'LS', currencies: ['LSL'] },
  MOZ: { alpha2: 'MZ', currencies: ['MZN'] },
  MWI: { alpha2: 'MW', currencies: ['MWK'] },
  NGA: { alpha2: 'NG', currencies: ['NGN'] },
  RWA: { alpha2: 'RW', currencies: ['RWF'] },
  SEN: { alpha2: 'SN', currencies: ['XOF'] },
  SLE: { alpha2: 'SL', currencies: ['SLE'] },
  TGO: { alpha2: 'TG', currencies: ['XOF'] },
  TZA: { alpha2: 'TZ', currencies: ['TZS'] },
  UGA: { alpha2: 'UG', currencies: ['UGX'] },
  ZMB: { alpha2: 'ZM', currencies: ['ZMW'] },
};

/** The corridor's provider code; corridorProblems has checked it at start. */
export function providerOf(corridor: Corridor): string {
  const provider = corridor.payoutSettings.provider;
  if (provider === undefined) throw new Error(`pawapay: corridor ${corridor.service} has no payout_settings.provider`);
  return provider;
}

/** The alpha-3 country a provider code names (its suffix), or null when it is not a provider code. */
export function providerCountry(provider: string): string | null {
  return PROVIDER_PATTERN.exec(provider)?.[2] ?? null;
}

/** The decimals the corridor's provider takes (amount_decimals), never more than the currency has. */
export function amountDecimalsOf(corridor: Corridor): number {
  const raw = corridor.payoutSettings.amount_decimals;
  const asked = raw !== undefined && DECIMALS_PATTERN.test(raw) ? Number(raw) : AMOUNT_DECIMALS_DEFAULT;
  return Math.min(asked, corridor.currencyMinorUnits, AMOUNT_DECIMALS_MAX);
}

/** What is wrong with a corridor's payout_settings for pawaPay (checked at start). */
export function corridorProblemsOf(corridor: Corridor): string[] {
  const problems: string[] = [];
  const known = new Set(['provider', 'amount_decimals']);
  for (const name of Object.keys(corridor.payoutSettings)) {
    if (!known.has(name)) problems.push(`payout_settings.${name} is not a pawapay setting (provider, amount_decimals)`);
  }
  const provider = corridor.payoutSettings.provider;
  if (provider === undefined) {
    problems.push('payout_settings.provider is required: the pawaPay provider code of the receivers\' wallets, such as "MTN_MOMO_ZMB"');
  } else {
    const country = providerCountry(provider);
    if (country === null) {
      problems.push(`payout_settings.provider must be a pawaPay provider code such as "MTN_MOMO_ZMB", got ${JSON.stringify(provider.slice(0, 60))}`);
    } else {
      const known = COUNTRIES[country];
      if (known !== undefined && known.alpha2 !== corridor.country) {
        problems.push(`payout_settings.provider ${provider} pays in ${country} (${known.alpha2}), but the corridor's country is ${corridor.country}`);
      }
      if (known !== undefined && !known.currencies.includes(corridor.currency)) {
        problems.push(`payout_settings.provider ${provider} pays ${known.currencies.join(' or ')}, but the corridor's currency is ${corridor.currency}`);
      }
    }
  }
  const decimals = corridor.payoutSettings.amount_decimals;
  if (decimals !== undefined) {
    if (!DECIMALS_PATTERN.test(decimals))
      problems.push(`payout_settings.amount_decimals must be "0", "1" or "2", got ${JSON.stringify(decimals.slice(0, 20))}`);
    else if (Number(decimals) > corridor.currencyMinorUnits) {
      problems.push(`payout_settings.amount_decimals ${decimals} is more than the currency's ${corridor.currencyMinorUnits} minor units`);
    }
  }
  return problems;
}

/** The alpha-2 code of a pawaPay alpha-3 country, when known. */
export function alpha2Of(alpha3: string): string | null {
  return COUNTRIES[alpha3]?.alpha2 ?? null;
}
