// Veriff's X-HMAC-SIGNATURE: the HMAC-SHA256, in hex, keyed with the
// integration's shared secret key, of what the request carries: the raw body
// of a POST (webhooks Veriff sends), the session id of a GET. Compared in
// constant time; any header that is not 64 hex digits is simply refused.
import crypto from 'node:crypto';

/** HMAC-SHA256 hex digits. */
const SIGNATURE_HEX_CHARS = 64;

/** The lower-case hex HMAC-SHA256 of `payload` keyed with `sharedSecret`. */
export function hmacSignature(sharedSecret: string, payload: Buffer | string): string {
  return crypto.createHmac('sha256', Buffer.from(sharedSecret, 'utf8')).update(payload).digest('hex');
}

/** Whether `header` is the signature of `payload`; never throws (a missing or malformed header is false). */
export function signatureHolds(sharedSecret: string, payload: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const given = header.trim().toLowerCase();
  if (given.length !== SIGNATURE_HEX_CHARS || !/^[0-9a-f]+$/.test(given)) return false;
  return crypto.timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(hmacSignature(sharedSecret, payload), 'hex'));
}
