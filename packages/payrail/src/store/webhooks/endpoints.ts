// The webhook endpoint commands and queries the flows submit
// (flows/webhooks/endpoints.ts decides; the statements are
// store/webhook-endpoints.ts). Each change appends its audit event
// (`audit`) in its own transaction.
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import {
  acceptBlueEndpointAt,
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  getAcceptBlueEndpoint,
  getEndpoint,
  insertAcceptBlueEndpoint,
  insertEndpoint,
  listEndpoints,
  nextWebhookNumber,
  setEndpointSecret,
  updateEndpoint,
} from '../webhook-endpoints.ts';

export type NewEndpoint = Parameters<typeof insertEndpoint>[1];

/** Adds an endpoint unless the merchant already has `endpointsMax`; the count and the insert are one transaction. */
export function createEndpoint(db: Db, endpoint: NewEndpoint, endpointsMax: number, audit: AuditNote): Promise<EndpointRow | 'too_many' | undefined> {
  return command(db, async (tx) => {
    if ((await countEndpoints(tx, endpoint.merchantId)) >= endpointsMax) throw new Refusal('too_many' as const);
    await insertEndpoint(tx, endpoint);
    await appendAuditNote(tx, audit);
    return getEndpoint(tx, endpoint.merchantId, endpoint.id);
  });
}

export function endpointsOf(db: Db, merchantId: string): Promise<EndpointRow[]> {
  return db.read((tx) => listEndpoints(tx, merchantId));
}

export function endpointOf(db: Db, merchantId: string, id: string): Promise<EndpointRow | undefined> {
  return db.read((tx) => getEndpoint(tx, merchantId, id));
}

/** Writes the fields given and answers the endpoint as changed; undefined when the merchant has no such endpoint. */
export function changeEndpoint(
  db: Db,
  merchantId: string,
  id: string,
  change: Parameters<typeof updateEndpoint>[3],
  nowMs: number,
  audit: AuditNote,
): Promise<EndpointRow | undefined> {
  return db.write(async (tx) => {
    if (!(await updateEndpoint(tx, merchantId, id, change, nowMs))) return undefined;
    await appendAuditNote(tx, audit);
    return getEndpoint(tx, merchantId, id);
  });
}

/** Replaces the signing secret and answers the endpoint; undefined when the merchant has no such endpoint. */
export function replaceEndpointSecret(
  db: Db,
  merchantId: string,
  id: string,
  secretEnc: Buffer,
  nowMs: number,
  audit: AuditNote,
): Promise<EndpointRow | undefined> {
  return db.write(async (tx) => {
    if (!(await setEndpointSecret(tx, merchantId, id, secretEnc, nowMs))) return undefined;
    await appendAuditNote(tx, audit);
    return getEndpoint(tx, merchantId, id);
  });
}

/** False when the merchant has no such endpoint. */
export function removeEndpoint(db: Db, merchantId: string, id: string, audit: AuditNote): Promise<boolean> {
  return db.write(async (tx) => {
    if (!(await deleteEndpoint(tx, merchantId, id))) return false;
    await appendAuditNote(tx, audit);
    return true;
  });
}

/**
 * Adds an accept.blue endpoint (docs/acceptblue-compatibility.md) with the
 * next accept.blue id, unless the merchant has `endpointsMax` endpoints or an
 * accept.blue endpoint with this URL already; one transaction.
 */
export function createAcceptBlueEndpoint(
  db: Db,
  endpoint: NewEndpoint & { description: string | null; enabled: boolean },
  endpointsMax: number,
  audit: AuditNote,
): Promise<EndpointRow | 'too_many' | 'duplicate'> {
  return command(db, async (tx) => {
    if ((await countEndpoints(tx, endpoint.merchantId)) >= endpointsMax) throw new Refusal('too_many' as const);
    if ((await acceptBlueEndpointAt(tx, endpoint.merchantId, endpoint.url)) !== undefined) throw new Refusal('duplicate' as const);
    const number = await nextWebhookNumber(tx, endpoint.nowMs);
    const fields = { number, description: endpoint.description, enabled: endpoint.enabled };
    if (!(await insertAcceptBlueEndpoint(tx, endpoint, fields))) throw new Refusal('duplicate' as const);
    const row = await getEndpoint(tx, endpoint.merchantId, endpoint.id);
    if (row === undefined) throw new Error(`webhook endpoint ${endpoint.id} vanished`);
    await appendAuditNote(tx, audit);
    return row;
  });
}

/** The merchant's accept.blue endpoint with this accept.blue id. */
export function acceptBlueEndpointOf(db: Db, merchantId: string, number: number): Promise<EndpointRow | undefined> {
  return db.read((tx) => getAcceptBlueEndpoint(tx, merchantId, number));
}

/**
 * Changes an accept.blue endpoint's URL, description or active flag and
 * answers it as changed; 'duplicate' when another of the merchant's
 * accept.blue endpoints has the new URL; undefined when there is no such endpoint.
 */
export function changeAcceptBlueEndpoint(
  db: Db,
  merchantId: string,
  number: number,
  change: { url?: string; description?: string; enabled?: boolean },
  nowMs: number,
  audit: AuditNote,
): Promise<EndpointRow | 'duplicate' | undefined> {
  return command(db, async (tx) => {
    const row = await getAcceptBlueEndpoint(tx, merchantId, number);
    if (row === undefined) return undefined;
    if (change.url !== undefined && change.url !== row.url && (await acceptBlueEndpointAt(tx, merchantId, change.url)) !== undefined) {
      throw new Refusal('duplicate' as const);
    }
    await updateEndpoint(tx, merchantId, row.id, change, nowMs);
    await appendAuditNote(tx, audit, { target: row.id });
    return getAcceptBlueEndpoint(tx, merchantId, number);
  });
}

/** Deletes an accept.blue endpoint and its deliveries; false when the merchant has no such endpoint. */
export function removeAcceptBlueEndpoint(db: Db, merchantId: string, number: number, audit: AuditNote): Promise<boolean> {
  return db.write(async (tx) => {
    const row = await getAcceptBlueEndpoint(tx, merchantId, number);
    if (row === undefined || !(await deleteEndpoint(tx, merchantId, row.id))) return false;
    await appendAuditNote(tx, audit, { target: row.id });
    return true;
  });
}
