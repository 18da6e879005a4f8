// Events and webhooks (docs/api-decisions.md sections 11 and 14): typed
// events, webhook endpoints, and verifyWebhook, which checks a delivery's
// signatures before its body is trusted. Web Crypto only, so it runs in
// Node 20+, Deno, Bun and edge runtimes alike.
import { PayrailError, inputError } from './errors.ts';
import type { ChargeApprovedWire, ChargeDeclinedWire, StatusResultWire } from './wire.ts';

export const EVENT_TYPES = [
  'charge.approved',
  'charge.declined',
  'charge.failed',
  'charge.pending',
  'charge.captured',
  'charge.voided',
  'charge.expired',
  'charge.adjusted',
  'charge.originated',
  'charge.settled',
  'charge.returned',
  'refund.succeeded',
  'refund.declined',
  'transfer.created',
  'transfer.waiting',
  'transfer.processing',
  'transfer.succeeded',
  'transfer.failed',
  'transfer.reversed',
  'batch.closed',
  'schedule.charged',
  'schedule.declined',
  'schedule.failed',
  'schedule.finished',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type TransactionEventType = Extract<EventType, `charge.${string}` | `refund.${string}`>;
/** Events of a transaction the processor refused: its data is shape B. */
export type RefusedTransactionEventType = 'charge.declined' | 'charge.failed' | 'refund.declined';
export type TransferEventType = Extract<EventType, `transfer.${string}`>;

/** A settlement batch as GET /api/v2/batches/:id shows it (amounts in dollars, like the payin API). */
export interface BatchWire {
  id: number;
  status: 'open' | 'closed';
  opened_at: string;
  closed_at: string | null;
  transaction_count: number;
  sales_count: number;
  sales_amount: number;
  refunds_count: number;
  refunds_amount: number;
  net_amount: number;
}

export type ScheduleEventType = Extract<EventType, `schedule.${string}`>;

/** A recurring schedule as GET /api/v2/recurring-schedules/:id shows it (amount in dollars, like the payin API). */
export interface ScheduleWire {
  id: number;
  customer_id: number;
  title: string;
  receipt_email: string | null;
  amount: number;
  frequency: string;
  /** YYYY-MM-DD (UTC). */
  next_run_date: string;
  /** Runs left; 0 = unlimited. */
  num_left: number;
  payment_method_id: number;
  active: boolean;
  /** declined: the last run was declined and is retried on each of the next 3 days; failed: stopped after that. */
  status: 'active' | 'declined' | 'failed' | 'finished';
  created_at: string;
  /** accept.blue-dialect answers only: the latest date a run was made for, and the runs made. */
  prev_run_date?: string | null;
  transaction_count?: number;
}

interface EventBase<T extends EventType, D> {
  /** evt_...: the same for every delivery of the event, so de-duplicate by it. */
  id: string;
  type: T;
  created_at: string;
  livemode: boolean;
  /** The object exactly as its GET endpoint showed it when the event happened. */
  data: D;
}

/**
 * An event. Narrow on `type`: card transaction events carry the transaction
 * as GET /api/v2/transactions/:id shows it, transfer events the status
 * `result`, batch.closed the batch, schedule events the recurring schedule
 * after the run.
 */
export type PayrailEvent =
  | EventBase<Exclude<TransactionEventType, RefusedTransactionEventType>, ChargeApprovedWire>
  | EventBase<RefusedTransactionEventType, ChargeDeclinedWire>
  | EventBase<TransferEventType, StatusResultWire>
  | EventBase<'batch.closed', BatchWire>
  | EventBase<ScheduleEventType, ScheduleWire>;

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  created_at: string;
  /** Why Payrail disabled the endpoint (every delivery failed for 3 days), or null. */
  disabled_reason: string | null;
}

/** Creation and rotation only: `signature` is the signing secret, shown this once. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  signature: string;
}

/** Body of POST /api/v2/webhooks. */
export interface WebhookEndpointInput {
  url: string;
  /** Default: every event type. */
  events?: EventType[];
}

