// Request counts of the rate limits (docs/api-decisions.md section 13): one
// row per bucket (a credential or a client address) holding the hits of its
// current fixed window. Adding is one upsert, so every process sharing the
// store counts into the same total.
import type { Tx } from './db.ts';

/**
 * Adds `hits` to the bucket's count in the window starting at
 * `windowStartMs` (a row of an older window starts again) and returns the
 * total of that window, every process's hits included.
 */
export async function addRateLimitHits(tx: Tx, bucket: string, windowStartMs: number, hits: number): Promise<number> {
  const row = await tx.get<{ hits: number }>(
    `INSERT INTO rate_limit_hits (bucket, window_start_ms, hits) VALUES (?, ?, ?)
     ON CONFLICT (bucket) DO UPDATE SET
       hits = CASE WHEN rate_limit_hits.window_start_ms = excluded.window_start_ms THEN rate_limit_hits.hits + excluded.hits ELSE excluded.hits END,
       window_start_ms = excluded.window_start_ms
     RETURNING hits`,
    [bucket, windowStartMs, hits],
  );
  if (row === undefined) throw new Error('counting a request returned no row');
  return Number(row.hits);
}

/** Deletes at most `limit` buckets whose window started before `windowStartMinMs`. */
export async function pruneRateLimitHits(tx: Tx, windowStartMinMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    'DELETE FROM rate_limit_hits WHERE bucket IN (SELECT bucket FROM rate_limit_hits WHERE window_start_ms < ? ORDER BY window_start_ms LIMIT ?)',
    [windowStartMinMs, limit],
  );
  return result.changes;
}
