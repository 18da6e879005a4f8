// The Idempotency-Key of a check void (behaviour.md section 17): a void
// writes no row of its own, so its key is reserved in a transaction of its
// own before the void is written, completed with the reply once the network
// answered, left in progress when it did not (a same-key retry then reads
// the check as it is once the void's time is up), and released when the void
// was refused (a refused request keeps no key, as a card operation's
// refusal rolls its key back).
import type { Db } from '../db.ts';
import { completeKey, IN_PROGRESS, reserveKey } from '../idempotency.ts';

export interface OperationKey {
  readonly sourceId: string;
  readonly idemKey: string;
  readonly requestHash: string;
  readonly ttlMs: number;
}

/** Reserves the key; false when another request holds it (replay it). */
export function reserveOperationKey(db: Db, key: OperationKey, nowMs: number): Promise<boolean> {
  return db.write((tx) =>
    reserveKey(tx, { sourceId: key.sourceId, idemKey: key.idemKey, requestHash: key.requestHash, nowMs, staleAtOrBeforeMs: nowMs - key.ttlMs }),
  );
}

export function completeOperationKey(db: Db, key: OperationKey, json: string): Promise<void> {
  return db.write((tx) => completeKey(tx, key.sourceId, key.idemKey, 200, json));
}

/** Frees a key still in progress whose request was refused. */
export async function releaseOperationKey(db: Db, key: OperationKey): Promise<void> {
  await db.write((tx) =>
    tx.run('DELETE FROM idempotency_keys WHERE source_id = ? AND idem_key = ? AND status_code = ?', [key.sourceId, key.idemKey, IN_PROGRESS]),
  );
}
