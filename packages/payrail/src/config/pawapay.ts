// Settings of the built-in payout network `pawapay` (behaviour.md section
// 18), read when PAYRAIL_PAYOUT_NETWORK=pawapay or a corridor of the
// corridors file names it. The API token is a secret: from its variable or a
// file (secret-setting.ts), boxed. Callbacks need no setting: their signing
// keys are read from pawaPay with the same token.
import { Secret } from '../domain/secret.ts';
import type { PawaPaySettings } from '../providers/pawapay/index.ts';
import { providerUrlSetting } from './provider-url.ts';
import { secretSetting } from './secret-setting.ts';
import type { SettingsSource } from './settings-source.ts';

/** pawaPay's Merchant API roots. */
export const PAWAPAY_URLS = {
  sandbox: 'https://api.sandbox.pawapay.io',
  production: 'https://api.pawapay.io',
} as const;

const PRODUCTION_HOSTS: ReadonlySet<string> = new Set(['api.pawapay.io']);
const SANDBOX_HOSTS: ReadonlySet<string> = new Set(['api.sandbox.pawapay.io']);
const WHY = "when the pawapay payout network is used (PAYRAIL_PAYOUT_NETWORK or a corridor's payout_connector)";
/** Stands in for a missing token while problems are collected; configuration with a problem is never used. */
const UNSET = new Secret('');

export function pawaPaySettings(source: SettingsSource): PawaPaySettings {
  const url = providerUrlSetting(source, 'PAYRAIL_PAWAPAY_URL', PAWAPAY_URLS);
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  // A sandbox deployment pointed at pawaPay's live API would pay real
  // receivers; production against the sandbox would report payouts nobody got.
  if (source.environment === 'sandbox' && PRODUCTION_HOSTS.has(host)) {
    source.problems.push(`PAYRAIL_PAWAPAY_URL names pawaPay's live API; the sandbox environment uses its sandbox (${PAWAPAY_URLS.sandbox})`);
  }
  if (source.environment === 'production' && SANDBOX_HOSTS.has(host)) {
    source.problems.push(`PAYRAIL_PAWAPAY_URL names pawaPay's sandbox; production uses ${PAWAPAY_URLS.production}`);
  }
  const token = secretSetting(source, 'PAYRAIL_PAWAPAY_TOKEN', WHY);
  if (token !== null && !/^[\x21-\x7e]{1,4096}$/.test(token.reveal())) {
    source.problems.push("PAYRAIL_PAWAPAY_TOKEN must be the API token from pawaPay's dashboard: printable characters, no spaces");
  }
  // Only read when the problems list is empty, so never this placeholder.
  return { url, token: token ?? UNSET };
}
