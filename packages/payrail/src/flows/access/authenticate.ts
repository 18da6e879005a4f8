// Authentication of the three credential kinds (docs/api-decisions.md
// sections 2 and 13):
// - every failed authentication of one API answers the same 401 message
//   (missing, malformed, unknown, wrong secret, wrong PIN, revoked), so the
//   answer never tells a live key from a dead one; only a key of the other
//   environment is named as such (section 1), which its prefix alone decides;
// - a valid credential of the wrong kind for the endpoint answers 403;
// - 10 wrong PINs in a row lock a source key for 30 minutes (429 with
//   Retry-After), counted in the store so every process sees the same count;
//   a right PIN starts the count again; a locked key is refused before its
//   PIN is looked at, so guessing on cannot tell a right PIN either;
// - no answer tells a PIN right or wrong before the store's count says the
//   attempt is within the limit: a wrong PIN is answered by the count its
//   conditional upsert returns (401 up to the limit, 429 past it), and a
//   right PIN only once a write in the same order as those counts (not the
//   cached row) finds the key unlocked. So of many guesses sent at once, at
//   most the limit are answered as evaluated, in the order they reached the
//   store, whatever the cached row said when they arrived. (A right PIN is
//   not counted as a failure while in flight: a shop's concurrent charges
//   would otherwise use the limit up between them.)
// - failed authentications are counted per client address; an address over
//   the limit is refused (429) before anything it sends is checked;
// - each failure is logged with the client address and the credential id,
//   never the secret or the PIN.
// Secrets and PINs are compared as hashes in constant time; hashes of the
// older forms are replaced on the next success (src/domain/credentials.ts).
import type { Logger } from 'pino';
import { ADDRESS_FAILURE_WINDOW_MS, ADDRESS_LOCKOUT_MS, PIN_FAILURES_MAX, PIN_LOCKOUT_MS, retryAfterSeconds } from '../../domain/auth-limits.ts';
import { addressKey } from '../../domain/client-address.ts';
import type { Clock } from '../../domain/clock.ts';
import {
  hashKey,
  hashPin,
  keyHashMatches,
  parseKey,
  pinHashMatches,
  type CredentialKind,
  type Environment,
  type HashMatch,
  type ParsedKey,
  type PinKeys,
} from '../../domain/credentials.ts';
import { ApiError, type ErrorName } from '../../errors.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { countAuthFailure, countWrongPinOnly, settleRightPin, upgradeHashes as upgradeHashesCommand } from '../../store/access/auth-counters.ts';
import type { Db } from '../../store/db.ts';
import type { CredentialRow } from '../../store/merchants.ts';
import { addressLockedUntilCached, credentialOf } from '../../store/security-cache.ts';

export interface Principal {
  readonly merchantId: string;
  readonly sourceId: string | null;
  readonly kind: CredentialKind;
  readonly credentialId: string;
  /** How the payin API answers this caller (its source's setting; 'spec' for a transfer key). */
  readonly dialect: WireDialect;
}

/** The API a credential is presented to: each has one failure message. */
export type AuthApi = 'transfer' | 'payin';

/** The one 401 message of each API. */
export const AUTH_FAILED_MESSAGES: Readonly<Record<AuthApi, string>> = {
  transfer: 'invalid or missing API-KEY',
  payin: 'invalid or missing credentials (Basic api_key:PIN for charges, Bearer tokenization token for tokenization)',
};

const ENVIRONMENT_NAMES: Record<Environment, string> = { sandbox: 'sandbox', production: 'production' };

export interface AuthOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly environment: Environment;
  readonly api: AuthApi;
  /** The 403 catalogue entry of the API being called. */
  readonly wrongKindError: ErrorName;
  /** HMAC keys of PIN hashes, one per card-data key (src/crypto/card-key.ts pinKeyFor); asked for only when a PIN is checked. */
  readonly pinKey: () => PinKeys;
  /** Failed authentications per client address and window before the address is refused. */
  readonly addressFailuresMax: number;
}

