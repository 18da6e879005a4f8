// Webhook signatures (docs/api-decisions.md section 11): `X-Signature` is the
// hex HMAC-SHA256 of the raw body (what accept.blue integrations verify) and
// `Payrail-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`
// binds the body to a time, so a captured delivery cannot be replayed later.
// The SDK (packages/client) verifies both the same way.
import crypto from 'node:crypto';
import type { Secret } from '../domain/secret.ts';

export interface SignatureHeaders {
  readonly 'X-Signature': string;
  readonly 'Payrail-Signature': string;
}

export function signWebhook(secret: Secret<string>, body: string, nowMs: number): SignatureHeaders {
  const t = Math.floor(nowMs / 1000);
  // A KeyObject, not the text: see src/crypto/subkeys.ts.
  const key = crypto.createSecretKey(Buffer.from(secret.reveal(), 'utf8'));
  const hmac = (text: string) => crypto.createHmac('sha256', key).update(text, 'utf8').digest('hex');
  return { 'X-Signature': hmac(body), 'Payrail-Signature': `t=${t},v1=${hmac(`${t}.${body}`)}` };
}
