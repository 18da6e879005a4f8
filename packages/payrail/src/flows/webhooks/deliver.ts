// Webhook delivery (docs/api-decisions.md section 11): an event's deliveries
// are made with it (store/events.ts); here due deliveries are claimed with a
// lease (after a fan-out of any events written before that), each is POSTed
// signed, and the answer is recorded. Any 2xx within the deadline counts;
// otherwise the delivery is retried with growing delays for 3 days, then
// failed, and an endpoint whose every attempt failed for 3 days is disabled.
// Nothing here runs on a request's path; the worker (worker/webhook-worker.ts)
// bounds how many sends run at once, and each has its own deadline, so a slow
// endpoint holds one slot for at most that long.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { webhookSecretCipherFor } from '../../crypto/webhook-secret.ts';
import { signWebhook } from '../../crypto/webhook-signature.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Secret } from '../../domain/secret.ts';
import {
  DELIVERY_TIMEOUT_MS,
  DISABLED_FOR_FAILING,
  ENDPOINT_FAILING_DISABLE_MS,
  nextAttemptAtMs,
  RESPONSE_BODY_BYTES_MAX,
  retryDelayMs,
} from '../../domain/webhooks.ts';
import { webhookAddressRule } from '../../providers/webhook-address-rule.ts';
import { sendWebhook, type WebhookResponse, type WebhookSender } from '../../providers/webhook-sender.ts';
import type { Service } from '../../service.ts';
import type { Db } from '../../store/db.ts';
import { fanOutEvents } from '../../store/events.ts';
import { claimDueDeliveries, type DeliveryRow, type SendableRow } from '../../store/webhook-deliveries.ts';
import { abandonClaim, deliveriesDue, pauseSlowEndpoints, recordDeliveryAttempt, sendableDelivery } from '../../store/webhooks/deliveries.ts';
import { acceptBlueDeliveryBody } from './acceptblue-delivery.ts';
import { eventJson, eventIdOf, livemodeOf } from './events.ts';

export type { DeliveryRow };

export interface DeliveryDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Pick<Config, 'environment' | 'cardKeyBase64' | 'dataDir' | 'host' | 'trustedProxies' | 'publicUrl' | 'webhookAllowedAddresses'>;
  readonly send: WebhookSender;
  /** The deadline of one send (10 s; tests make a hung endpoint give up sooner). */
  readonly timeoutMs?: number;
  /** Aborted when the worker stops: sends under way end at once, unrecorded, and their claims lapse (they are sent again). */
  readonly signal?: AbortSignal;
}

/** The deliveries of a running service: real HTTP sends with the 10 s deadline. */
export function deliveryDepsOf(service: Pick<Service, 'db' | 'clock' | 'log' | 'config'>): DeliveryDeps {
  return { db: service.db, clock: service.clock, log: service.log.child({ component: 'webhooks' }), config: service.config, send: sendWebhook };
}

/** Events fanned out per call. */
export const FAN_OUT_BATCH_MAX = 200;
/** A claim outlives the send's deadline by this much before another worker may take the delivery. */
const CLAIM_MARGIN_MS = 5_000;
const ERROR_TEXT_MAX = 200;

/** Makes the deliveries of events written before they came with their deliveries (store/events.ts fanOutEvents); returns how many events. */
export function fanOut(deps: Pick<DeliveryDeps, 'db' | 'clock'>, limit = FAN_OUT_BATCH_MAX): Promise<number> {
  return fanOutEvents(deps.db, deps.clock.nowMs(), limit);
}

/** Sends to one endpoint under way at once in one worker, at most: a hung endpoint holds this many slots, never all. */
export const SENDS_PER_ENDPOINT_MAX = 4;
/**
 * How long a slow endpoint (its sends at the limit and one under way a
 * while) is first paused; each further pause of an endpoint still slow is
 * twice as long, up to the send deadline (a hung endpoint's sends end by
 * then). A busy but healthy endpoint is paused briefly or not at all.
 */
