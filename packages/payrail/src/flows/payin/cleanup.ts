// Keeps the payin tables small and card data short-lived: expired nonces
// (with their sealed card numbers) and Idempotency-Keys older than 24 hours
// are deleted, and the card numbers approved charges keep for `ref-` charges
// erased when their time is up (domain/reference-card-retention.ts: 24 hours
// unless the merchant asked to keep the card), approved verifications' after
// REFERENCE_CARD_RETENTION_MS, in bounded batches. The worker calls this every round, so it
// first looks (a read, outside the write queue) and writes only when there is
// something to delete.
import { REFERENCE_CARD_RETENTION_MS } from '../../domain/reference-card-retention.ts';
import type { Service } from '../../service.ts';
import { findPrunablePayinData, prunePayinRows } from '../../store/payin/cleanup.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from '../common/idempotency-replay.ts';

/** Rows deleted per table per batch: small enough that a batch never holds the writer for long. */
export const PRUNE_BATCH_MAX = 500;

/**
 * How long an approved verification's card, and a charge's the merchant asked
 * to keep, stays usable as a `ref-` source (docs/api-decisions.md section 15):
 * 13 months, so an annual renewal made by reference still finds its card.
 */
export { REFERENCE_CARD_RETENTION_MS };

export async function prunePayinData(deps: Pick<Service, 'db' | 'clock'>, limit = PRUNE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const keysBeforeMs = nowMs - IDEMPOTENCY_KEY_TTL_MS;
  const verificationCardsBeforeMs = nowMs - REFERENCE_CARD_RETENTION_MS;
  const bounds = { nowMs, keysBeforeMs, verificationCardsBeforeMs };
  const which = await findPrunablePayinData(deps.db, bounds);
  if (!which.nonces && !which.keys && !which.cards) return 0;
  return prunePayinRows(deps.db, { ...bounds, which, limit });
}
