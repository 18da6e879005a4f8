// Authorizations past their lifetime, expired by the worker: a read first
// (an idle worker writes nothing), then one write that expires a bounded
// batch and writes each one's event.
import type { Db } from '../db.ts';
import { expireAuthorizations, hasExpiringAuthorizations } from '../charge-operations.ts';
import { type EventViews, emitTransactionEvent } from '../event-outbox.ts';

export function hasAuthorizationsToExpire(db: Db, query: { createdAtOrBeforeMs: number }): Promise<boolean> {
  return db.read((tx) => hasExpiringAuthorizations(tx, query.createdAtOrBeforeMs));
}

/** Expires up to `limit` authorizations made at or before `createdAtOrBeforeMs`; returns how many. */
export function expireAuthorizationBatch(db: Db, input: { createdAtOrBeforeMs: number; nowMs: number; limit: number; views: EventViews }): Promise<number> {
  return db.write(async (tx) => {
    const expired = await expireAuthorizations(tx, input.createdAtOrBeforeMs, input.nowMs, input.limit);
    for (const row of expired) await emitTransactionEvent(tx, input.views, 'charge.expired', row.merchant_id, Number(row.pk), input.nowMs);
    return expired.length;
  });
}
