// A create of stored payment data (a customer, a saved card, a schedule)
// made at most once per Idempotency-Key: the key's reservation, the create
// and the key's reply are one transaction (the caller's), so a refused
// create keeps no key and a committed one replays its reply.
import type { Tx } from '../db.ts';
import { completeKey, getKey, reserveKey } from '../idempotency.ts';

/** An Idempotency-Key to reserve; keys completed at or before `staleAtOrBeforeMs` are replaced. */
export interface CreateKey {
  readonly sourceId: string;
  readonly idemKey: string;
  readonly requestHash: string;
  readonly nowMs: number;
  readonly staleAtOrBeforeMs: number;
}

/** Created now, or the key was held already: the flow compares the request and replays or refuses (nothing was written). */
export type KeyedAnswer<V> =
  | { readonly kind: 'created'; readonly view: V }
  | { readonly kind: 'held'; readonly requestHash: string; readonly statusCode: number; readonly responseJson: string };

/** Runs `create` under the key (if any) and keeps its view as the key's reply. */
export async function createUnderKey<V>(tx: Tx, key: CreateKey | null, create: () => Promise<V>): Promise<KeyedAnswer<V>> {
  if (key === null) return { kind: 'created', view: await create() };
  if (!(await reserveKey(tx, key))) {
    const held = await getKey(tx, key.sourceId, key.idemKey);
    if (held === undefined) throw new Error(`Idempotency-Key of source ${key.sourceId} neither reserved nor held`);
    return { kind: 'held', requestHash: held.request_hash, statusCode: held.status_code, responseJson: held.response_json };
  }
  const view = await create();
  await completeKey(tx, key.sourceId, key.idemKey, 200, JSON.stringify(view));
  return { kind: 'created', view };
}
