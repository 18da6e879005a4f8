// Store upkeep the worker does on its own schedule; like the security jobs it
// runs at most once per interval of the service clock and never counts as
// work, so an idle worker stays idle.
import { dayToReconcile, reconcileDepsOf, reconcileProcessorDay } from '../flows/operations/processor-reconciliation.ts';
import { refreshTableStatistics } from '../flows/operations/table-statistics.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

/**
 * How often the worker looks for tables that changed enough to analyze (one
 * catalogue query). More often than autovacuum's minute (autovacuum_naptime):
 * a table that grows from empty, as every table of a new deployment does,
 * is planned as if nearly empty until its first ANALYZE, and a minute of
 * that was measured to cost a lot. With no statistics yet, a capture's
 * update of one charge by its primary key was planned on the merchant's
 * (merchant, stage) index instead and read every authorized charge of the
 * merchant: 3,000 to 3,300 us of PostgreSQL's CPU per capture, 399 captures/s.
 * The thresholds (store/table-statistics.ts) keep the analyses themselves
 * few: each needs a tenth of the table to have changed since the last.
 */
export const STATISTICS_INTERVAL_MS = 5_000;

export function tableStatisticsJob(service: Service): Job {
  let nextAtMs = 0;
  let told = false;
  return {
    name: 'table-statistics',
    async runOnce() {
      const nowMs = service.clock.nowMs();
      if (nowMs < nextAtMs) return 0;
      nextAtMs = nowMs + STATISTICS_INTERVAL_MS;
      const round = await refreshTableStatistics(service);
      if (!round.autovacuum && !told) {
        told = true;
        service.log.warn("PostgreSQL's autovacuum is off: the worker analyzes Payrail's tables itself; dead rows still need VACUUM");
      }
      if (round.analyzed.length > 0) service.log.debug({ tables: round.analyzed }, 'table statistics refreshed');
      return 0;
    },
  };
}

/** How often the worker looks whether a day still needs reconciling with the card processor. */
export const RECONCILIATION_CHECK_INTERVAL_MS = 60_000;
/**
 * Yesterday is reconciled from 02:00 UTC: after Payrail's default daily close
 * (00:00) and after the processor's cut-off of the day before, with time for
 * both to finish. A worker that was down then reconciles when it comes back.
 */
export const RECONCILIATION_AFTER_MS = 2 * 60 * 60_000;
/**
 * How many ended days the daily job looks back: a day missed while every
 * worker was down (or that failed and waits for its retry) is still
 * reconciled when one comes back within this many days; an older one only
 * with `payrail reconcile processor --date`.
 */
export const RECONCILIATION_LOOKBACK_DAYS = 7;

/**
 * The daily reconciliation with the card processor. Every worker runs this
 * job; the day's lease in the store (claimReconciliationDay) lets one of them
 * do the day. Each check takes the oldest of the last
 * RECONCILIATION_LOOKBACK_DAYS ended days (yesterday only from
 * RECONCILIATION_AFTER_MS) that is neither done nor held by a lease or a
 * retry time, one day per check. The run (up to SETTLEMENTS_TIMEOUT_MS of
 * processor reads, then one write) goes on in the background, one at a time
 * in this process, so the worker's other jobs keep running; the worker's
 * stop aborts it and waits for it to end. A processor without settlements
 * (the sandbox) has nothing to compare: the job says so once and does nothing.
 */
export function processorReconciliationJob(service: Service): Job {
  const deps = reconcileDepsOf(service);
  let nextAtMs = 0;
  let told = false;
  let inFlight: Promise<void> | null = null;
  const stopping = new AbortController();

  return {
    name: 'reconciliation.processor-daily',
    async runOnce() {
      if (inFlight !== null || stopping.signal.aborted) return 0;
      const nowMs = service.clock.nowMs();
      if (nowMs < nextAtMs) return 0;
      nextAtMs = nowMs + RECONCILIATION_CHECK_INTERVAL_MS;
      if (deps.processor.settlements === undefined) {
        if (!told) service.log.info({ processor: deps.processor.name }, 'the card processor lists no settlements: nothing to reconcile with');
        told = true;
        return 0;
      }
      const day = await dayToReconcile(deps, { nowMs, lookbackDays: RECONCILIATION_LOOKBACK_DAYS, yesterdayFromMs: RECONCILIATION_AFTER_MS });
      if (day === null) return 0;
      inFlight = reconcileProcessorDay(deps, { day, force: false, signal: stopping.signal })
        .then(
          () => undefined,
          (error: unknown) => service.log.error({ err: error, day }, 'processor reconciliation failed; the daily job tries again later'),
        )
        .finally(() => {
          inFlight = null;
        });
      return 0;
    },
    async stop() {
      stopping.abort(new Error('the worker is stopping'));
      await inFlight;
    },
  };
}
