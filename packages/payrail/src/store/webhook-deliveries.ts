// Webhook deliveries (docs/api-decisions.md section 11): one event to one
// endpoint, claimed by a delivery worker with a lease. A claim moves
// next_attempt_at_ms past the send's deadline and bumps `attempts` in one
// statement (on PostgreSQL skipping rows another worker holds), so two
// workers never send the same attempt; a result is written only while the
// claim is still the latest (attempts unchanged), so a lapsed claim's late
// answer changes nothing.
import type { WebhookFormat } from '../domain/acceptblue-webhooks.ts';
import type { Db, Tx } from './db.ts';
import { byKey } from './by-key.ts';

export interface DeliveryRow {
  pk: number;
  event_pk: number;
  endpoint_id: string;
  merchant_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at_ms: number;
  last_attempt_at_ms: number | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  last_response_body: string | null;
  created_at_ms: number;
}

const DELIVERY_COLUMNS =
  'pk, event_pk, endpoint_id, merchant_id, status, attempts, next_attempt_at_ms, last_attempt_at_ms, last_status_code, last_error, last_latency_ms, last_response_body, created_at_ms';

/** Whether any delivery is due: a read on the partial index, so an idle worker writes nothing. */
export async function hasDueDeliveries(tx: Tx, nowMs: number): Promise<boolean> {
  return (await tx.get("SELECT pk FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at_ms <= ? LIMIT 1", [nowMs])) !== undefined;
}

/**
 * Claims due deliveries until `leaseUntilMs`, endpoint by endpoint: the
 * endpoints that are not paused, not in `skipEndpointIds` (those this worker
 * already has enough sends to) and have a delivery due, oldest due first, up
 * to `limit` endpoints; of each, its oldest due deliveries, as many as
 * `takeOf(endpoint)` allows, up to `limit` in all. Returns them as claimed
 * (attempts already counted). Each step reads an index range of one endpoint,
 * so a paused or slow endpoint's backlog, however long, is never stepped
 * over, and nothing has to be moved out of the way when an endpoint pauses
 * (one endpoint row changes, whatever its backlog).
 */
export async function claimDueDeliveries(
  db: Db,
  nowMs: number,
  leaseUntilMs: number,
  limit: number,
  skipEndpointIds: readonly string[] = [],
  takeOf: (endpointId: string) => number = () => limit,
): Promise<DeliveryRow[]> {
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  const skip = skipEndpointIds.length === 0 ? '' : ` AND e.id NOT IN (${skipEndpointIds.map(() => '?').join(', ')})`;
  return db.write(async (tx) => {
    // Each endpoint's oldest due time and how many are due (counted up to `limit`), from its own index range.
    const endpoints = await tx.all<{ id: string; due: number }>(
      `SELECT id, due FROM (
         SELECT e.id,
           (SELECT MIN(d.next_attempt_at_ms) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') AS due_at_ms,
           (SELECT COUNT(*) FROM (SELECT 1 AS one FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at_ms <= ?
                                  LIMIT ?) AS capped) AS due
         FROM webhook_endpoints e WHERE e.paused_until_ms <= ?${skip}
       ) AS waiting WHERE due_at_ms <= ? ORDER BY due_at_ms, id LIMIT ?`,
      [nowMs, limit, nowMs, ...skipEndpointIds, nowMs, limit],
    );
    const takes: Array<{ id: string; take: number }> = [];
    let left = limit;
    for (const { id, due } of endpoints) {
      const take = Math.min(left, takeOf(id), Number(due));
      if (take <= 0) continue;
      takes.push({ id, take });
      left -= take;
      if (left === 0) break;
    }
    // Sent together (pipelined on PostgreSQL).
    const claimed = await Promise.all(
      takes.map(({ id, take }) =>
        tx.all<DeliveryRow>(
          `UPDATE webhook_deliveries SET next_attempt_at_ms = ?, attempts = attempts + 1, updated_at_ms = ?
           WHERE pk IN (SELECT pk FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at_ms <= ?
                        ORDER BY next_attempt_at_ms LIMIT ?${skipLocked})
           RETURNING ${DELIVERY_COLUMNS}`,
          [leaseUntilMs, nowMs, id, nowMs, take],
        ),
      ),
    );
    return claimed.flat();
  });
}

/**
 * Pauses these endpoints until their `dueAtMs` (endpoints this worker already
 * sends as much to as it may): their deliveries are not claimed before then
 * (claimDueDeliveries), and deliveries fanned out meanwhile are made due then.
 * A pause is never shortened.
 */
export async function pauseEndpoints(tx: Tx, pauses: ReadonlyArray<{ endpointId: string; dueAtMs: number }>): Promise<void> {
  for (const { endpointId, dueAtMs } of pauses) {
    await tx.run('UPDATE webhook_endpoints SET paused_until_ms = ? WHERE id = ? AND paused_until_ms < ?', [dueAtMs, endpointId, dueAtMs]);
  }
}

/** What sending a claimed delivery needs: the event and the endpoint (with its sealed secret). */
export interface SendableRow {
  event_pk: number;
  type: string;
  data_json: string;
  event_created_at_ms: number;
  url: string;
  enabled: number;
  secret_enc: Buffer;
  /** Which body the endpoint takes: Payrail's event or accept.blue's envelope. */
  format: WebhookFormat;
}

