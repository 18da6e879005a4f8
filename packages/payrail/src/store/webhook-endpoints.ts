// A merchant's webhook endpoints (docs/api-decisions.md sections 11 and 14).
// Every statement is scoped by merchant, so another merchant's endpoint reads
// as unknown. The sealed signing secret of Payrail's own endpoints is
// returned only by the reads the delivery worker and a rotation need; an
// accept.blue endpoint's comes with every read, because accept.blue shows it
// on every read (its integrations read it back from the list).
import type { WebhookFormat } from '../domain/acceptblue-webhooks.ts';
import type { Tx } from './db.ts';

export interface EndpointRow {
  id: string;
  merchant_id: string;
  url: string;
  event_types: string;
  enabled: number;
  failing_since_ms: number | null;
  disabled_reason: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  format: WebhookFormat;
  /** accept.blue's description (accept.blue endpoints only; null when none was given). */
  description: string | null;
  /** accept.blue's integer id (accept.blue endpoints only). */
  number: number | null;
  /** The sealed signing secret of an accept.blue endpoint; null for Payrail's own. */
  acceptblue_secret_enc: Buffer | null;
}

const ENDPOINT_COLUMNS =
  "id, merchant_id, url, event_types, enabled, failing_since_ms, disabled_reason, created_at_ms, updated_at_ms, format, description, number, CASE WHEN format = 'acceptblue' THEN secret_enc END AS acceptblue_secret_enc";

export async function insertEndpoint(
  tx: Tx,
  endpoint: { id: string; merchantId: string; url: string; eventTypes: string; secretEnc: Buffer; nowMs: number },
): Promise<void> {
  await tx.run(
    'INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, enabled, secret_enc, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, 1, ?, ?, ?)',
    [endpoint.id, endpoint.merchantId, endpoint.url, endpoint.eventTypes, endpoint.secretEnc, endpoint.nowMs, endpoint.nowMs],
  );
}

/** An accept.blue endpoint's fields beside a Payrail endpoint's. */
export interface AcceptBlueFields {
  readonly number: number;
  readonly description: string | null;
  readonly enabled: boolean;
}

/**
 * An accept.blue endpoint; false when the merchant has one with this URL
 * already (also when another registration of it committed meanwhile: the
 * unique index decides, and the insert does nothing).
 */
export async function insertAcceptBlueEndpoint(
  tx: Tx,
  endpoint: { id: string; merchantId: string; url: string; eventTypes: string; secretEnc: Buffer; nowMs: number },
  fields: AcceptBlueFields,
): Promise<boolean> {
  const result = await tx.run(
    `INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, enabled, secret_enc, created_at_ms, updated_at_ms, format, description, number)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'acceptblue', ?, ?) ON CONFLICT DO NOTHING`,
    [
      endpoint.id,
      endpoint.merchantId,
      endpoint.url,
      endpoint.eventTypes,
      fields.enabled ? 1 : 0,
      endpoint.secretEnc,
      endpoint.nowMs,
      endpoint.nowMs,
      fields.description,
      fields.number,
    ],
  );
  return result.changes === 1;
}

/** The next accept.blue webhook id: never one handed out before, also under concurrent creations. */
export async function nextWebhookNumber(tx: Tx, nowMs: number): Promise<number> {
  const row = await tx.get<{ number: number }>('INSERT INTO webhook_numbers (created_at_ms) VALUES (?) RETURNING number', [nowMs]);
  if (row === undefined) throw new Error('webhook_numbers returned no number');
  return Number(row.number);
}

export async function getAcceptBlueEndpoint(tx: Tx, merchantId: string, number: number): Promise<EndpointRow | undefined> {
  return tx.get<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE number = ? AND merchant_id = ?`, [number, merchantId]);
}

/** The merchant's accept.blue endpoint with this URL, if any. */
export async function acceptBlueEndpointAt(tx: Tx, merchantId: string, url: string): Promise<EndpointRow | undefined> {
  return tx.get<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? AND url = ? AND format = 'acceptblue'`, [
    merchantId,
    url,
  ]);
}

export async function countEndpoints(tx: Tx, merchantId: string): Promise<number> {
  const row = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE merchant_id = ?', [merchantId]);
  return Number(row?.n ?? 0);
}

export async function getEndpoint(tx: Tx, merchantId: string, id: string): Promise<EndpointRow | undefined> {
  return tx.get<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ? AND merchant_id = ?`, [id, merchantId]);
}

export async function listEndpoints(tx: Tx, merchantId: string): Promise<EndpointRow[]> {
  return tx.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? ORDER BY created_at_ms, id`, [merchantId]);
}

