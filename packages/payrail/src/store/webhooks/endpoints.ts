// The webhook endpoint commands and queries the flows submit
// (flows/webhooks/endpoints.ts decides; the statements are
// store/webhook-endpoints.ts).
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import {
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  getEndpoint,
  insertEndpoint,
  listEndpoints,
  setEndpointSecret,
  updateEndpoint,
} from '../webhook-endpoints.ts';

export type NewEndpoint = Parameters<typeof insertEndpoint>[1];

/** Adds an endpoint unless the merchant already has `endpointsMax`; the count and the insert are one transaction. */
export function createEndpoint(db: Db, endpoint: NewEndpoint, endpointsMax: number): Promise<EndpointRow | 'too_many' | undefined> {
  return command(db, async (tx) => {
    if ((await countEndpoints(tx, endpoint.merchantId)) >= endpointsMax) throw new Refusal('too_many' as const);
    await insertEndpoint(tx, endpoint);
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
): Promise<EndpointRow | undefined> {
  return db.write(async (tx) => {
    if (!(await updateEndpoint(tx, merchantId, id, change, nowMs))) return undefined;
    return getEndpoint(tx, merchantId, id);
  });
}

/** Replaces the signing secret and answers the endpoint; undefined when the merchant has no such endpoint. */
export function replaceEndpointSecret(db: Db, merchantId: string, id: string, secretEnc: Buffer, nowMs: number): Promise<EndpointRow | undefined> {
  return db.write(async (tx) => {
    if (!(await setEndpointSecret(tx, merchantId, id, secretEnc, nowMs))) return undefined;
    return getEndpoint(tx, merchantId, id);
  });
}

/** False when the merchant has no such endpoint. */
export function removeEndpoint(db: Db, merchantId: string, id: string): Promise<boolean> {
  return db.write((tx) => deleteEndpoint(tx, merchantId, id));
}
