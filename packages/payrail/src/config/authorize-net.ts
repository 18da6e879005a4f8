// Settings of the built-in connector `authorize-net`, card processor
// (PAYRAIL_CARD_PROCESSOR=authorize-net; behaviour.md section 18) and ACH
// network (PAYRAIL_ACH_NETWORK=authorize-net) on the same account: one set,
// read only when either slot chooses it. The transaction key and the signature key are secrets:
// from their variable or a file (secret-setting.ts), boxed.
import { Secret } from '../domain/secret.ts';
import type { AuthorizeNetSettings } from '../providers/authorize-net/index.ts';
import { providerUrlSetting } from './provider-url.ts';
import { secretSetting } from './secret-setting.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

/** Authorize.net's JSON API endpoints (the sandbox's is its developer test account system). */
export const AUTHORIZE_NET_URLS = {
  sandbox: 'https://apitest.authorize.net/xml/v1/request.api',
  production: 'https://api.authorize.net/xml/v1/request.api',
} as const;

/** Authorize.net's documented API hosts of its live gateway and of its sandbox. */
const PRODUCTION_HOSTS: ReadonlySet<string> = new Set(['api.authorize.net', 'api2.authorize.net']);
const SANDBOX_HOSTS: ReadonlySet<string> = new Set(['apitest.authorize.net']);

/** A hostname as DNS compares it: case-insensitive, the root's trailing dot removed. */
function normalHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

/** Authorize.net issues API login ids of at most 25 characters. */
const LOGIN_ID = /^[\x21-\x7e]{1,25}$/;
/** Stands in for a missing key while problems are collected; configuration with a problem is never used. */
const UNSET = new Secret('');

/** `chosenBy` names the setting(s) that chose the connector, for the problems' words. */
export function authorizeNetSettings(source: SettingsSource, chosenBy = 'PAYRAIL_CARD_PROCESSOR=authorize-net'): AuthorizeNetSettings {
  const WHY = `with ${chosenBy}`;
  const url = providerUrlSetting(source, 'PAYRAIL_AUTHORIZE_NET_URL', AUTHORIZE_NET_URLS);
  const host = normalHost(new URL(url).hostname);
  // A sandbox deployment hands keys to anyone who signs up; pointed at the
  // live gateway it would move real money. And production against the
  // processor's test system would approve charges no card pays.
  if (source.environment === 'sandbox' && PRODUCTION_HOSTS.has(host)) {
    source.problems.push(
      `PAYRAIL_AUTHORIZE_NET_URL names Authorize.net's production gateway; the sandbox environment uses its sandbox (${AUTHORIZE_NET_URLS.sandbox})`,
    );
  }
  if (source.environment === 'production' && SANDBOX_HOSTS.has(host)) {
    source.problems.push(`PAYRAIL_AUTHORIZE_NET_URL names Authorize.net's sandbox; production uses ${AUTHORIZE_NET_URLS.production}`);
  }
  const loginId = settingText(source, 'PAYRAIL_AUTHORIZE_NET_LOGIN_ID');
  if (loginId === null) source.problems.push(`PAYRAIL_AUTHORIZE_NET_LOGIN_ID (the API login id) is required ${WHY}`);
  else if (!LOGIN_ID.test(loginId)) source.problems.push('PAYRAIL_AUTHORIZE_NET_LOGIN_ID must be 1 to 25 printable characters without spaces');
  const transactionKey = secretSetting(source, 'PAYRAIL_AUTHORIZE_NET_TRANSACTION_KEY', WHY);
  // Optional: without it the connector refuses webhooks (401) and polling alone moves held charges.
  const signatureKey = secretSetting(source, 'PAYRAIL_AUTHORIZE_NET_SIGNATURE_KEY', null);
  return {
    url,
    loginId: loginId ?? '',
    // Only read when the problems list is empty, so never this placeholder.
    transactionKey: transactionKey ?? UNSET,
    signatureKey,
  };
}
