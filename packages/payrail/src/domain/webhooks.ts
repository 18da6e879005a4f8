// Events and webhooks (docs/api-decisions.md sections 11 and 14): the event
// types, the retry schedule, and the rules an endpoint URL must meet.

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

export function isEventType(text: string): text is EventType {
  return (EVENT_TYPES as readonly string[]).includes(text);
}

/** Any 2xx within this long counts as delivered. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A delivery is retried for this long after it was made, then marked failed. */
export const DELIVERY_RETRY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
/** An endpoint whose every attempt failed for this long is disabled. */
export const ENDPOINT_FAILING_DISABLE_MS = 3 * 24 * 60 * 60 * 1000;
/** First retry delay; each next one doubles, up to RETRY_DELAY_MS_MAX. */
export const RETRY_DELAY_MS_MIN = 30_000;
export const RETRY_DELAY_MS_MAX = 6 * 60 * 60 * 1000;
/** At most this much of an endpoint's answer is kept (never logged). */
export const RESPONSE_BODY_BYTES_MAX = 1024;
export const ENDPOINTS_PER_MERCHANT_MAX = 16;
export const ENDPOINT_URL_LENGTH_MAX = 2048;
export const DISABLED_FOR_FAILING = 'every delivery failed for 3 days';
/** Events (and their deliveries) are kept this long, then deleted: every delivery has ended long before. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The delay before retry number `attempts` + 1 (attempts >= 1): 30 s, 1 min, 2 min, ... capped at 6 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_DELAY_MS_MAX, RETRY_DELAY_MS_MIN * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

/**
 * When to try a delivery made at `createdAtMs` again after its attempt
 * number `attempts` failed at `nowMs`; null once its 3 days are over. The
 * last retry is at the end of the window, not past it.
 */
export function nextAttemptAtMs(createdAtMs: number, attempts: number, nowMs: number): number | null {
  const windowEndMs = createdAtMs + DELIVERY_RETRY_WINDOW_MS;
  if (nowMs >= windowEndMs) return null;
  return Math.min(windowEndMs, nowMs + retryDelayMs(attempts));
}

/** The stored form of an endpoint's event types: '' for all, else ' a b ' (matched with LIKE '% type %'). */
export function eventTypesText(types: readonly EventType[] | null): string {
  if (types === null || types.length === 0) return '';
  return ` ${[...new Set(types)].join(' ')} `;
}

export function eventTypesOf(text: string): EventType[] {
  return text === '' ? [...EVENT_TYPES] : (text.trim().split(' ') as EventType[]);
}

/**
 * Why `text` cannot be an endpoint URL in `environment`, or null when it can.
 * Production takes https only; the address it resolves to is checked at every
 * delivery (providers/public-address.ts). Sandbox also takes http (localhost).
 */
export function endpointUrlProblem(text: string, environment: 'sandbox' | 'production'): string | null {
  if (text.length > ENDPOINT_URL_LENGTH_MAX) return `url must be at most ${ENDPOINT_URL_LENGTH_MAX} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url must be an absolute http(s) URL';
  }
  if (url.username !== '' || url.password !== '') return 'url must not carry a user name or password';
  if (url.hash !== '') return 'url must not have a fragment';
  if (environment === 'production' && url.protocol !== 'https:') return 'url must be https in production';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be an http(s) URL';
  return null;
}
