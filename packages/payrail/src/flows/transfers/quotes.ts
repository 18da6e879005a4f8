// Expired quotes are deleted in bounded batches so the table stays the size
// of the last 15 minutes of checks.
import type { Service } from '../../service.ts';
import { deleteExpiredTransferQuotes } from '../../store/transfers/quotes.ts';

export const QUOTE_SWEEP_BATCH_MAX = 1000;

export async function sweepExpiredQuotes(service: Service, limit = QUOTE_SWEEP_BATCH_MAX): Promise<number> {
  const nowMs = service.clock.nowMs();
  return deleteExpiredTransferQuotes(service.db, nowMs, limit);
}
