// Keeps PostgreSQL's table statistics current where its autovacuum is off
// (store/table-statistics.ts explains why that matters). Run by the worker.
import type { Service } from '../../service.ts';
import { refreshStaleStatistics, type StatisticsRound } from '../../store/table-statistics.ts';

export function refreshTableStatistics(service: Pick<Service, 'db'>): Promise<StatisticsRound> {
  return refreshStaleStatistics(service.db);
}
