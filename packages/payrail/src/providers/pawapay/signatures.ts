// pawaPay's signed callbacks (docs.pawapay.io/v2/docs/signatures): HTTP
// Message Signatures (RFC 9421) over the request, with the body bound by a
// Content-Digest (RFC 9530, sha-256 or sha-512). pawaPay signs with a key it
// publishes at GET /v2/public-key/http, named by the `keyid` parameter, and
// covers "@method" "@authority" "@path" "signature-date" "content-digest"
// "content-type", with the parameters alg, created, expires and keyid. This
// file checks one callback against given keys; it never throws, every
// problem is a refusal with a reason (no secret in it).
import crypto, { type KeyObject } from 'node:crypto';

/** What a signature check is given: the request as it arrived at Payrail. */
export interface SignedRequest {
  readonly method: string;
  readonly path: string;
  readonly rawBody: Buffer;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export type SignatureVerdict = { readonly ok: true; readonly keyId: string } | { readonly ok: false; readonly reason: string };

/** The parts of a Signature-Input member. */
interface SignatureInput {
  readonly label: string;
  readonly components: readonly string[];
  /** The member's value as sent (inner list and parameters): the "@signature-params" line signs it. */
  readonly paramsText: string;
  readonly alg: string | null;
  readonly keyId: string | null;
  /** Unix seconds. */
  readonly created: number | null;
  /** Unix seconds. */
  readonly expires: number | null;
}

/** How far a signature's times may stray from Payrail's clock. */
export interface SignatureTimeLimits {
  /** A signature whose `expires` passed this long ago is still taken: clocks differ a little. */
  readonly expiresSkewSeconds: number;
  /** A `created` at most this far ahead of Payrail's clock is taken (clocks differ a little); further ahead, refused. */
  readonly createdAheadMaxSeconds: number;
  /** A `created` older than this is refused, with or without `expires`: a captured callback cannot be replayed for long. */
  readonly ageMaxSeconds: number;
}

/** Signature algorithms pawaPay documents, as RFC 9421 names them. */
// RFC 9421 sends an ECDSA signature as r||s (64 bytes for P-256, 96 for
// P-384). A signature of any other length is read as DER, in case pawaPay's
// signer emits that encoding; it must still verify under the published key.
const ALGORITHMS: Readonly<
  Record<
    string,
    {
      readonly hash: string;
      readonly check: (key: KeyObject) => boolean;
      readonly options: (key: KeyObject, signature: Buffer) => crypto.VerifyKeyObjectInput;
    }
  >
> = {
  'ecdsa-p256-sha256': {
    hash: 'sha256',
    check: (key) => key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1',
    options: (key, signature) => ({ key, dsaEncoding: signature.length === 64 ? 'ieee-p1363' : 'der' }),
  },
  'ecdsa-p384-sha384': {
    hash: 'sha384',
    check: (key) => key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'secp384r1',
    options: (key, signature) => ({ key, dsaEncoding: signature.length === 96 ? 'ieee-p1363' : 'der' }),
  },
  'rsa-pss-sha512': {
    hash: 'sha512',
    check: (key) => key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss',
    options: (key) => ({ key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 }),
  },
  'rsa-v1_5-sha256': {
    hash: 'sha256',
    check: (key) => key.asymmetricKeyType === 'rsa',
    options: (key) => ({ key, padding: crypto.constants.RSA_PKCS1_PADDING }),
  },
};

/** Components a callback signature must cover: without them a signature could be moved to another body or endpoint. */
const REQUIRED_COMPONENTS = ['@method', '@path', 'content-digest'] as const;
const HEADER_CHARS_MAX = 4096;
const COMPONENTS_MAX = 20;
const DIGESTS: Readonly<Record<string, string>> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

/** Whether the Content-Digest header holds the body's digest (every algorithm Payrail knows in it must match, at least one must be there). */
export function contentDigestHolds(header: string | undefined, body: Buffer): boolean {
  if (header === undefined || header.length > HEADER_CHARS_MAX) return false;
  let matched = 0;
  for (const member of header.split(',')) {
    const parsed = /^\s*([a-z0-9-]+)=:([A-Za-z0-9+/]+={0,2}):\s*$/.exec(member);
    if (parsed === null) return false;
    const hash = DIGESTS[parsed[1]!];
    if (hash === undefined) continue;
    const given = Buffer.from(parsed[2]!, 'base64');
    const actual = crypto.createHash(hash).update(body).digest();
    if (given.length !== actual.length || !crypto.timingSafeEqual(given, actual)) return false;
    matched += 1;
  }
  return matched > 0;
}

/** The first member of a Signature-Input header, parsed; null when it is not one. */
export function parseSignatureInput(header: string | undefined): SignatureInput | null {
  if (header === undefined || header.length > HEADER_CHARS_MAX) return null;
  const member = /^\s*([a-z*][a-z0-9_.*-]*)=(\(([^()]*)\)((?:;[a-z*][a-z0-9_.*-]*=(?:"[^"\\]*"|-?[0-9]{1,15}))*))\s*(?:,|$)/.exec(header);
  if (member === null) return null;
  const components: string[] = [];
  const list = member[3]!.trim();
  if (list !== '') {
    for (const item of list.split(/ +/)) {
      const quoted = /^"([a-z0-9@_.-]+)"$/.exec(item);
      if (quoted === null) return null;
      components.push(quoted[1]!);
    }
  }
  if (components.length > COMPONENTS_MAX || new Set(components).size !== components.length) return null;
  const params = new Map<string, string>();
  for (const param of member[4]!.matchAll(/;([a-z*][a-z0-9_.*-]*)=("([^"\\]*)"|-?[0-9]+)/g)) {
    params.set(param[1]!, param[3] ?? param[2]!);
  }
  const seconds = (name: string): number | null => {
    const value = params.get(name);
    return value !== undefined && /^[0-9]{1,15}$/.test(value) ? Number(value) : null;
  };
  return {
    label: member[1]!,
    components,
    paramsText: member[2]!,
    alg: params.get('alg') ?? null,
    keyId: params.get('keyid') ?? null,
    created: seconds('created'),
    expires: seconds('expires'),
  };
}

/** The signature bytes of `label` in a Signature header, or null. */
function signatureBytes(header: string | undefined, label: string): Buffer | null {
  if (header === undefined || header.length > HEADER_CHARS_MAX) return null;
  for (const member of header.split(',')) {
    const parsed = /^\s*([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/]+={0,2}):\s*$/.exec(member);
    if (parsed !== null && parsed[1] === label) return Buffer.from(parsed[2]!, 'base64');
  }
  return null;
}

/** The RFC 9421 signature base of a request for the covered components, or null when one is missing. */
export function signatureBase(request: SignedRequest, components: readonly string[], paramsText: string): string | null {
  const lines: string[] = [];
  for (const component of components) {
    let value: string | undefined;
    if (component === '@method') value = request.method.toUpperCase();
    else if (component === '@path') value = request.path;
    else if (component === '@authority') value = request.headers.host?.toLowerCase();
    else if (component.startsWith('@')) return null;
    else value = request.headers[component];
    if (value === undefined) return null;
    lines.push(`"${component}": ${value.trim()}`);
  }
  lines.push(`"@signature-params": ${paramsText}`);
  return lines.join('\n');
}

/**
 * Checks a callback's signature against `keys` (pawaPay's key ids to
 * public keys). `nowSeconds` is compared with the signature's `created`
 * (required) and `expires` (when given) within `limits`.
 */
export function verifySignature(
  request: SignedRequest,
  keys: ReadonlyMap<string, KeyObject>,
  nowSeconds: number,
  limits: SignatureTimeLimits,
): SignatureVerdict {
  const input = parseSignatureInput(request.headers['signature-input']);
  if (input === null) return { ok: false, reason: 'no readable Signature-Input header' };
  for (const required of REQUIRED_COMPONENTS) {
    if (!input.components.includes(required)) return { ok: false, reason: `the signature does not cover ${required}` };
  }
  if (input.alg === null || input.keyId === null) return { ok: false, reason: 'the signature names no alg or keyid' };
  const algorithm = ALGORITHMS[input.alg];
  if (algorithm === undefined) return { ok: false, reason: `unknown signature algorithm ${input.alg.slice(0, 40)}` };
  // pawaPay documents `created` in every signature; without it a captured callback could be replayed forever.
  if (input.created === null) return { ok: false, reason: 'the signature names no created time' };
  if (input.created > nowSeconds + limits.createdAheadMaxSeconds) return { ok: false, reason: 'the signature was created in the future' };
  if (nowSeconds - input.created > limits.ageMaxSeconds) return { ok: false, reason: 'the signature is too old' };
  if (input.expires !== null && nowSeconds > input.expires + limits.expiresSkewSeconds) return { ok: false, reason: 'the signature has expired' };
  if (!contentDigestHolds(request.headers['content-digest'], request.rawBody)) return { ok: false, reason: 'the Content-Digest does not match the body' };
  const key = keys.get(input.keyId);
  if (key === undefined) return { ok: false, reason: 'the signature names a key pawaPay does not publish' };
  if (!algorithm.check(key)) return { ok: false, reason: 'the key does not suit the signature algorithm' };
  const signature = signatureBytes(request.headers.signature, input.label);
  if (signature === null) return { ok: false, reason: 'no readable Signature header for the signature input' };
  const base = signatureBase(request, input.components, input.paramsText);
  if (base === null) return { ok: false, reason: 'a covered component is missing from the request' };
  let holds = false;
  try {
    holds = crypto.verify(algorithm.hash, Buffer.from(base, 'utf8'), algorithm.options(key, signature), signature);
  } catch {
    holds = false;
  }
  return holds ? { ok: true, keyId: input.keyId } : { ok: false, reason: 'the signature does not hold' };
}
