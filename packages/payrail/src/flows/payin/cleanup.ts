// Keeps the payin tables small and card data short-lived: expired nonces
// (with their sealed card numbers) and Idempotency-Keys older than 24 hours
// are deleted, and the card numbers approved charges keep for `ref-` charges
// erased after REFERENCE_CARD_RETENTION_MS, in bounded batches. The worker calls this every round, so it
// first looks (a read, outside the write queue) and writes only when there is
// something to delete.
import { DAY_MS } from '../../domain/clock.ts';
import type { Service } from '../../service.ts';
import { eraseExpiredReferenceCards, hasExpiredReferenceCards } from '../../store/charges.ts';
import { hasPrunableKeys, pruneKeys } from '../../store/idempotency.ts';
import { hasExpiredNonces, pruneExpiredNonces } from '../../store/nonces.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';

/** Rows deleted per table per batch: small enough that a batch never holds the writer for long. */
export const PRUNE_BATCH_MAX = 500;

/**
 * How long an approved charge's card stays usable as a `ref-` source
 * (docs/api-decisions.md section 15): 13 months, so an annual renewal made by
 * reference still finds its card; then it is erased.
 */
export const REFERENCE_CARD_RETENTION_MS = 396 * DAY_MS;

export async function prunePayinData(deps: Pick<Service, 'db' | 'clock'>, limit = PRUNE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const keysBeforeMs = nowMs - IDEMPOTENCY_KEY_TTL_MS;
  const cardsBeforeMs = nowMs - REFERENCE_CARD_RETENTION_MS;
  const [nonces, keys, cards] = await deps.db.read(async (tx) => [
    await hasExpiredNonces(tx, nowMs),
    await hasPrunableKeys(tx, keysBeforeMs),
    await hasExpiredReferenceCards(tx, cardsBeforeMs),
  ]);
  if (!nonces && !keys && !cards) return 0;
  return deps.db.write(
    async (tx) =>
      (nonces ? await pruneExpiredNonces(tx, nowMs, limit) : 0) +
      (keys ? await pruneKeys(tx, keysBeforeMs, limit) : 0) +
      (cards ? await eraseExpiredReferenceCards(tx, cardsBeforeMs, limit) : 0),
  );
}
