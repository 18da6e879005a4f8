// Store upkeep the worker does on its own schedule; like the security jobs it
// runs at most once per interval of the service clock and never counts as
// work, so an idle worker stays idle.
import { DAY_MS } from '../domain/clock.ts';
import { defaultDay, reconcileDepsOf, reconcileProcessorDay } from '../flows/operations/processor-reconciliation.ts';
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

/** How often the worker looks whether yesterday still needs reconciling with the card processor. */
export const RECONCILIATION_CHECK_INTERVAL_MS = 60_000;
/**
 * Yesterday is reconciled from 02:00 UTC: after Payrail's default daily close
 * (00:00) and after the processor's cut-off of the day before, with time for
 * both to finish. A worker that was down then reconciles when it comes back.
 */
export const RECONCILIATION_AFTER_MS = 2 * 60 * 60_000;

/**
 * The daily reconciliation with the card processor. Every worker runs this
 * job; the day's lease in the store (claimReconciliationDay) lets one of them
 * do the day. A processor without settlements (the sandbox) has nothing to
 * compare: the job says so once and does nothing.
 */
export function processorReconciliationJob(service: Service): Job {
  const deps = reconcileDepsOf(service);
  let nextAtMs = 0;
  let doneDay: string | null = null;
  let told = false;
  return {
    name: 'reconciliation.processor-daily',
    async runOnce() {
      const nowMs = service.clock.nowMs();
      if (nowMs < nextAtMs) return 0;
      nextAtMs = nowMs + RECONCILIATION_CHECK_INTERVAL_MS;
      if (deps.processor.settlements === undefined) {
        if (!told) service.log.info({ processor: deps.processor.name }, 'the card processor lists no settlements: nothing to reconcile with');
        told = true;
        return 0;
      }
      if (nowMs % DAY_MS < RECONCILIATION_AFTER_MS) return 0;
      const day = defaultDay(nowMs);
      if (day === doneDay) return 0;
      const outcome = await reconcileProcessorDay(deps, { day, force: false });
      if (outcome.status === 'done' || (outcome.status === 'skipped' && outcome.reason === 'done')) doneDay = day;
      return 0;
    },
  };
}
