// How the stand-in signs its callbacks, as pawaPay's signatures guide
// describes: a Content-Digest (sha-512) of the body, a Signature-Date, and
// an RFC 9421 signature labelled sig-pp over "@method" "@authority" "@path"
// "signature-date" "content-digest" "content-type" with ECDSA P-256/SHA-256,
// the key named by keyid and published at GET /v2/public-key/http. The key
// pair is the test's own, made fresh for each stand-in.
import crypto, { type KeyObject } from 'node:crypto';

export interface CallbackKey {
  readonly id: string;
  readonly privateKey: KeyObject;
  readonly publicKeyPem: string;
}

export function newCallbackKey(id = 'HTTP_EC_P256_KEY:1'): CallbackKey {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { id, privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** How a test bends a signature: `created` omitted, DER instead of RFC 9421's r||s, no `expires`. */
export interface SigningOptions {
  readonly withCreated?: boolean;
  readonly withExpires?: boolean;
  readonly dsaEncoding?: 'ieee-p1363' | 'der';
}

/** The headers of a signed POST of `body` to `url`. */
export function signedHeaders(
  key: CallbackKey,
  url: URL,
  body: Buffer,
  nowMs: number,
  lifetimeSeconds = 60,
  options: SigningOptions = {},
): Record<string, string> {
  const contentType = 'application/json; charset=UTF-8';
  const digest = `sha-512=:${crypto.createHash('sha512').update(body).digest('base64')}:`;
  const signatureDate = new Date(nowMs).toISOString();
  const created = Math.floor(nowMs / 1000);
  const params =
    `("@method" "@authority" "@path" "signature-date" "content-digest" "content-type");alg="ecdsa-p256-sha256";keyid="${key.id}"` +
    (options.withCreated === false ? '' : `;created=${created}`) +
    (options.withExpires === false ? '' : `;expires=${created + lifetimeSeconds}`);
  const base = [
    `"@method": POST`,
    `"@authority": ${url.host}`,
    `"@path": ${url.pathname}`,
    `"signature-date": ${signatureDate}`,
    `"content-digest": ${digest}`,
    `"content-type": ${contentType}`,
    `"@signature-params": ${params}`,
  ].join('\n');
  const signature = crypto
    .sign('sha256', Buffer.from(base, 'utf8'), { key: key.privateKey, dsaEncoding: options.dsaEncoding ?? 'ieee-p1363' })
    .toString('base64');
  return {
    'content-type': contentType,
    'content-digest': digest,
    'signature-date': signatureDate,
    'signature-input': `sig-pp=${params}`,
    signature: `sig-pp=:${signature}:`,
    'accept-signature': 'sig-pp=("@status" "content-digest" "content-type");alg="ecdsa-p256-sha256"',
    'accept-digest': 'sha-512',
  };
}
