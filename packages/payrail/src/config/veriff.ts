// Settings of the built-in KYC provider `veriff` (PAYRAIL_KYC_PROVIDER=veriff;
// behaviour.md section 18), read only when it is chosen, and the money limits
// per verification level that Payrail applies to any KYC provider working in
// sessions (Veriff decides who is verified; how much a verified or an
// unverified receiver may receive stays Payrail's policy). The API key and
// the shared secret are secrets: from their variable or a file
// (secret-setting.ts), boxed.
import { formatCents, parseDollarStringOrZero } from '../domain/money.ts';
import { Secret } from '../domain/secret.ts';
import type { VeriffSettings } from '../providers/veriff/index.ts';
import { providerUrlSetting } from './provider-url.ts';
import { secretSetting } from './secret-setting.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

/** Veriff's API host: one host serves test and live integrations (the integration's API key says which). */
export const VERIFF_URLS = { sandbox: 'https://stationapi.veriff.com', production: 'https://stationapi.veriff.com' } as const;

const WHY = 'with PAYRAIL_KYC_PROVIDER=veriff';
/** Stands in for a missing secret while problems are collected; configuration with a problem is never used. */
const UNSET = new Secret('');

export function veriffSettings(source: SettingsSource): VeriffSettings {
  const url = providerUrlSetting(source, 'PAYRAIL_VERIFF_URL', VERIFF_URLS);
  const apiKey = secretSetting(source, 'PAYRAIL_VERIFF_API_KEY', WHY);
  const sharedSecret = secretSetting(source, 'PAYRAIL_VERIFF_SHARED_SECRET', WHY);
  if (apiKey !== null && !/^[\x21-\x7e]{1,200}$/.test(apiKey.reveal()))
    source.problems.push('PAYRAIL_VERIFF_API_KEY must be 1 to 200 printable characters without spaces');
  return { url, apiKey: apiKey ?? UNSET, sharedSecret: sharedSecret ?? UNSET };
}

/** Payrail's per-transfer limits of a receiver verified in sessions (flows/transfers/kyc-sessions.ts). */
export interface KycLimits {
  /** A receiver the provider approved: PAYRAIL_KYC_VERIFIED_LIMIT, "3000.00" by default. */
  readonly verifiedCents: number;
  /** Any other receiver, and a receiver new to the network once invited: PAYRAIL_KYC_UNVERIFIED_LIMIT, "0" by default. */
  readonly unverifiedCents: number;
}

export const KYC_LIMITS_DEFAULT: KycLimits = { verifiedCents: 300_000, unverifiedCents: 0 };

export function kycLimitSettings(source: SettingsSource): KycLimits {
  const limit = (name: string, fallback: number): number => {
    const raw = settingText(source, name);
    if (raw === null) return fallback;
    const parsed = parseDollarStringOrZero(raw);
    if (!parsed.ok) {
      source.problems.push(`${name} must be an amount in USD like "3000.00" (0 allowed), got "${raw.slice(0, 40)}"`);
      return fallback;
    }
    return parsed.cents;
  };
  const verifiedCents = limit('PAYRAIL_KYC_VERIFIED_LIMIT', KYC_LIMITS_DEFAULT.verifiedCents);
  const unverifiedCents = limit('PAYRAIL_KYC_UNVERIFIED_LIMIT', KYC_LIMITS_DEFAULT.unverifiedCents);
  if (unverifiedCents > verifiedCents) {
    source.problems.push(
      `PAYRAIL_KYC_UNVERIFIED_LIMIT (${formatCents(unverifiedCents)}) must not exceed PAYRAIL_KYC_VERIFIED_LIMIT (${formatCents(verifiedCents)})`,
    );
  }
  return { verifiedCents, unverifiedCents };
}
