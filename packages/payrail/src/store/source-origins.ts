// Page origins allowed to show a payin source's hosted card form (table
// source_origins). Every function takes the merchant id and checks the
// source belongs to it in the same statement, so another merchant's source
// reads as absent.
import type { Tx } from './db.ts';

/** Up to `limit` origins of a source of this merchant, in the order they were added. */
export async function listSourceOrigins(tx: Tx, merchantId: string, sourceId: string, limit: number): Promise<string[]> {
  const rows = await tx.all<{ origin: string }>(
    `SELECT o.origin FROM source_origins o JOIN sources s ON s.id = o.source_id
     WHERE o.source_id = ? AND s.merchant_id = ? ORDER BY o.created_at_ms, o.origin LIMIT ?`,
    [sourceId, merchantId, limit],
  );
  return rows.map((r) => r.origin);
}

/** Origins of the sources of one merchant, by source id, for its credentials page. */
export async function listOriginsOfMerchant(tx: Tx, merchantId: string, limit: number): Promise<Array<{ source_id: string; origin: string }>> {
  return tx.all<{ source_id: string; origin: string }>(
    `SELECT o.source_id, o.origin FROM source_origins o JOIN sources s ON s.id = o.source_id
     WHERE s.merchant_id = ? ORDER BY o.source_id, o.created_at_ms, o.origin LIMIT ?`,
    [merchantId, limit],
  );
}

/**
 * Adds an origin to an active source of this merchant while it has fewer
 * than `originsMax`: one conditional statement. Returns false when nothing
 * was added (no such active source, already listed, or the list is full).
 */
export async function addSourceOrigin(
  tx: Tx,
  row: { merchantId: string; sourceId: string; origin: string; nowMs: number; originsMax: number },
): Promise<boolean> {
  const done = await tx.run(
    `INSERT INTO source_origins (source_id, origin, created_at_ms)
     SELECT s.id, ?, ? FROM sources s
     WHERE s.id = ? AND s.merchant_id = ? AND s.revoked_at_ms IS NULL
       AND (SELECT COUNT(*) FROM source_origins o WHERE o.source_id = s.id) < ?
     ON CONFLICT (source_id, origin) DO NOTHING`,
    [row.origin, row.nowMs, row.sourceId, row.merchantId, row.originsMax],
  );
  return done.changes === 1;
}

/** Removes an origin from a source of this merchant; false when it was not listed. */
export async function removeSourceOrigin(tx: Tx, merchantId: string, sourceId: string, origin: string): Promise<boolean> {
  const done = await tx.run(
    `DELETE FROM source_origins WHERE source_id = ? AND origin = ?
       AND source_id IN (SELECT id FROM sources WHERE merchant_id = ?)`,
    [sourceId, origin, merchantId],
  );
  return done.changes === 1;
}
