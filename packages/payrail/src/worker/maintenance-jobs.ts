// Store upkeep the worker does on its own schedule; like the security jobs it
// runs at most once per interval of the service clock and never counts as
// work, so an idle worker stays idle.
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
