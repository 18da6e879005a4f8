// Authorizations not captured within their lifetime (7 days, docs/api-decisions.md
// section 10) expire: the worker marks them, in bounded batches, on the
// service clock. Nothing was credited for them and nothing is posted; a
// capture racing the expiry is decided by the same row (store/charge-operations.ts).
import { AUTHORIZATION_LIFETIME_MS } from '../../domain/card-lifecycle.ts';
import type { Service } from '../../service.ts';
import { expireAuthorizations, hasExpiringAuthorizations } from '../../store/charge-operations.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { emitTransactionEvent } from '../../store/event-outbox.ts';

/** Authorizations expired per call. */
export const EXPIRY_BATCH_MAX = 500;

/** Expires one batch of authorizations past their lifetime; returns how many. A read first, so an idle worker writes nothing. */
export async function expireDueAuthorizations(deps: Pick<Service, 'db' | 'clock'>, limit = EXPIRY_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const createdAtOrBeforeMs = nowMs - AUTHORIZATION_LIFETIME_MS;
  if (!(await deps.db.read((tx) => hasExpiringAuthorizations(tx, createdAtOrBeforeMs)))) return 0;
  return deps.db.write(async (tx) => {
    const expired = await expireAuthorizations(tx, createdAtOrBeforeMs, nowMs, limit);
    for (const row of expired) await emitTransactionEvent(tx, EVENT_VIEWS, 'charge.expired', row.merchant_id, Number(row.pk), nowMs);
    return expired.length;
  });
}
