// Events are kept 30 days (docs/api-decisions.md section 11, as built):
// older ones are deleted with their deliveries in bounded batches by the
// worker. A read first, so a worker with nothing to delete writes nothing.
import type { Clock } from '../../domain/clock.ts';
import { EVENT_RETENTION_MS } from '../../domain/webhooks.ts';
import type { Db } from '../../store/db.ts';
import { pruneEvents } from '../../store/webhooks/events.ts';

/** Events deleted per call: a batch never holds the writer for long. */
export const EVENT_PRUNE_BATCH_MAX = 500;

export async function pruneOldEvents(deps: { db: Db; clock: Clock }, limit = EVENT_PRUNE_BATCH_MAX): Promise<number> {
  const beforeMs = deps.clock.nowMs() - EVENT_RETENTION_MS;
  return pruneEvents(deps.db, beforeMs, limit);
}