/** Writes the fields given; enabling an endpoint clears Payrail's own disabling and its failure streak. */
export async function updateEndpoint(
  tx: Tx,
  merchantId: string,
  id: string,
  change: { url?: string; eventTypes?: string; enabled?: boolean; description?: string },
  nowMs: number,
): Promise<boolean> {
  const sets = ['updated_at_ms = ?'];
  const params: Array<string | number> = [nowMs];
  if (change.description !== undefined) {
    sets.push('description = ?');
    params.push(change.description);
  }
  if (change.url !== undefined) {
    sets.push('url = ?');
    params.push(change.url);
  }
  if (change.eventTypes !== undefined) {
    sets.push('event_types = ?');
    params.push(change.eventTypes);
  }
  if (change.enabled !== undefined) {
    sets.push('enabled = ?');
    params.push(change.enabled ? 1 : 0);
    if (change.enabled) sets.push('disabled_reason = NULL', 'failing_since_ms = NULL', 'consecutive_failures = 0', 'paused_until_ms = 0');
  }
  const result = await tx.run(`UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = ? AND merchant_id = ?`, [...params, id, merchantId]);
  return result.changes === 1;
}

export async function setEndpointSecret(tx: Tx, merchantId: string, id: string, secretEnc: Buffer, nowMs: number): Promise<boolean> {
  const result = await tx.run('UPDATE webhook_endpoints SET secret_enc = ?, updated_at_ms = ? WHERE id = ? AND merchant_id = ?', [
    secretEnc,
    nowMs,
    id,
    merchantId,
  ]);
  return result.changes === 1;
}

/** Deletes the endpoint and its deliveries. */
export async function deleteEndpoint(tx: Tx, merchantId: string, id: string): Promise<boolean> {
  // The endpoint row first (disabling it locks it), then its deliveries: the order the delivery worker takes them in.
  const found = await tx.run('UPDATE webhook_endpoints SET enabled = 0 WHERE id = ? AND merchant_id = ?', [id, merchantId]);
  if (found.changes !== 1) return false;
  await tx.run('DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND merchant_id = ?', [id, merchantId]);
  const result = await tx.run('DELETE FROM webhook_endpoints WHERE id = ? AND merchant_id = ?', [id, merchantId]);
  return result.changes === 1;
}

/**
 * An attempt failed: starts the failure streak if none is running, counts
 * the failure and pauses the endpoint for `pauseFor(failures)`, but no
 * later than the failed delivery's own next attempt (`retryAtMs`; null when
 * it will not be tried again), which then tells whether the endpoint is
 * back: none of its deliveries is claimed before the pause ends
 * (claimDueDeliveries). One row changes, however many deliveries wait.
 * Returns when the streak started.
 */
export async function markEndpointFailing(
  tx: Tx,
  id: string,
  failed: { nowMs: number; retryAtMs: number | null },
  pauseFor: (failures: number) => number,
): Promise<number> {
  const { nowMs, retryAtMs } = failed;
  const row = await tx.get<{ failing_since_ms: number; consecutive_failures: number }>(
    `UPDATE webhook_endpoints SET failing_since_ms = COALESCE(failing_since_ms, ?), consecutive_failures = consecutive_failures + 1
     WHERE id = ? RETURNING failing_since_ms, consecutive_failures`,
    [nowMs, id],
  );
  if (row === undefined) return nowMs;
  const pausedUntilMs = Math.min(nowMs + pauseFor(Number(row.consecutive_failures)), retryAtMs ?? Number.POSITIVE_INFINITY);
  await tx.run('UPDATE webhook_endpoints SET paused_until_ms = ? WHERE id = ? AND paused_until_ms < ?', [pausedUntilMs, id, pausedUntilMs]);
  return Number(row.failing_since_ms);
}

export async function markEndpointHealthy(tx: Tx, id: string): Promise<void> {
  await tx.run(
    'UPDATE webhook_endpoints SET failing_since_ms = NULL, consecutive_failures = 0, paused_until_ms = 0 WHERE id = ? AND (failing_since_ms IS NOT NULL OR consecutive_failures <> 0)',
    [id],
  );
}

/** Payrail disables an endpoint that kept failing; its pending deliveries fail with it. */
export async function disableFailingEndpoint(tx: Tx, id: string, reason: string, nowMs: number): Promise<boolean> {
  const result = await tx.run('UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at_ms = ? WHERE id = ? AND enabled = 1', [
    reason,
    nowMs,
    id,
  ]);
  if (result.changes !== 1) return false;
  await tx.run("UPDATE webhook_deliveries SET status = 'failed', updated_at_ms = ? WHERE endpoint_id = ? AND status = 'pending'", [nowMs, id]);
  return true;
}