export const SLOW_ENDPOINT_POSTPONE_MS = 1_000;

/**
 * Claims up to `limit` due deliveries for this worker, given how many sends
 * to each endpoint it has under way: none to an endpoint already at
 * `perEndpointMax`, so one slow endpoint never takes every slot. The
 * endpoints in `slow` (at the limit, with a send under way for a while) are
 * paused for their `postponeMs`, so deliveries fanned out to them meanwhile
 * wait too; paused endpoints are skipped by the claim without reading their
 * backlog (store/webhook-deliveries.ts).
 */
export async function claimDeliveries(
  deps: Pick<DeliveryDeps, 'db' | 'clock' | 'timeoutMs'>,
  limit: number,
  underWay: ReadonlyMap<string, number> = new Map(),
  options: { perEndpointMax?: number; slow?: ReadonlyArray<{ endpointId: string; postponeMs: number }> } = {},
): Promise<DeliveryRow[]> {
  if (limit <= 0) return [];
  const perEndpointMax = options.perEndpointMax ?? SENDS_PER_ENDPOINT_MAX;
  const nowMs = deps.clock.nowMs();
  if (!(await deliveriesDue(deps.db, nowMs))) return [];
  const slow = options.slow ?? [];
  if (slow.length > 0) {
    const pauses = slow.map(({ endpointId, postponeMs }) => ({ endpointId, dueAtMs: nowMs + postponeMs }));
    await pauseSlowEndpoints(deps.db, pauses);
  }
  const busy = [...underWay].filter(([, count]) => count >= perEndpointMax).map(([id]) => id);
  const claimed = await claimDueDeliveries(
    deps.db,
    nowMs,
    nowMs + (deps.timeoutMs ?? DELIVERY_TIMEOUT_MS) + CLAIM_MARGIN_MS,
    limit,
    busy,
    (endpointId) => perEndpointMax - (underWay.get(endpointId) ?? 0),
  );
  // The event rows may have been committed a moment ago: send nothing a crash could still take back.
  if (claimed.length > 0) await deps.db.synced();
  return claimed;
}

/** Sends one claimed delivery and records the outcome. Returns its outcome, or null when nothing was sent. */
export async function deliver(deps: DeliveryDeps, claim: DeliveryRow): Promise<'delivered' | 'retry' | 'failed' | null> {
  const sendable = await sendableDelivery(deps.db, claim);
  if (sendable === undefined || Number(sendable.enabled) !== 1) {
    await abandonClaim(deps.db, claim, 'endpoint deleted or disabled', deps.clock.nowMs());
    return null;
  }
  const body = await deliveryBody(deps, claim, sendable);
  if (body === null) {
    await abandonClaim(deps.db, claim, 'the event has no accept.blue form, or its transaction is gone', deps.clock.nowMs());
    return null;
  }
  let secret: Secret<string>;
  try {
    secret = webhookSecretCipherFor(deps.config).open(Buffer.from(sendable.secret_enc), claim.endpoint_id);
  } catch (error) {
    // Retrying cannot help (the card-data key changed, or the row was altered): end it, say why, rotate to recover.
    deps.log.error({ endpoint: claim.endpoint_id, err: error }, 'webhook signing secret cannot be opened; rotate the endpoint secret');
    await abandonClaim(deps.db, claim, 'signing secret cannot be opened; rotate it', deps.clock.nowMs());
    return null;
  }
  const eventId = eventIdOf(Number(sendable.event_pk));
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'Payrail-Webhooks/1',
    'Payrail-Event-Id': eventId,
    ...signWebhook(secret, body, deps.clock.nowMs()),
  };
  const response = await deps.send({
    url: sendable.url,
    body,
    headers,
    timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    // Checked again here, on the resolved address: a name may point elsewhere than when the endpoint was made.
    rule: webhookAddressRule(deps.config),
    responseBodyBytesMax: RESPONSE_BODY_BYTES_MAX,
    ...(deps.signal === undefined ? {} : { signal: deps.signal }),
  });
  // Stopped: whether it arrived is unknown, so nothing is recorded; the lapsed claim sends it again (at least once).
  if (deps.signal?.aborted === true) return null;
  return record(deps, claim, eventId, response);
}