/** One presented credential: the header as sent, where it came from, and the request's logger. */
export interface AuthAttempt {
  readonly header: string | undefined;
  readonly address: string;
  readonly log: Pick<Logger, 'warn' | 'error'>;
}

/** Why an authentication failed: logged, never answered. */
type FailureReason =
  | 'missing'
  | 'malformed'
  | 'other_environment'
  | 'unknown_key'
  | 'wrong_secret'
  | 'wrong_environment'
  | 'revoked'
  | 'wrong_pin'
  | 'key_locked'
  | 'address_locked'
  | 'wrong_kind';

/** An ApiError that also says why, for the log line the hook writes. */
export class AuthError extends ApiError {
  constructor(
    error: ErrorName,
    message: string | undefined,
    readonly reason: FailureReason,
    /** Seconds until a 429 refusal ends (the Retry-After header). */
    readonly retryAfterS: number | null = null,
  ) {
    super(error, message);
  }
}

interface Checked {
  readonly parsed: ParsedKey;
  readonly row: CredentialRow;
  readonly keyMatch: HashMatch;
}

/** Context of one attempt inside this module. */
interface Run {
  readonly options: AuthOptions;
  readonly attempt: AuthAttempt;
  readonly address: string;
  /** When the address's lock ends (0: not locked); read alongside the credential, awaited before any answer. */
  readonly addressLockedUntilMs: Promise<number>;
  credentialId: string | null;
}

function logFailure(run: Run, reason: FailureReason, status: number): void {
  run.attempt.log.warn(
    { auth: { api: run.options.api, reason, status, credential_id: run.credentialId, client_address: run.attempt.address } },
    'authentication failed',
  );
}

/**
 * Counts a failed authentication of the address (and a wrong PIN of the
 * key), logs it and throws the API's one 401 message, or `message` for the
 * one failure named as such: a key of the other environment, which its
 * prefix alone tells (docs/api-decisions.md section 1).
 */
async function refuse(run: Run, reason: FailureReason, more: { wrongPinOf?: CredentialRow; message?: string } = {}): Promise<never> {
  await refuseIfAddressLocked(run);
  const nowMs = run.options.clock.nowMs();
  const pinCount = await countAuthFailure(
    run.options.db,
    more.wrongPinOf === undefined ? null : { credentialId: more.wrongPinOf.id, nowMs, failuresMax: PIN_FAILURES_MAX, lockedUntilMs: nowMs + PIN_LOCKOUT_MS },
    {
      address: run.address,
      nowMs,
      windowStartMinMs: nowMs - ADDRESS_FAILURE_WINDOW_MS,
      failuresMax: run.options.addressFailuresMax,
      lockedUntilMs: nowMs + ADDRESS_LOCKOUT_MS,
    },
  );
  // Past the limit (guesses that raced past the cached lock): answered as locked, like a right PIN would be.
  if (pinCount !== null && pinCount.failures > PIN_FAILURES_MAX) refuseLocked(run, 'key_locked', pinCount.locked_until_ms);
  logFailure(run, reason, 401);
  throw new AuthError('authentication_error', more.message ?? AUTH_FAILED_MESSAGES[run.options.api], reason);
}

function otherEnvironmentMessage(keyEnvironment: Environment, environment: Environment): string {
  const names = ENVIRONMENT_NAMES;
  return `this is a ${names[keyEnvironment]} credential; use it with the ${names[keyEnvironment]} environment (this is ${names[environment]})`;
}

function refuseLocked(run: Run, reason: 'key_locked' | 'address_locked', untilMs: number): never {
  const retryAfterS = retryAfterSeconds(untilMs, run.options.clock.nowMs());
  logFailure(run, reason, 429);
  const message =
    reason === 'key_locked'
      ? `too many wrong PINs for this API key; it is locked, retry after ${retryAfterS} s`
      : `too many failed authentications from this address; retry after ${retryAfterS} s`;
  throw new AuthError('rate_limited', message, reason, retryAfterS);
}