export async function sendableOf(tx: Tx, delivery: Pick<DeliveryRow, 'event_pk' | 'endpoint_id'>): Promise<SendableRow | undefined> {
  return tx.get<SendableRow>(
    `SELECT ev.pk AS event_pk, ev.type, ev.data_json, ev.created_at_ms AS event_created_at_ms, en.url, en.enabled, en.secret_enc, en.format
     FROM events ev JOIN webhook_endpoints en ON en.id = ? WHERE ev.pk = ?`,
    [delivery.endpoint_id, delivery.event_pk],
  );
}

export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseBody: string | null;
  attemptedAtMs: number;
}

/**
 * Records an attempt of the claim `attempts`: delivered, pending again at
 * `nextAttemptAtMs`, or failed (`nextAttemptAtMs` null). Returns false when
 * the claim had lapsed and someone else claimed the delivery since.
 */
export async function recordAttempt(
  tx: Tx,
  claim: { pk: number; attempts: number },
  outcome: 'delivered' | 'retry' | 'failed',
  result: AttemptResult,
  nextAttemptAtMs: number,
): Promise<boolean> {
  const status = outcome === 'retry' ? 'pending' : outcome;
  const updated = await tx.run(
    `UPDATE webhook_deliveries SET status = ?, next_attempt_at_ms = ?, last_attempt_at_ms = ?, last_status_code = ?, last_error = ?,
       last_latency_ms = ?, last_response_body = ?, updated_at_ms = ?
     WHERE ${byKey('pk', "attempts = ? AND status = 'pending'")}`,
    [
      status,
      nextAttemptAtMs,
      result.attemptedAtMs,
      result.statusCode,
      result.error,
      result.latencyMs,
      result.responseBody,
      result.attemptedAtMs,
      claim.pk,
      claim.attempts,
    ],
  );
  return updated.changes === 1;
}

/** A delivery whose endpoint is gone or disabled ends without a send. */
export async function abandonDelivery(tx: Tx, claim: { pk: number; attempts: number }, reason: string, nowMs: number): Promise<void> {
  await tx.run(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, updated_at_ms = ? WHERE ${byKey('pk', "attempts = ? AND status = 'pending'")}`,
    [reason, nowMs, claim.pk, claim.attempts],
  );
}

/**
 * A re-send: a new pending delivery of the event to every enabled endpoint of
 * its merchant subscribed to its type, due now. Someone asked for it to go
 * now, so those endpoints' pauses end (the endpoint rows first, the order
 * every path takes them in).
 */
export async function queueResend(tx: Tx, merchantId: string, eventPk: number, eventType: string, nowMs: number): Promise<number> {
  await tx.run(
    "UPDATE webhook_endpoints SET paused_until_ms = 0 WHERE merchant_id = ? AND enabled = 1 AND (event_types = '' OR event_types LIKE ?) AND paused_until_ms > 0",
    [merchantId, `% ${eventType} %`],
  );
  const result = await tx.run(
    `INSERT INTO webhook_deliveries (event_pk, endpoint_id, merchant_id, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
     SELECT ?, id, merchant_id, 'pending', 0, ?, ?, ? FROM webhook_endpoints
     WHERE merchant_id = ? AND enabled = 1 AND (event_types = '' OR event_types LIKE ?)`,
    [eventPk, nowMs, nowMs, nowMs, merchantId, `% ${eventType} %`],
  );
  return result.changes;
}

/** A re-send of one delivery to its own endpoint (the panel's button), due now, its endpoint's pause ended; false when it is not the merchant's. */
export async function queueDeliveryResend(tx: Tx, merchantId: string, deliveryPk: number, nowMs: number): Promise<boolean> {
  await tx.run(
    'UPDATE webhook_endpoints SET paused_until_ms = 0 WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE pk = ? AND merchant_id = ?) AND paused_until_ms > 0',
    [deliveryPk, merchantId],
  );
  const result = await tx.run(
    `INSERT INTO webhook_deliveries (event_pk, endpoint_id, merchant_id, status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
     SELECT event_pk, endpoint_id, merchant_id, 'pending', 0, ?, ?, ? FROM webhook_deliveries WHERE pk = ? AND merchant_id = ?`,
    [nowMs, nowMs, nowMs, deliveryPk, merchantId],
  );
  return result.changes === 1;
}

/** The endpoint's most recent deliveries, newest first. */
export async function recentDeliveries(tx: Tx, merchantId: string, endpointId: string, limit: number): Promise<Array<DeliveryRow & { type: string }>> {
  return tx.all<DeliveryRow & { type: string }>(
    `SELECT ${DELIVERY_COLUMNS.split(', ')
      .map((c) => `d.${c}`)
      .join(', ')}, ev.type
     FROM webhook_deliveries d JOIN events ev ON ev.pk = d.event_pk
     WHERE d.endpoint_id = ? AND d.merchant_id = ? ORDER BY d.pk DESC LIMIT ?`,
    [endpointId, merchantId, limit],
  );
}