/** Body of PATCH /api/v2/webhooks/:id: the URL, the event types (empty: all) or enabled (enabling clears a disabling by Payrail). */
export type WebhookEndpointChanges = Partial<WebhookEndpointInput & Pick<WebhookEndpoint, 'enabled'>>;

/**
 * An accept.blue-shaped webhook (docs/acceptblue-compatibility.md): made with
 * accept.blue's fields, read with its integer id and its `signature` (the
 * secret, shown on every read, as accept.blue does). Its deliveries are
 * accept.blue's envelope (AcceptBlueDelivery), checked with verifyAcceptBlueWebhook.
 */
export interface AcceptBlueWebhook {
  id: number;
  webhook_url: string;
  description: string | null;
  active: boolean;
  signature: string;
}

/** Body of POST /api/v2/webhooks for an accept.blue webhook: a URL already registered is refused (409, duplicate_webhook). */
export interface AcceptBlueWebhookInput {
  /** At most 255 characters; https (the sandbox also takes http). */
  webhook_url: string;
  /** 1 to 255 characters. */
  description?: string;
  /** Default true. */
  active?: boolean;
}

/** Body of PATCH /api/v2/webhooks/:id for an accept.blue webhook. */
export type AcceptBlueWebhookChanges = Partial<AcceptBlueWebhookInput>;

/** One entry of GET /api/v2/webhooks: each endpoint in the shape it was made in. */
export type ListedWebhook = WebhookEndpoint | AcceptBlueWebhook;

/** The body of a delivery to an accept.blue webhook. */
export interface AcceptBlueDelivery {
  event: 'transaction' | 'batch';
  /** succeeded, updated, declined, error or status (transactions); closed (batches). */
  type: string;
  /** charge, credit, refund, adjust, void, or a status; null for a batch. */
  subType: string | null;
  /** The same for every delivery of one event: de-duplicate by it. */
  id: string;
  timestamp: string;
  /** The processing response (reference_number, transaction, ...) in accept.blue's form, or the batch. */
  data: Record<string, unknown>;
}

/** POST /api/v2/events/:id/resend's answer. */
export interface EventResent {
  id: string;
  /** Deliveries queued: one per enabled endpoint subscribed to the type. */
  deliveries: number;
}

export interface EventPage {
  data: PayrailEvent[];
  has_more: boolean;
}

export interface EventFilters {
  type?: EventType;
  /** ISO 8601 timestamps (inclusive). */
  created_from?: string;
  created_to?: string;
  /** 1 to 100, default 10. */
  limit?: number;
  /** The id of the last event of the previous page: the next page, older events. */
  starting_after?: string;
  /** The id of the first event of a page: the page before it, the newer events nearest to it (not with starting_after). */
  ending_before?: string;
}

/** The code of every verifyWebhook refusal. */
export const WEBHOOK_SIGNATURE_ERROR = 'invalid_signature';
/** Payrail-Signature timestamps this far from now are refused (replay protection). */
export const WEBHOOK_TOLERANCE_DEFAULT_S = 300;

export type HeadersInput = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: HeadersInput, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

