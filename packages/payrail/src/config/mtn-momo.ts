// Settings of the built-in payout network `mtn-momo` (behaviour.md section
// 18), read when PAYRAIL_PAYOUT_NETWORK or a corridor's payout_connector
// chooses it. The subscription key and the API key are secrets: from their
// variable or a file (secret-setting.ts), boxed. Per-corridor settings
// (target environment, currency) live in the corridors file and are checked
// by the connector (corridorProblems).
import { Secret } from '../domain/secret.ts';
import type { MtnMomoSettings } from '../providers/mtn-momo/index.ts';
import { providerUrlSetting } from './provider-url.ts';
import { secretSetting } from './secret-setting.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

/**
 * MoMo's API roots. Production's is the one MTN's partner portal names
 * (proxy.momoapi.mtn.com); a market with a host of its own sets
 * PAYRAIL_MTN_MOMO_URL.
 */
export const MTN_MOMO_URLS = {
  sandbox: 'https://sandbox.momodeveloper.mtn.com',
  production: 'https://proxy.momoapi.mtn.com',
} as const;

const SANDBOX_HOSTS: ReadonlySet<string> = new Set(['sandbox.momodeveloper.mtn.com']);
/** MTN's live API hosts: proxy.momoapi.mtn.com and every other host under momoapi.mtn.com (the sandbox is not under it). */
const PRODUCTION_DOMAIN = 'momoapi.mtn.com';

function isProductionHost(host: string): boolean {
  return !SANDBOX_HOSTS.has(host) && (host === PRODUCTION_DOMAIN || host.endsWith(`.${PRODUCTION_DOMAIN}`));
}
/** MoMo's API user is a UUID (the X-Reference-Id it was created with). */
const API_USER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WHY = 'with the mtn-momo payout network';
/** Stands in for a missing key while problems are collected; configuration with a problem is never used. */
const UNSET = new Secret('');

export function mtnMomoSettings(source: SettingsSource): MtnMomoSettings {
  const url = providerUrlSetting(source, 'PAYRAIL_MTN_MOMO_URL', MTN_MOMO_URLS);
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  // A sandbox deployment pointed at MTN's live API would pay real wallets;
  // production pointed at MTN's sandbox would report payouts no wallet received.
  if (source.environment === 'sandbox' && isProductionHost(host)) {
    source.problems.push(`PAYRAIL_MTN_MOMO_URL names MTN MoMo's live API; the sandbox environment uses its sandbox (${MTN_MOMO_URLS.sandbox})`);
  }
  if (source.environment === 'production' && SANDBOX_HOSTS.has(host)) {
    source.problems.push(`PAYRAIL_MTN_MOMO_URL names MTN MoMo's sandbox; production uses ${MTN_MOMO_URLS.production} or the market's API host`);
  }
  const apiUser = settingText(source, 'PAYRAIL_MTN_MOMO_API_USER');
  if (apiUser === null) source.problems.push(`PAYRAIL_MTN_MOMO_API_USER (the API user, a UUID) is required ${WHY}`);
  else if (!API_USER.test(apiUser)) source.problems.push("PAYRAIL_MTN_MOMO_API_USER must be the API user's UUID, like 0f3b7c8e-1d2a-4b5c-8d9e-0a1b2c3d4e5f");
  const subscriptionKey = secretSetting(source, 'PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY', `${WHY} (the Disbursement product's primary or secondary key)`);
  const apiKey = secretSetting(source, 'PAYRAIL_MTN_MOMO_API_KEY', WHY);
  return {
    url,
    apiUser: apiUser ?? '',
    // Only read when the problems list is empty, so never these placeholders.
    subscriptionKey: subscriptionKey ?? UNSET,
    apiKey: apiKey ?? UNSET,
  };
}
