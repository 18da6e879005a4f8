// Authentication of the three credential kinds. Semantics (behaviour.md s.2):
// missing, malformed, wrong or revoked -> 401; a valid credential of the
// wrong kind for the endpoint -> 403; a key of the other environment -> 401
// naming the right one. Secrets are compared as hashes in constant time.
import type { Environment } from '../config.ts';
import { hashesEqual, hashPin, hashSecret, parseKey, type CredentialKind, type ParsedKey } from '../domain/credentials.ts';
import { fail, type ErrorName } from '../errors.ts';
import type { Db } from '../store/db.ts';
import { getCredential, type CredentialRow } from '../store/merchants.ts';

export interface Principal {
  readonly merchantId: string;
  readonly sourceId: string | null;
  readonly kind: CredentialKind;
  readonly credentialId: string;
}

const ENVIRONMENT_NAMES: Record<Environment, string> = { sandbox: 'sandbox', production: 'production' };

interface Options {
  readonly db: Db;
  readonly environment: Environment;
  /** The 403 catalogue entry of the API being called. */
  readonly wrongKindError: ErrorName;
}

async function verifyKey(options: Options, text: string | undefined, what: string): Promise<{ parsed: ParsedKey; row: CredentialRow }> {
  if (text === undefined || text === '') fail('authentication_error', `missing ${what}`);
  const parsed = parseKey(text);
  if (parsed === null) fail('authentication_error', `invalid ${what}`);
  if (parsed.environment !== options.environment) {
    fail(
      'authentication_error',
      `this is a ${ENVIRONMENT_NAMES[parsed.environment]} credential; use it with the ${ENVIRONMENT_NAMES[parsed.environment]} environment (this is ${ENVIRONMENT_NAMES[options.environment]})`,
    );
  }
  const row = await options.db.read((tx) => getCredential(tx, parsed.id));
  if (row === undefined || row.kind !== parsed.kind || !hashesEqual(row.secret_hash, hashSecret(parsed.secret))) {
    fail('authentication_error', `invalid ${what}`);
  }
  if (row.revoked_at_ms !== null) fail('authentication_error', `this ${what} has been revoked`);
  return { parsed, row };
}

function principalOf(row: CredentialRow): Principal {
  return { merchantId: row.merchant_id, sourceId: row.source_id, kind: row.kind, credentialId: row.id };
}

/** Transfer API: the merchant's transfer key in the API-KEY header. */
export async function authenticateTransferKey(options: Options, header: string | undefined): Promise<Principal> {
  const { row } = await verifyKey(options, header, 'API-KEY');
  if (row.kind !== 'transfer_key') fail(options.wrongKindError, 'this credential cannot call the transfer API; use the transfer API key');
  return principalOf(row);
}

/** The API key and PIN of a `Basic base64(api_key:PIN)` header, or null when it is not one. */
function decodeBasic(header: string): { key: string; pin: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]{1,400})$/.exec(header);
  if (match === null) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { key: decoded.slice(0, colon), pin: decoded.slice(colon + 1) };
}

function pinMatches(row: CredentialRow, pin: string): boolean {
  return row.pin_hash !== null && hashesEqual(row.pin_hash, hashPin(row.id, pin));
}

/** Charge API: HTTP Basic with a source API key and its PIN. */
export async function authenticateBasic(options: Options, header: string | undefined): Promise<Principal> {
  if (header === undefined || header === '') fail('authentication_error', 'missing Authorization header (Basic api_key:PIN)');
  const bearer = /^Bearer (\S{1,200})$/.exec(header);
  if (bearer !== null) {
    // A valid credential presented the wrong way (a tokenization token as Bearer) is a 403, not a 401.
    await verifyKey(options, bearer[1], 'credential');
    fail(options.wrongKindError, 'this credential cannot charge; use a source API key and its PIN with Basic auth');
  }
  const basic = decodeBasic(header);
  if (basic === null) fail('authentication_error', 'Authorization must be Basic base64(api_key:PIN)');
  const { row } = await verifyKey(options, basic.key, 'API key');
  if (row.kind !== 'source_key') fail(options.wrongKindError, 'this credential cannot charge; use a source API key and its PIN');
  if (!pinMatches(row, basic.pin)) fail('authentication_error', 'invalid API key or PIN');
  return principalOf(row);
}

/** Tokenization: the source's public tokenization token as a Bearer token. */
export async function authenticateTokenizationToken(options: Options, header: string | undefined): Promise<Principal> {
  if (header === undefined || header === '') fail('authentication_error', 'missing Authorization header (Bearer tokenization token)');
  const basic = decodeBasic(header);
  if (basic !== null) {
    // Valid credentials of the charge API presented here are a 403, not a 401;
    // a source key counts as valid only with its right PIN.
    const { row } = await verifyKey(options, basic.key, 'API key');
    if (row.kind === 'source_key' && !pinMatches(row, basic.pin)) fail('authentication_error', 'invalid API key or PIN');
    fail(options.wrongKindError, 'only a tokenization token can tokenize cards (Authorization: Bearer <tokenization token>)');
  }
  const match = /^Bearer (\S{1,200})$/.exec(header);
  if (match === null) fail('authentication_error', 'Authorization must be Bearer <tokenization token>');
  const { row } = await verifyKey(options, match[1], 'tokenization token');
  if (row.kind !== 'tokenization_token') fail(options.wrongKindError, 'only a tokenization token can tokenize cards');
  return principalOf(row);
}
