// Configuration comes from environment variables only, validated once at
// start. Every bad value is reported with its variable name; none is guessed.
import path from 'node:path';

import { ADDRESS_FAILURES_MAX_DEFAULT, RATE_LIMIT_PER_ADDRESS_DEFAULT, RATE_LIMIT_PER_CREDENTIAL_DEFAULT } from './domain/auth-limits.ts';
import { authorizeNetSettings } from './config/authorize-net.ts';
import { type CardKeySettings, cardKeySettings } from './config/card-keys.ts';
import { mtnMomoSettings } from './config/mtn-momo.ts';
import { type KycLimits, kycLimitSettings, veriffSettings } from './config/veriff.ts';
import { pawaPaySettings } from './config/pawapay.ts';
import { openExchangeRatesSettings } from './config/openexchangerates.ts';
import type { SettingsSource } from './config/settings-source.ts';
import { DEFAULT_ACH_CUTOFF_UTC } from './domain/ach.ts';
import { BUILT_IN_CONNECTORS, CONNECTOR_SLOT_LABELS, connectorChoiceProblem, type ConnectorSlot, NO_ACH_NETWORK } from './domain/connector-spec.ts';
import { parseCloseTime } from './domain/card-lifecycle.ts';
import { addressList } from './providers/webhook-address-rule.ts';
import type { Environment } from './domain/credentials.ts';
import { weakKeyReason } from './domain/key-strength.ts';
import type { BuiltInConnectorSettings } from './providers/index.ts';
import { loadCorridors } from './corridors-file.ts';

