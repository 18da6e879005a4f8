// Store upkeep the worker does on its own schedule; like the security jobs it
// runs at most once per interval of the service clock and never counts as
// work, so an idle worker stays idle.
import { refreshTableStatistics } from '../flows/table-statistics.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

/** autovacuum looks once a minute by default (autovacuum_naptime); so does this. */
const STATISTICS_INTERVAL_MS = 60_000;

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
