// Worker jobs that keep security data short-lived: pruning the abuse-limit
// counters that limit nothing any more, and scrubbing erased card data out
// of the store's files. Each runs at most once per interval of the service
// clock and never counts as work (housekeeping must not keep the loop busy,
// nor change what a drain reports), so an idle worker stays idle.
import { pruneAbuseCounters, COUNTER_PRUNE_BATCH_MAX } from '../flows/access/abuse-counters.ts';
import { SCRUB_INTERVAL_MS, scrubErasedCardData } from '../flows/payin/card-data-scrub.ts';
import { refreshKeyRingIfStale } from '../flows/card-keys/ring-loader.ts';
import { RESEAL_BATCH_ROWS, resealBatch, resealState, restartReseal } from '../flows/card-keys/reseal.ts';
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

/** With nothing left to re-seal, the job looks again this often (data sealed late under an older key by a process that had not loaded the new one). */
const RESEAL_IDLE_MS = 60_000;

/**
 * Reads the worker's card-data keys again every RING_REFRESH_MS, first in
 * each round: a ring whose last successful load is older than the
 * activation delay refuses to seal (crypto/key-ring.ts), so the jobs that
 * seal (a schedule's charge of a saved card) find it fresh.
 */
export function cardKeyRingRefreshJob(service: Service): Job {
  return {
    name: 'card-keys.refresh',
    async runOnce() {
      await refreshKeyRingIfStale(service);
      return 0;
    },
  };
}

/**
 * Re-seals card data under the newest card-data key (flows/card-keys/reseal.ts),
 * one bounded batch per round while there is some, so it shares the worker
 * with the payment jobs; resumes where it stopped after a restart. With one
 * key in the ring there is nothing to do and it asks the store nothing.
 */
export function cardKeyResealJob(service: Service): Job {
  let idleUntilMs = 0;
  let idleKeyId = 0;
  return {
    name: 'card-keys.reseal',
    batchMax: RESEAL_BATCH_ROWS,
    async runOnce() {
      // Each worker round: the worker's card-data keys are read again every RING_REFRESH_MS.
      await refreshKeyRingIfStale(service);
      const keys = resealState(service);
      if (keys.activeKeys <= 1) return 0;
      const nowMs = service.clock.nowMs();
      if (keys.sealingKeyId === idleKeyId && nowMs < idleUntilMs) return 0;
      if (keys.sealingKeyId === idleKeyId) await restartReseal(service);
      const round = await resealBatch(service);
      if (round.finished) {
        idleKeyId = keys.sealingKeyId;
        idleUntilMs = nowMs + RESEAL_IDLE_MS;
        return 0;
      }
      idleKeyId = 0;
      return round.scanned;
    },
  };
}