/** The body an endpoint takes: Payrail's event, or accept.blue's envelope (null when the event has none). */
function deliveryBody(deps: DeliveryDeps, claim: DeliveryRow, sendable: SendableRow): Promise<string | null> | string {
  if (sendable.format === 'acceptblue') {
    const event = { pk: Number(sendable.event_pk), merchantId: claim.merchant_id, type: sendable.type, dataJson: sendable.data_json };
    return acceptBlueDeliveryBody(deps.db, { ...event, createdAtMs: Number(sendable.event_created_at_ms) });
  }
  return eventJson(
    { pk: sendable.event_pk, merchant_id: claim.merchant_id, type: sendable.type, data_json: sendable.data_json, created_at_ms: sendable.event_created_at_ms },
    livemodeOf(deps.config),
  );
}

async function record(deps: DeliveryDeps, claim: DeliveryRow, eventId: string, response: WebhookResponse): Promise<'delivered' | 'retry' | 'failed' | null> {
  const nowMs = deps.clock.nowMs();
  const ok = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
  const attempts = Number(claim.attempts);
  const retryAtMs = ok ? null : nextAttemptAtMs(Number(claim.created_at_ms), attempts, nowMs);
  const outcome = ok ? 'delivered' : retryAtMs === null ? 'failed' : 'retry';
  const result = {
    statusCode: response.statusCode,
    error: response.error === null ? null : response.error.slice(0, ERROR_TEXT_MAX),
    latencyMs: response.latencyMs,
    responseBody: response.body,
    attemptedAtMs: nowMs,
  };
  // A lapsed claim (someone else claimed it since) changes nothing.
  const recorded = await recordDeliveryAttempt(deps.db, {
    claim: { pk: claim.pk, attempts, endpointId: claim.endpoint_id },
    outcome,
    result,
    retryAtMs,
    nowMs,
    pauseFor: retryDelayMs,
    disableAfterMs: ENDPOINT_FAILING_DISABLE_MS,
    disabledReason: DISABLED_FOR_FAILING,
  });
  if (recorded === 'lapsed') return null;
  // Never the answer's body: it is the endpoint's, and may hold anything.
  const fields = { delivery: claim.pk, event: eventId, endpoint: claim.endpoint_id, attempt: attempts, status: response.statusCode, ms: response.latencyMs };
  if (ok) deps.log.debug(fields, 'webhook delivered');
  if (!ok) deps.log.warn({ ...fields, error: result.error, outcome }, 'webhook delivery attempt failed');
  if (recorded === 'disabled') deps.log.warn({ endpoint: claim.endpoint_id }, 'webhook endpoint disabled: every delivery failed for 3 days');
  return outcome;
}

/**
 * One bounded round for tests and the CLI: fans out, then claims and sends
 * due deliveries, at most `concurrency` at a time, until none is due.
 * Returns how many attempts were made.
 */
export async function deliverDue(deps: DeliveryDeps, concurrency = 8, roundsMax = 100): Promise<number> {
  let attempts = 0;
  for (let round = 0; round < roundsMax; round++) {
    const fanned = await fanOut(deps);
    // Rounds wait for all their sends, so nothing is under way between them: no per-endpoint bound is needed.
    const claims = await claimDeliveries(deps, concurrency, new Map(), { perEndpointMax: concurrency });
    if (claims.length === 0 && fanned === 0) return attempts;
    await Promise.all(claims.map((claim) => deliver(deps, claim)));
    attempts += claims.length;
  }
  return attempts;
}
