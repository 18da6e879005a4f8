// The base URL of every built-in connector is a setting (behaviour.md
// section 18), so a deployment can point it at a local stand-in: by default
// the provider's sandbox host in the sandbox environment and its production
// host in production. Production accepts https only: card data and keys
// must not travel in the clear. The sandbox also accepts plain http on a
// loopback address, where a stand-in listens; nowhere else.
import type { Environment } from '../domain/credentials.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

/** A provider's hosts: where each environment's calls go unless configured. */
export interface ProviderUrlDefaults {
  readonly sandbox: string;
  readonly production: string;
}

/** The URL configured in `name` (or the environment's default), checked; the default on a problem. */
export function providerUrlSetting(source: SettingsSource, name: string, defaults: ProviderUrlDefaults): string {
  const fallback = defaults[source.environment];
  const raw = settingText(source, name);
  if (raw === null) return fallback;
  const problem = providerUrlProblem(raw, source.environment);
  if (problem !== null) {
    source.problems.push(`${name} ${problem}, got "${shownUrl(raw).slice(0, 200)}"`);
    return fallback;
  }
  return raw;
}

/**
 * A configured URL as a problem message may show it: scheme, host and path
 * only. A user:password@ or a query may hold a key, and problems are logged.
 * Text that is not a URL shows as a placeholder.
 */
export function shownUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** What is wrong with a provider URL in this environment, or null. */
export function providerUrlProblem(raw: string, environment: Environment): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL like https://host/path';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password (the keys have settings of their own)';
  if (url.search !== '' || url.hash !== '') return 'must have no query or fragment';
  if (url.protocol === 'https:') return null;
  if (environment === 'sandbox' && url.protocol === 'http:' && isLoopbackHost(url.hostname)) return null;
  return environment === 'production'
    ? 'must be an https:// URL in production'
    : 'must be an https:// URL, or http:// on a loopback address (a local stand-in)';
}

/** 127.0.0.0/8, ::1 and localhost: addresses that never leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