export type { Environment };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly environment: Environment;
  readonly dataDir: string;
  /** A postgres:// URL switches the store to PostgreSQL; null means embedded SQLite. */
  readonly databaseUrl: string | null;
  readonly pgPoolSize: number;
  readonly logLevel: string;
  /** Step of every sandbox scenario (0 makes them immediate). */
  readonly sandboxDelayMs: number;
  /** `inline` runs the worker inside `payrail serve`; `off` leaves it to `payrail worker`. */
  readonly worker: 'inline' | 'off';
  readonly corridorsFile: string;
  /** Base64 of 32 bytes; null in sandbox means "generate and keep one in a key file" (cardKeys.cardKeyFile). */
  readonly cardKeyBase64: string | null;
  /** Key provider, Vault settings and the sandbox key file's place (config/card-keys.ts). */
  readonly cardKeys: CardKeySettings;
  /** The sandbox key file chosen by PAYRAIL_CARD_KEY_FILE; null for the default (src/crypto/card-key.ts). */
  readonly cardKeyFile: string | null;
  readonly tlsCertFile: string | null;
  readonly tlsKeyFile: string | null;
  /** The operator states that a TLS-terminating proxy in front is trusted. */
  readonly trustProxyTls: boolean;
  /**
   * The connector of each slot: `sandbox` selects the simulator, a built-in
   * name (domain/connector-spec.ts) a connector Payrail ships, anything else
   * is a module path or package name.
   */
  readonly providers: Readonly<Record<ConnectorSlot, string>>;
  /** Settings of the built-in connectors chosen in `providers`; null for one not chosen. Secrets are boxed. */
  readonly connectors: BuiltInConnectorSettings;
  /** Per-transfer limits of receivers verified by a KYC provider working in sessions (PAYRAIL_KYC_VERIFIED_LIMIT, PAYRAIL_KYC_UNVERIFIED_LIMIT). */
  readonly kycLimits: KycLimits;
  /** Public base URL of this deployment, used to build kyc_url and invitation links. */
  readonly publicUrl: string;
  readonly bodyLimitBytes: number;
  /** Minutes after midnight UTC at which settlement batches close daily (PAYRAIL_BATCH_CLOSE_UTC, "HH:MM"). */
  readonly batchCloseMinuteOfDay: number;
  /** Minutes after midnight UTC of the daily ACH cut-off (PAYRAIL_ACH_CUTOFF_UTC, "HH:MM", default 21:00): the sandbox ACH network originates then. */
  readonly achCutoffMinuteOfDay: number;
  /** Requests per minute per credential, and per client address, on both APIs (docs/api-decisions.md section 13). */
  readonly rateLimitPerMin: number;
  readonly rateLimitPerAddressPerMin: number;
  /** Failed authentications per client address within 15 minutes before the address is refused for 15 minutes. */
  readonly authFailuresPerAddress: number;
  /** Whether /docs (the rendered OpenAPI document) is served. */
  readonly docs: boolean;
  /**
   * Addresses (IPs or CIDR ranges) of proxies in front whose X-Forwarded-For
   * is believed, so limits per client address count the client, not the
   * proxy. Empty: the socket's peer is the client.
   */
  readonly trustedProxies: readonly string[];
  /**
   * PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES: IP addresses or CIDR ranges sandbox
   * webhooks may be delivered to although they are not public (a receiver
   * on a private network); empty by default (behaviour.md section 11).
   */
  readonly webhookAllowedAddresses: readonly string[];
  /** smtp:// or smtps:// URL of the mail server (PAYRAIL_SMTP_URL); null keeps mail in the outbox, shown in the panel and by `payrail mail list`. */
  readonly smtpUrl: string | null;
  /** Sender of Payrail's mail (PAYRAIL_MAIL_FROM). */
  readonly mailFrom: string;
  /** Whether a confirmed sandbox sign-up is approved without an operator (PAYRAIL_SIGNUP_AUTO_APPROVE; on by default in the sandbox). */
  readonly signupAutoApprove: boolean;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const PACKAGE_ROOT = path.resolve(import.meta.dirname, '..');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  };
  const text = (name: string): string | null => {
    const raw = env[name];
    return raw === undefined || raw === '' ? null : raw;
  };

  const closeTime = (name: string, fallback = '00:00'): number => {
    const raw = env[name] === undefined || env[name] === '' ? fallback : (env[name] as string);
    const minutes = parseCloseTime(raw);
    if (minutes === null) problems.push(`${name} must be a UTC time of day as HH:MM (00:00 to 23:59), got "${raw}"`);
    return minutes ?? 0;
  };

  const environment = oneOf<Environment>('PAYRAIL_ENV', 'sandbox', ['sandbox', 'production']);
  const port = integer('PORT', 8080, 0, 65535);
  const host = text('HOST') ?? '127.0.0.1';
  const databaseUrl = text('DATABASE_URL');
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store), got "${databaseUrl}"`);
  }
  const cardKeyBase64 = text('PAYRAIL_CARD_KEY');
  const cardKeyBytes = cardKeyBase64 === null ? null : Buffer.from(cardKeyBase64, 'base64');
  if (cardKeyBytes !== null && cardKeyBytes.length !== 32) {
    problems.push('PAYRAIL_CARD_KEY must be the base64 of exactly 32 random bytes');
  }
  const providerDefault = environment === 'sandbox' ? 'sandbox' : '';
  const providers: Record<ConnectorSlot, string> = {
    cardProcessor: text('PAYRAIL_CARD_PROCESSOR') ?? providerDefault,
    payoutNetwork: text('PAYRAIL_PAYOUT_NETWORK') ?? providerDefault,
    kyc: text('PAYRAIL_KYC_PROVIDER') ?? providerDefault,
    fx: text('PAYRAIL_FX_PROVIDER') ?? providerDefault,
    // Checks are optional in production: without a real ACH network they are refused (behaviour section 17).
    // An Authorize.net card account takes eChecks on the same keys, so production offers them by default.
    achNetwork: text('PAYRAIL_ACH_NETWORK') ?? (environment === 'sandbox' ? 'sandbox' : achNetworkDefault(text('PAYRAIL_CARD_PROCESSOR'))),
  };
  for (const [slot, value] of Object.entries(providers) as Array<[ConnectorSlot, string]>) {
    const problem = value === '' ? null : connectorChoiceProblem(slot, value);
    if (problem !== null) problems.push(`PAYRAIL_${snake(slot)} ${problem}, got "${value.slice(0, 80)}"`);
  }
  // npm runs workspace scripts inside the package; INIT_CWD is where the user typed the command.
  const baseDir = text('INIT_CWD') ?? process.cwd();
  const settings: SettingsSource = { env, problems, baseDir, environment };
  const corridorsFile = path.resolve(baseDir, text('PAYRAIL_CORRIDORS_FILE') ?? path.join(PACKAGE_ROOT, 'config', 'corridors.sandbox.json'));
  const authorizeNetChoice = authorizeNetChosenBy(providers);
  const connectors: BuiltInConnectorSettings = {
    // One set of PAYRAIL_AUTHORIZE_NET_* serves both slots that may choose it.
    authorizeNet: authorizeNetChoice === null ? null : authorizeNetSettings(settings, authorizeNetChoice),
    mtnMomo: payoutNetworkInUse('mtn-momo', providers.payoutNetwork, corridorsFile) ? mtnMomoSettings(settings) : null,
    veriff: providers.kyc === 'veriff' ? veriffSettings(settings) : null,
    pawaPay: payoutNetworkInUse('pawapay', providers.payoutNetwork, corridorsFile) ? pawaPaySettings(settings) : null,
    openExchangeRates: providers.fx === 'openexchangerates' ? openExchangeRatesSettings(settings) : null,
  };
  const tlsCertFile = text('PAYRAIL_TLS_CERT');
  const tlsKeyFile = text('PAYRAIL_TLS_KEY');
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) {
    problems.push('PAYRAIL_TLS_CERT and PAYRAIL_TLS_KEY must be set together');
  }
  const cardKeys = cardKeySettings(settings);
  const trustProxyTls = oneOf('PAYRAIL_TRUST_PROXY_TLS', '0', ['0', '1']) === '1';

  if (environment === 'production') {
    for (const [slot, value] of Object.entries(providers) as Array<[ConnectorSlot, string]>) {
      if (value !== '' && value !== 'sandbox') continue;
      if (slot === 'achNetwork' && value === '') continue;
      problems.push(`production needs a real ${CONNECTOR_SLOT_LABELS[slot]}, not the sandbox simulator: set PAYRAIL_${snake(slot)} to ${realChoices(slot)}`);
    }
    // A corridor may name its own network: the simulator is no more acceptable there.
    for (const service of corridorsNaming('sandbox', corridorsFile)) {
      problems.push(
        `production needs a real payout network for corridor ${service}, not the sandbox simulator: set its payout_connector to ${realChoices('payoutNetwork')}`,
      );
    }
    if (tlsCertFile === null && !trustProxyTls) {
      problems.push('production needs TLS: set PAYRAIL_TLS_CERT and PAYRAIL_TLS_KEY, or PAYRAIL_TRUST_PROXY_TLS=1 behind a trusted TLS-terminating proxy');
    }
    if (cardKeyBase64 === null && cardKeys.keyProvider === 'local') {
      problems.push('production needs a key provider: PAYRAIL_CARD_KEY (card-data encryption key), or PAYRAIL_KEY_PROVIDER=vault with Vault transit settings');
    }
    const weak = cardKeyBytes !== null && cardKeyBytes.length === 32 ? weakKeyReason(cardKeyBytes) : null;
    if (weak !== null) problems.push(`PAYRAIL_CARD_KEY does not look random: ${weak}; make one with: openssl rand -base64 32`);
    const publicUrl = text('PAYRAIL_PUBLIC_URL');
    if (publicUrl === null || !publicUrl.startsWith('https://')) {
      problems.push('production needs PAYRAIL_PUBLIC_URL, an https:// URL (links handed to receivers must not travel in the clear)');
    }
  }
  const trustedProxies = (text('PAYRAIL_TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of trustedProxies) {
    if (!/^[0-9A-Fa-f.:]{2,45}(\/[0-9]{1,3})?$/.test(entry))
      problems.push(`PAYRAIL_TRUSTED_PROXIES must list IP addresses or CIDR ranges, got "${entry.slice(0, 60)}"`);
  }

  const webhookAllowedAddresses = (text('PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    addressList(webhookAllowedAddresses);
  } catch (error) {
    problems.push(`PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES must list IP addresses or CIDR ranges: ${(error as Error).message}`);
  }
  // Production delivers to public addresses only (behaviour.md section 11): a list there would be silently ignored.
  if (environment === 'production' && webhookAllowedAddresses.length > 0) {
    problems.push('PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES is for the sandbox only: production delivers webhooks to public addresses only; unset it');
  }

  const smtpUrl = text('PAYRAIL_SMTP_URL');
  if (smtpUrl !== null && !/^smtps?:\/\/[^\s/]+/.test(smtpUrl)) {
    problems.push(
      'PAYRAIL_SMTP_URL must be an smtp:// or smtps:// URL, like smtps://user:password@mail.example.com:465 (leave it unset to keep mail in the outbox)',
    );
  }
  const mailFrom = text('PAYRAIL_MAIL_FROM') ?? 'Payrail <payrail@localhost>';
  if (!/^[^\r\n<>]{0,100}<[^\s<>@]+@[^\s<>@]+>$|^[^\s<>@]+@[^\s<>@]+$/.test(mailFrom)) {
    problems.push(`PAYRAIL_MAIL_FROM must be an address, like payrail@example.com or "Payrail <payrail@example.com>", got "${mailFrom.slice(0, 80)}"`);
  }
  const signupAutoApprove = oneOf('PAYRAIL_SIGNUP_AUTO_APPROVE', environment === 'sandbox' ? '1' : '0', ['0', '1']) === '1';

  const config: Config = {
    port,
    host,
    environment,
    dataDir: path.resolve(baseDir, text('PAYRAIL_DATA_DIR') ?? 'data'),
    databaseUrl,
    pgPoolSize: integer('PAYRAIL_PG_POOL', 8, 2, 100),
    logLevel: oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    sandboxDelayMs: integer('PAYRAIL_SANDBOX_DELAY_MS', 1000, 0, 600_000),
    worker: oneOf('PAYRAIL_WORKER', 'inline', ['inline', 'off']),
    corridorsFile,
    cardKeyBase64,
    cardKeys,
    cardKeyFile: cardKeys.cardKeyFile,
    tlsCertFile,
    tlsKeyFile,
    trustProxyTls,
    providers,
    connectors,
    kycLimits: kycLimitSettings(settings),
    publicUrl: (text('PAYRAIL_PUBLIC_URL') ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    bodyLimitBytes: integer('PAYRAIL_BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    batchCloseMinuteOfDay: closeTime('PAYRAIL_BATCH_CLOSE_UTC'),
    achCutoffMinuteOfDay: closeTime('PAYRAIL_ACH_CUTOFF_UTC', DEFAULT_ACH_CUTOFF_UTC),
    rateLimitPerMin: integer('PAYRAIL_RATE_LIMIT_PER_MIN', RATE_LIMIT_PER_CREDENTIAL_DEFAULT, 1, 10_000_000),
    rateLimitPerAddressPerMin: integer('PAYRAIL_RATE_LIMIT_PER_ADDRESS_PER_MIN', RATE_LIMIT_PER_ADDRESS_DEFAULT, 1, 10_000_000),
    authFailuresPerAddress: integer('PAYRAIL_AUTH_FAILURES_PER_ADDRESS', ADDRESS_FAILURES_MAX_DEFAULT, 1, 1_000_000),
    docs: oneOf('PAYRAIL_DOCS', environment === 'sandbox' ? '1' : '0', ['0', '1']) === '1',
    trustedProxies,
    webhookAllowedAddresses,
    smtpUrl,
    mailFrom,
    signupAutoApprove,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Whether a built-in payout network is in use: the deployment's
 * (PAYRAIL_PAYOUT_NETWORK) or a corridor's payout_connector. A corridors
 * file that cannot be read counts as naming none here; it is reported by
 * its own error when the service loads it.
 */
function payoutNetworkInUse(name: string, deploymentNetwork: string, corridorsFile: string): boolean {
  return deploymentNetwork === name || corridorsNaming(name, corridorsFile).length > 0;
}

/** The services of the corridors whose payout_connector is `name`; none when the file cannot be read (its own error reports it at start). */
function corridorsNaming(name: string, corridorsFile: string): string[] {
  try {
    return loadCorridors(corridorsFile)
      .corridors.filter((corridor) => corridor.payoutConnector === name)
      .map((corridor) => corridor.service);
  } catch {
    return [];
  }
}

/**
 * Production's ACH network when PAYRAIL_ACH_NETWORK is unset: Authorize.net's
 * eCheck when the card processor is Authorize.net (the same account and
 * keys; an account without eCheck.Net enabled refuses each check, which
 * then fails with Authorize.net's reason), else none (checks refused).
 */
function achNetworkDefault(cardProcessor: string | null): string {
  return cardProcessor === 'authorize-net' ? 'authorize-net' : NO_ACH_NETWORK;
}

/** The setting(s) choosing the built-in `authorize-net`, as a problem names them; null when neither slot does. */
function authorizeNetChosenBy(providers: Readonly<Record<ConnectorSlot, string>>): string | null {
  const names = (['cardProcessor', 'achNetwork'] as const)
    .filter((slot) => providers[slot] === 'authorize-net')
    .map((slot) => `PAYRAIL_${snake(slot)}=authorize-net`);
  return names.length === 0 ? null : names.join(' and ');
}

function snake(slot: ConnectorSlot): string {
  const map: Record<ConnectorSlot, string> = {
    cardProcessor: 'CARD_PROCESSOR',
    payoutNetwork: 'PAYOUT_NETWORK',
    kyc: 'KYC_PROVIDER',
    fx: 'FX_PROVIDER',
    achNetwork: 'ACH_NETWORK',
  };
  return map[slot];
}

/** What an operator may set a slot to in production, in words. */
function realChoices(slot: ConnectorSlot): string {
  const shipped = BUILT_IN_CONNECTORS[slot].shipped;
  return shipped.length > 0
    ? `${shipped.join(' or ')} (built in) or a connector module`
    : `a connector module (Payrail ships no built-in ${CONNECTOR_SLOT_LABELS[slot]} yet)`;
}
