// Authorize.net webhooks (its Webhooks API): a POST whose X-ANET-Signature
// header is "sha512=" and the HMAC-SHA512 of the raw body, in hex (sent upper
// case), keyed with the merchant's Signature Key as the text the Merchant
// Interface shows (Authorize.net's samples key the HMAC with that string, not
// with the bytes its hex would decode to). Payment events
// (net.authorize.payment.*) name the transaction (payload.id) and its
// invoiceNumber, Payrail's provider key; the callback flow then polls the
// transaction, so the webhook is only a hint (providers/callbacks.ts).
import crypto from 'node:crypto';
import type { Secret } from '../../domain/secret.ts';
import { CALLBACK_BODY_MAX_BYTES, type CallbackHint, type CallbackReceiver, type CallbackVerdict, type ProviderCallback } from '../callbacks.ts';

const SIGNATURE_HEADER = 'x-anet-signature';
const SIGNATURE_PREFIX = 'sha512=';
/** HMAC-SHA512 in hex: 128 digits. */
const SIGNATURE_HEX_CHARS = 128;
const PAYMENT_EVENT_PREFIX = 'net.authorize.payment.';
/** Longest transaction id and invoice number read from a payload (transIds are at most 20 digits; invoiceNumber at most 20 characters). */
const ID_CHARS_MAX = 64;

/** HMAC-SHA512 of `body` keyed with the signature key's text, lower-case hex. */
export function webhookSignatureOf(signatureKey: string, body: Buffer): string {
  return crypto.createHmac('sha512', Buffer.from(signatureKey, 'utf8')).update(body).digest('hex');
}

/** Whether `header` ("sha512=<hex>", any case) is the body's signature; constant time in the signature. */
export function signatureHolds(signatureKey: string, body: Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  const trimmed = header.trim();
  if (trimmed.slice(0, SIGNATURE_PREFIX.length).toLowerCase() !== SIGNATURE_PREFIX) return false;
  const given = trimmed.slice(SIGNATURE_PREFIX.length).toLowerCase();
  if (given.length !== SIGNATURE_HEX_CHARS || !/^[0-9a-f]+$/.test(given)) return false;
  return crypto.timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(webhookSignatureOf(signatureKey, body), 'hex'));
}

/** A payload field as text when it is a short string or a number, else null. */
function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value === '' || value.length > ID_CHARS_MAX) return null;
  return value;
}

/** What a verified notification is about: a payment event names its transaction; any other event (a test ping, a customer profile) none. */
export function hintsOfNotification(body: unknown): readonly CallbackHint[] | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { eventType, payload } = body as { eventType?: unknown; payload?: unknown };
  if (typeof eventType !== 'string') return null;
  if (!eventType.startsWith(PAYMENT_EVENT_PREFIX)) return [];
  if (payload === null || typeof payload !== 'object') return [];
  const fields = payload as { id?: unknown; invoiceNumber?: unknown };
  const processorRef = idText(fields.id);
  if (processorRef === null) return [];
  return [{ kind: 'card', processorRef, reference: idText(fields.invoiceNumber) }];
}

/** The connector's CallbackReceiver: refuses every callback when no signature key is configured. */
export function webhookReceiver(signatureKey: Secret<string> | null): CallbackReceiver {
  return {
    verify(callback: ProviderCallback): CallbackVerdict {
      if (signatureKey === null) return { accepted: false, reason: 'no Authorize.net signature key is configured' };
      if (callback.rawBody.byteLength > CALLBACK_BODY_MAX_BYTES) return { accepted: false, reason: 'body too large' };
      if (!signatureHolds(signatureKey.reveal(), callback.rawBody, callback.headers[SIGNATURE_HEADER])) {
        return { accepted: false, reason: 'X-ANET-Signature does not hold' };
      }
      let body: unknown;
      try {
        body = JSON.parse(callback.rawBody.toString('utf8').replace(/^\uFEFF/, ''));
      } catch {
        return { accepted: false, reason: 'body is not JSON' };
      }
      const hints = hintsOfNotification(body);
      if (hints === null) return { accepted: false, reason: 'not an Authorize.net notification' };
      return { accepted: true, hints };
    },
  };
}
