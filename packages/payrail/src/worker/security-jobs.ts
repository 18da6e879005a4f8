// Worker jobs that keep security data short-lived: pruning the abuse-limit
// counters that limit nothing any more, and scrubbing erased card data out
// of the store's files. Each runs at most once per interval of the service
// clock and never counts as work (housekeeping must not keep the loop busy,
// nor change what a drain reports), so an idle worker stays idle.
import { pruneAbuseCounters, COUNTER_PRUNE_BATCH_MAX } from '../flows/access/abuse-counters.ts';
import { SCRUB_INTERVAL_MS, scrubErasedCardData } from '../flows/payin/card-data-scrub.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

/** Counters go stale by the minute; looking once a minute keeps the tables small. */
const PRUNE_INTERVAL_MS = 60_000;
/** A scrub kept from finishing (the log in use) is tried again this soon. */
const SCRUB_RETRY_MS = 1000;

export function abuseCountersPruneJob(service: Service): Job {
  let nextAtMs = 0;
  return {
    name: 'abuse-counters.prune',
    async runOnce() {
      const nowMs = service.clock.nowMs();
      if (nowMs < nextAtMs) return 0;
      const pruned = await pruneAbuseCounters(service);
      // A full batch means more may be waiting: look again next round.
      if (pruned < COUNTER_PRUNE_BATCH_MAX) nextAtMs = nowMs + PRUNE_INTERVAL_MS;
      return 0;
    },
  };
}

export function cardDataScrubJob(service: Service): Job {
  let nextAtMs = 0;
  return {
    name: 'card-data.scrub',
    async runOnce() {
      const nowMs = service.clock.nowMs();
      if (nowMs < nextAtMs) return 0;
      nextAtMs = nowMs + ((await scrubErasedCardData(service)) ? SCRUB_INTERVAL_MS : SCRUB_RETRY_MS);
      return 0;
    },
  };
}
