// A create of the payin API that calls no processor (a stored customer, a
// saved card, a recurring schedule), made at most once per Idempotency-Key:
// the key's reservation, the create and the key's reply are one transaction,
// the command's (flows/common/idempotent-create.ts says what it answers).
// A command calls createUnderKey inside its transaction around its create.
import type { Tx } from '../db.ts';
import { completeKey, getKey, reserveKey } from '../idempotency.ts';
import type { KeyClaim } from './charge-reservation.ts';

export type { KeyClaim } from './charge-reservation.ts';

/** What a keyed create answers: the view it made, or the key as an earlier request left it (the flow replays or refuses it). */
export type KeyedCreate<T> =
  | { readonly kind: 'created'; readonly view: T }
  | { readonly kind: 'held'; readonly requestHash: string; readonly statusCode: number; readonly responseJson: string };

/**
 * Reserves the key (when there is one), runs `create`, and keeps its view as
 * the key's reply. A key held already is answered as it stands, nothing
 * written; on PostgreSQL a same-key request running meanwhile waits on the
 * key's row and then finds it held.
 */
export async function createUnderKey<T>(tx: Tx, claim: KeyClaim | null, nowMs: number, create: () => Promise<T>): Promise<KeyedCreate<T>> {
  if (claim === null) return { kind: 'created', view: await create() };
  const { sourceId, idemKey, requestHash, ttlMs } = claim;
  if (!(await reserveKey(tx, { sourceId, idemKey, requestHash, nowMs, staleAtOrBeforeMs: nowMs - ttlMs }))) {
    const held = await getKey(tx, sourceId, idemKey);
    if (held === undefined) throw new Error(`Idempotency-Key of source ${sourceId} neither reserved nor held`);
    return { kind: 'held', requestHash: held.request_hash, statusCode: held.status_code, responseJson: held.response_json };
  }
  const view = await create();
  await completeKey(tx, sourceId, idemKey, 200, JSON.stringify(view));
  return { kind: 'created', view };
}