function refuseWrongKind(run: Run, message: string): never {
  logFailure(run, 'wrong_kind', 403);
  throw new AuthError(run.options.wrongKindError, message, 'wrong_kind');
}

function startRun(options: AuthOptions, attempt: AuthAttempt): Run {
  const address = addressKey(attempt.address);
  // Both reads are kept while nothing changes them (store/security-cache.ts).
  const addressLockedUntilMs = addressLockedUntilCached(options.db, address, options.clock.nowMs());
  // Awaited before any answer; until then a failure must not go unhandled.
  addressLockedUntilMs.catch(() => undefined);
  return { options, attempt, address, addressLockedUntilMs, credentialId: null };
}

/** An address over its limit is refused before anything it sent counts. */
async function refuseIfAddressLocked(run: Run): Promise<void> {
  const lockedUntilMs = await run.addressLockedUntilMs;
  if (lockedUntilMs > 0) refuseLocked(run, 'address_locked', lockedUntilMs);
}

/** The credential behind a key text, when the text is a live key of this environment; refuses otherwise. */
async function verifyKey(run: Run, text: string | undefined): Promise<Checked> {
  if (text === undefined || text === '') return refuse(run, 'missing');
  const parsed = parseKey(text);
  if (parsed === null) return refuse(run, 'malformed');
  run.credentialId = parsed.id;
  if (parsed.environment !== run.options.environment) {
    return refuse(run, 'other_environment', { message: otherEnvironmentMessage(parsed.environment, run.options.environment) });
  }
  const row = await credentialOf(run.options.db, parsed.id);
  await refuseIfAddressLocked(run);
  if (row === undefined || row.kind !== parsed.kind) return refuse(run, 'unknown_key');
  const keyMatch = keyHashMatches(row.secret_hash, parsed, text);
  if (keyMatch === 'no') return refuse(run, 'wrong_secret');
  // A row issued for the other environment (a store's data carried across,
  // or a key with its prefix swapped on an older row) is no key here.
  if ((row.environment ?? run.options.environment) !== run.options.environment) return refuse(run, 'wrong_environment');
  if (row.revoked_at_ms !== null) return refuse(run, 'revoked');
  return { parsed, row, keyMatch };
}

/** After a success: replaces hashes of the older forms. Best effort; the next success tries again. */
async function upgradeHashes(run: Run, checked: Checked, text: string, pin: { given: string; match: HashMatch } | null): Promise<void> {
  const pinLegacy = pin !== null && pin.match === 'legacy';
  if (checked.keyMatch !== 'legacy' && !pinLegacy) return;
  const row = checked.row;
  try {
    await upgradeHashesCommand(run.options.db, row.id, {
      fromSecretHash: row.secret_hash,
      toSecretHash: hashKey(text),
      fromPinHash: row.pin_hash,
      toPinHash: pin === null ? row.pin_hash : hashPin(run.options.pinKey(), row.id, pin.given),
    });
  } catch (error) {
    run.attempt.log.error({ err: error, credential_id: row.id }, 'could not upgrade the stored hashes of a credential; will try at its next success');
  }
}

function principalOf(row: CredentialRow): Principal {
  return { merchantId: row.merchant_id, sourceId: row.source_id, kind: row.kind, credentialId: row.id, dialect: row.dialect };
}

/** Transfer API: the merchant's transfer key in the API-KEY header. */
export async function authenticateTransferKey(options: AuthOptions, attempt: AuthAttempt): Promise<Principal> {
  const run = startRun(options, attempt);
  const checked = await verifyKey(run, attempt.header);
  if (checked.row.kind !== 'transfer_key') refuseWrongKind(run, 'this credential cannot call the transfer API; use the transfer API key');
  await upgradeHashes(run, checked, attempt.header!, null);
  return principalOf(checked.row);
}

/** Longest Authorization header looked at; credentials are far shorter. */
const AUTHORIZATION_LENGTH_MAX = 512;

/** The API key and PIN of a `Basic base64(api_key:PIN)` header, or null when it is not one. */
function decodeBasic(header: string): { key: string; pin: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]{1,400})$/.exec(header);
  if (match === null) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { key: decoded.slice(0, colon), pin: decoded.slice(colon + 1) };
}