const encoder = new TextEncoder();

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, encoder.encode(text)));
  return Array.from(signature, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Compares in time that does not depend on where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function refused(message: string): PayrailError {
  return new PayrailError(WEBHOOK_SIGNATURE_ERROR, 0, message);
}

/**
 * Checks a webhook delivery and returns its event. `rawBody` must be the
 * body exactly as received (before any JSON parsing); `headers` a Fetch
 * Headers or Node's `request.headers`; `secret` the endpoint's signing
 * secret. Both signatures must match: `Payrail-Signature` (HMAC-SHA256 of
 * "t.body", t within `tolerance_s` of now) and `X-Signature` (HMAC-SHA256 of
 * the body). Throws a PayrailError with code `invalid_signature` otherwise.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeadersInput,
  secret: string,
  options: { tolerance_s?: number; now_ms?: number } = {},
): Promise<PayrailEvent> {
  if (typeof secret !== 'string' || secret === '') throw inputError('invalid_request', 'secret must be the endpoint signing secret (whsec_...)');
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = header(headers, 'payrail-signature');
  const match = signed === null ? null : /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(signed.trim());
  if (match === null) throw refused('Payrail-Signature header is missing or malformed');
  const t = Number(match[1]);
  const toleranceS = options.tolerance_s ?? WEBHOOK_TOLERANCE_DEFAULT_S;
  const nowS = Math.floor((options.now_ms ?? Date.now()) / 1000);
  if (Math.abs(nowS - t) > toleranceS) throw refused(`Payrail-Signature timestamp is more than ${toleranceS} s from now (a replay, or a clock out of step)`);
  if (!sameText(await hmacHex(secret, `${t}.${body}`), match[2]!)) throw refused('Payrail-Signature does not match the body and secret');
  const plain = header(headers, 'x-signature');
  if (plain === null || !sameText(await hmacHex(secret, body), plain.trim().toLowerCase()))
    throw refused('X-Signature is missing or does not match the body and secret');
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw refused('the signed body is not JSON');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'string') throw refused('the signed body is not an event');
  return event as PayrailEvent;
}

/**
 * Checks a delivery to an accept.blue webhook as accept.blue's integrations
 * do and returns its body: `X-Signature` must be the hex HMAC-SHA256 of
 * `rawBody` (exactly as received) keyed by the webhook's `signature`. Throws
 * a PayrailError with code `invalid_signature` otherwise.
 */
export async function verifyAcceptBlueWebhook(rawBody: string | Uint8Array, headers: HeadersInput, signature: string): Promise<AcceptBlueDelivery> {
  if (typeof signature !== 'string' || signature === '') throw inputError('invalid_request', "signature must be the webhook's signature (its secret)");
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const plain = header(headers, 'x-signature');
  if (plain === null || !sameText(await hmacHex(signature, body), plain.trim().toLowerCase()))
    throw refused('X-Signature is missing or does not match the body and signature');
  let delivery: unknown;
  try {
    delivery = JSON.parse(body);
  } catch {
    throw refused('the signed body is not JSON');
  }
  if (typeof delivery !== 'object' || delivery === null || typeof (delivery as { event?: unknown }).event !== 'string') {
    throw refused('the signed body is not an accept.blue delivery');
  }
  return delivery as AcceptBlueDelivery;
}

/** An accept.blue webhook's id: a positive integer. */
export function acceptBlueWebhookId(id: number): string {
  if (!Number.isSafeInteger(id) || id < 1)
    throw inputError('invalid_request', `id must be an accept.blue webhook id (a positive integer), got ${JSON.stringify(id)}`);
  return String(id);
}

/** The event list's query string, refusing bad filters before any request. */
export function eventQuery(filters: EventFilters): string {
  const query = new URLSearchParams();
  if (filters.type !== undefined) {
    if (!(EVENT_TYPES as readonly string[]).includes(filters.type)) throw inputError('invalid_request', `type must be one of ${EVENT_TYPES.join(', ')}`);
    query.set('type', filters.type);
  }
  if (filters.starting_after !== undefined && filters.ending_before !== undefined)
    throw inputError('invalid_request', 'send starting_after or ending_before, not both');
  for (const field of ['created_from', 'created_to', 'starting_after', 'ending_before'] as const) {
    const value = filters[field];
    if (value !== undefined) query.set(field, value);
  }
  if (filters.limit !== undefined) {
    if (!Number.isInteger(filters.limit) || filters.limit < 1 || filters.limit > 100)
      throw inputError('invalid_request', 'limit must be an integer from 1 to 100');
    query.set('limit', String(filters.limit));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

const ENDPOINT_ID = /^we_[0-9A-Za-z]{16}$/;
const EVENT_ID = /^evt_[0-9]{1,16}$/;

export function endpointId(id: string): string {
  if (typeof id !== 'string' || !ENDPOINT_ID.test(id))
    throw inputError('invalid_request', `id must be a webhook endpoint id (we_...), got ${JSON.stringify(id)}`);
  return id;
}

export function eventId(id: string): string {
  if (typeof id !== 'string' || !EVENT_ID.test(id)) throw inputError('invalid_request', `id must be an event id (evt_...), got ${JSON.stringify(id)}`);
  return id;
}
