// PostgreSQL plans Payrail's statements from its table statistics, which
// autovacuum keeps current by analyzing a table once a tenth of it changed.
// A server run with autovacuum off never refreshes them: a table created
// empty keeps looking nearly empty to the planner, and the generic plans
// the driver's prepared statements cached while it was (a sequential scan is
// the cheapest way through a few pages) stay in use as the table grows.
// Seen in a 10-minute tokenize + charge soak on such a server: the charge
// read by primary key scanning the whole charges table, 6,000 scans reading
// 210 million rows, and pairs per second falling from 284 to as few as 63.
//
// So where autovacuum is off, the worker analyzes the tables autovacuum
// would have, with autovacuum's default thresholds: ANALYZE refreshes the
// statistics, and every connection re-plans the statements that read the
// table. Where autovacuum is on, this does nothing. (Dead rows are still
// left to autovacuum or the operator: see docs/postgresql.md.)
// SQLite keeps no plans across statements of this kind: nothing to do there.
import type { Db, Tx } from './db.ts';

/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor, PostgreSQL's defaults. */
const ANALYZE_THRESHOLD_ROWS = 50;
const ANALYZE_SCALE_FACTOR = 0.1;
/** Bounds one round's work; the most changed tables go first, the rest next round. */
export const ANALYZE_TABLES_PER_ROUND_MAX = 8;

export interface StatisticsRound {
  /** Whether the server's autovacuum is on (then nothing was done). */
  readonly autovacuum: boolean;
  /** The tables analyzed this round. */
  readonly analyzed: readonly string[];
}

export async function analyzeStaleTables(tx: Tx): Promise<StatisticsRound> {
  if (tx.dialect !== 'postgres') return { autovacuum: true, analyzed: [] };
  const setting = await tx.get<{ autovacuum: string }>("SELECT current_setting('autovacuum') AS autovacuum");
  if (setting?.autovacuum !== 'off') return { autovacuum: true, analyzed: [] };
  const stale = await tx.all<{ relname: string }>(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND n_mod_since_analyze > ?::bigint + ?::float8 * GREATEST(n_live_tup, 0)
     ORDER BY n_mod_since_analyze DESC LIMIT ?`,
    [ANALYZE_THRESHOLD_ROWS, ANALYZE_SCALE_FACTOR, ANALYZE_TABLES_PER_ROUND_MAX],
  );
  const analyzed: string[] = [];
  for (const { relname } of stale) {
    // A name from the catalogue, quoted as an identifier.
    await tx.run(`ANALYZE "${relname.replaceAll('"', '""')}"`);
    analyzed.push(relname);
  }
  return { autovacuum: false, analyzed };
}

/** One round of analyzeStaleTables: ANALYZE takes no row locks, so a plain read connection serves it. */
export function refreshStaleStatistics(db: Db): Promise<StatisticsRound> {
  return db.read((tx) => analyzeStaleTables(tx));
}
