// Settings of the built-in FX connector `openexchangerates`
// (PAYRAIL_FX_PROVIDER=openexchangerates; behaviour.md section 18), read
// only when it is chosen. The App ID is a secret: from PAYRAIL_OXR_APP_ID or
// the file PAYRAIL_OXR_APP_ID_FILE names (secret-setting.ts), boxed.
import { Secret } from '../domain/secret.ts';
import type { OpenExchangeRatesSettings } from '../providers/openexchangerates/index.ts';
import {
  MAX_AGE_REFRESHES_DEFAULT,
  MAX_AGE_SECONDS_MAX,
  REFRESH_SECONDS_DEFAULT,
  REFRESH_SECONDS_MAX,
  REFRESH_SECONDS_MIN,
} from '../providers/openexchangerates/settings.ts';
import { providerUrlSetting } from './provider-url.ts';
import { secretSetting } from './secret-setting.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

/** Open Exchange Rates has one API host; every plan (the Free one too) answers there. */
export const OXR_URLS = {
  sandbox: 'https://openexchangerates.org/api',
  production: 'https://openexchangerates.org/api',
} as const;

const WHY = 'with PAYRAIL_FX_PROVIDER=openexchangerates';
/** App IDs are 32 hexadecimal characters; anything printable up to 64 is accepted, in case the format grows. */
const APP_ID = /^[\x21-\x7e]{1,64}$/;
/** Stands in for a missing App ID while problems are collected; configuration with a problem is never used. */
const UNSET = new Secret('');

export function openExchangeRatesSettings(source: SettingsSource): OpenExchangeRatesSettings {
  const url = providerUrlSetting(source, 'PAYRAIL_OXR_URL', OXR_URLS);
  const appId = secretSetting(source, 'PAYRAIL_OXR_APP_ID', WHY);
  if (appId !== null && !APP_ID.test(appId.reveal()))
    source.problems.push('PAYRAIL_OXR_APP_ID must be the App ID: printable characters without spaces, at most 64');
  const refreshSeconds = seconds(source, 'PAYRAIL_OXR_REFRESH_SECONDS', REFRESH_SECONDS_DEFAULT, REFRESH_SECONDS_MIN, REFRESH_SECONDS_MAX);
  const maxAgeDefault = Math.min(refreshSeconds * MAX_AGE_REFRESHES_DEFAULT, MAX_AGE_SECONDS_MAX);
  // Below one refresh interval, every table would expire before the next fetch replaces it.
  const maxAgeSeconds = seconds(source, 'PAYRAIL_OXR_MAX_AGE_SECONDS', maxAgeDefault, refreshSeconds, MAX_AGE_SECONDS_MAX);
  return { url, appId: appId ?? UNSET, refreshSeconds, maxAgeSeconds };
}

function seconds(source: SettingsSource, name: string, fallback: number, min: number, max: number): number {
  const raw = settingText(source, name);
  if (raw === null) return fallback;
  const value = /^[0-9]{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    source.problems.push(`${name} must be a whole number of seconds from ${min} to ${max}, got "${raw.slice(0, 40)}"`);
    return fallback;
  }
  return value;
}
