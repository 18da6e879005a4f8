// Keeps PostgreSQL's table statistics current where its autovacuum is off
// (store/table-statistics.ts explains why that matters). Run by the worker.
import type { Service } from '../../service.ts';
import { analyzeStaleTables, type StatisticsRound } from '../../store/table-statistics.ts';

/** ANALYZE runs outside any write transaction: it takes no row locks, and a plain read connection serves it. */
export function refreshTableStatistics(service: Pick<Service, 'db'>): Promise<StatisticsRound> {
  return service.db.read((tx) => analyzeStaleTables(tx));
}
