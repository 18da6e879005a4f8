// Authorizations not captured within their lifetime (7 days, docs/api-decisions.md
// section 10) expire: the worker marks them, in bounded batches, on the
// service clock. Nothing was credited for them and nothing is posted; a
// capture racing the expiry is decided by the same row (store/charge-operations.ts).
import { AUTHORIZATION_LIFETIME_MS } from '../../domain/card-lifecycle.ts';
import type { Service } from '../../service.ts';
import { expireAuthorizationBatch, hasAuthorizationsToExpire } from '../../store/payin/authorization-expiry.ts';
import { EVENT_VIEWS } from '../events/emit.ts';

/** Authorizations expired per call. */
export const EXPIRY_BATCH_MAX = 500;

/** Expires one batch of authorizations past their lifetime; returns how many. A read first, so an idle worker writes nothing. */
export async function expireDueAuthorizations(deps: Pick<Service, 'db' | 'clock'>, limit = EXPIRY_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const createdAtOrBeforeMs = nowMs - AUTHORIZATION_LIFETIME_MS;
  if (!(await hasAuthorizationsToExpire(deps.db, { createdAtOrBeforeMs }))) return 0;
  return expireAuthorizationBatch(deps.db, { createdAtOrBeforeMs, nowMs, limit, views: EVENT_VIEWS });
}