function bearerOf(header: string): string | null {
  return /^Bearer (\S{1,200})$/.exec(header)?.[1] ?? null;
}

/** Whether the key is locked at this moment; refuses with 429 if so. */
function refuseIfLocked(run: Run, row: CredentialRow): void {
  if (row.pin_locked_until_ms > run.options.clock.nowMs()) refuseLocked(run, 'key_locked', row.pin_locked_until_ms);
}

/** Charge API: HTTP Basic with a source API key and its PIN. */
export async function authenticateBasic(options: AuthOptions, attempt: AuthAttempt): Promise<Principal> {
  const run = startRun(options, attempt);
  const header = attempt.header;
  if (header === undefined || header === '') return refuse(run, 'missing');
  if (header.length > AUTHORIZATION_LENGTH_MAX) return refuse(run, 'malformed');
  const bearer = bearerOf(header);
  if (bearer !== null) {
    // A valid credential presented the wrong way (a tokenization token as Bearer) is a 403, not a 401.
    await verifyKey(run, bearer);
    refuseWrongKind(run, 'a tokenization token only tokenizes cards; use a source API key and its PIN with Basic auth');
  }
  const basic = decodeBasic(header);
  if (basic === null) return refuse(run, 'malformed');
  const checked = await verifyKey(run, basic.key);
  const row = checked.row;
  if (row.kind !== 'source_key') refuseWrongKind(run, 'this credential is not a source API key; use a source API key and its PIN');
  refuseIfLocked(run, row);
  const pinMatch = pinHashMatches(row.pin_hash, options.pinKey(), row.id, basic.pin);
  if (pinMatch === 'no') return refuse(run, 'wrong_pin', { wrongPinOf: row });
  // The cached row may predate wrong PINs counted since: the count, in the store's write order, decides.
  const lockedUntilMs = await settleRightPin(options.db, row.id, options.clock.nowMs());
  if (lockedUntilMs > 0) refuseLocked(run, 'key_locked', lockedUntilMs);
  await upgradeHashes(run, checked, basic.key, { given: basic.pin, match: pinMatch });
  return principalOf(row);
}

/** Tokenization: the source's public tokenization token as a Bearer token. */
export async function authenticateTokenizationToken(options: AuthOptions, attempt: AuthAttempt): Promise<Principal> {
  const run = startRun(options, attempt);
  const header = attempt.header;
  if (header === undefined || header === '') return refuse(run, 'missing');
  if (header.length > AUTHORIZATION_LENGTH_MAX) return refuse(run, 'malformed');
  const basic = decodeBasic(header);
  if (basic !== null) {
    // Valid charge-API credentials presented here are a 403, whatever the
    // PIN: the answer must not tell a right PIN from a wrong one. A wrong PIN
    // still counts toward the key's lock (a right one does not reset it
    // here, which would tell too), and a locked key's PIN is not looked at.
    const { row } = await verifyKey(run, basic.key);
    if (row.kind === 'source_key' && row.pin_locked_until_ms <= options.clock.nowMs()) {
      if (pinHashMatches(row.pin_hash, options.pinKey(), row.id, basic.pin) === 'no') {
        const nowMs = options.clock.nowMs();
        await countWrongPinOnly(options.db, { credentialId: row.id, nowMs, failuresMax: PIN_FAILURES_MAX, lockedUntilMs: nowMs + PIN_LOCKOUT_MS });
      }
    }
    refuseWrongKind(run, 'only a tokenization token can tokenize cards (Authorization: Bearer <tokenization token>)');
  }
  const token = bearerOf(header);
  if (token === null) return refuse(run, 'malformed');
  const checked = await verifyKey(run, token);
  if (checked.row.kind !== 'tokenization_token') refuseWrongKind(run, 'only a tokenization token can tokenize cards');
  await upgradeHashes(run, checked, token, null);
  return principalOf(checked.row);
}
