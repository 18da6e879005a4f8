// Keeps the payin tables small and card data short-lived: expired nonces
// (with their sealed card numbers) and Idempotency-Keys older than 24 hours
// are deleted in bounded batches.
import type { Clock } from '../domain/clock.ts';
import type { Db } from '../store/db.ts';
import { pruneKeys } from '../store/idempotency.ts';
import { pruneExpiredNonces } from '../store/nonces.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';

/** Rows deleted per table per batch: small enough that a batch never holds the writer for long. */
export const PRUNE_BATCH_MAX = 500;

export async function prunePayinData(deps: { db: Db; clock: Clock }, limit = PRUNE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  return deps.db.write(async (tx) => (await pruneExpiredNonces(tx, nowMs, limit)) + (await pruneKeys(tx, nowMs - IDEMPOTENCY_KEY_TTL_MS, limit)));
}
