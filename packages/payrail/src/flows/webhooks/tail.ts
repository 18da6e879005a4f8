// `payrail events tail` (docs/api-decisions.md section 11): a merchant's
// events as they happen, read from the event log (so it sees what every
// process writes), optionally forwarded to a local URL signed exactly like a
// webhook delivery, with a secret of the operator's choice or a fresh one.
import { signWebhook } from '../../crypto/webhook-signature.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { Secret } from '../../domain/secret.ts';
import { DELIVERY_TIMEOUT_MS, RESPONSE_BODY_BYTES_MAX } from '../../domain/webhooks.ts';
import { sendWebhook, type WebhookResponse } from '../../providers/webhook-sender.ts';
import { eventsAfterPk, lastEventPkOf } from '../../store/webhooks/events.ts';
import { eventIdOf, eventJson, type EventDeps, livemodeOf } from './events.ts';

/** Events read per poll. */
const TAIL_BATCH_MAX = 100;
const TAIL_POLL_MS = 250;

export interface TailedEvent {
  readonly id: string;
  readonly type: string;
  readonly created_at: string;
  readonly json: string;
}

export const newTailSecret = (): string => `whsec_${randomBase62(32)}`;

/**
 * Calls `onEvent` for each event of the merchant written after the call
 * started, oldest first, until `signal` aborts or `count` events were seen.
 * `ready` is called once the starting point is fixed.
 */
export async function tailEvents(
  deps: Pick<EventDeps, 'db' | 'config'>,
  merchantId: string,
  options: { signal: AbortSignal; count?: number; ready?: () => void; onEvent: (event: TailedEvent) => Promise<void> },
): Promise<number> {
  let afterPk = await lastEventPkOf(deps.db, merchantId);
  options.ready?.();
  const livemode = livemodeOf(deps.config);
  let seen = 0;
  while (!options.signal.aborted) {
    const rows = await eventsAfterPk(deps.db, merchantId, afterPk, TAIL_BATCH_MAX);
    for (const row of rows) {
      afterPk = Number(row.pk);
      await options.onEvent({
        id: eventIdOf(afterPk),
        type: row.type,
        created_at: new Date(Number(row.created_at_ms)).toISOString(),
        json: eventJson(row, livemode),
      });
      seen += 1;
      if (options.count !== undefined && seen >= options.count) return seen;
    }
    if (rows.length < TAIL_BATCH_MAX) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, TAIL_POLL_MS);
        options.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
  return seen;
}

/** POSTs one event to `url` with the webhook headers and signatures (the operator's own machine: any address). */
export function forwardEvent(event: TailedEvent, url: string, secret: string, nowMs: number): Promise<WebhookResponse> {
  return sendWebhook({
    url,
    body: event.json,
    headers: { 'Content-Type': 'application/json', 'Payrail-Event-Id': event.id, ...signWebhook(new Secret(secret), event.json, nowMs) },
    timeoutMs: DELIVERY_TIMEOUT_MS,
    rule: null,
    responseBodyBytesMax: RESPONSE_BODY_BYTES_MAX,
  });
}
