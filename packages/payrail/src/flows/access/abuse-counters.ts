// The counters behind the abuse limits (docs/api-decisions.md section 13)
// that the HTTP layer and the worker reach: adding request hits to a rate
// limit's shared count, and pruning counters that no longer limit anything.
// Each call is one transaction.
import { ADDRESS_FAILURE_WINDOW_MS, PIN_FAILURES_FORGET_MS, RATE_WINDOW_MS } from '../../domain/auth-limits.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Db } from '../../store/db.ts';
import { addRequestHits, pruneCounters } from '../../store/access/auth-counters.ts';

/** Rows deleted per table per prune: small enough that a prune never holds the writer for long. */
export const COUNTER_PRUNE_BATCH_MAX = 500;

/** Adds this process's `hits` to a bucket's count of the window starting at `windowStartMs`; returns every process's total. */
export async function countRequests(deps: { db: Db }, bucket: string, windowStartMs: number, hits: number): Promise<number> {
  return addRequestHits(deps.db, bucket, windowStartMs, hits);
}

/**
 * Deletes counters that limit nothing any more: rate-limit windows that have
 * passed, address windows that have passed and are not locked, and wrong-PIN
 * counts left alone for a day. Returns how many rows went.
 */
export async function pruneAbuseCounters(deps: { db: Db; clock: Clock }, limit = COUNTER_PRUNE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  return pruneCounters(deps.db, {
    nowMs,
    rateWindowStartMinMs: nowMs - RATE_WINDOW_MS,
    addressWindowStartMinMs: nowMs - ADDRESS_FAILURE_WINDOW_MS,
    pinUpdatedBeforeMs: nowMs - PIN_FAILURES_FORGET_MS,
    limit,
  });
}
