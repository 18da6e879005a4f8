// Idempotency keys of the charge API, scoped per payin source. A row is
// reserved (status_code 0, no response yet) in the same transaction that
// consumes the nonce, and completed with the reply in the transaction that
// records the charge's outcome.
import type { Tx } from './db.ts';

/** status_code of a reserved key whose charge has no reply yet. */
export const IN_PROGRESS = 0;

export interface IdempotencyRow {
  request_hash: string;
  status_code: number;
  response_json: string;
  created_at_ms: number;
}

/**
 * Reserves a key, replacing a completed row created at or before
 * `staleAtOrBeforeMs` (keys
 * live 24 hours even when the pruning job has not reached them yet). Returns
 * false when a live row, or one whose charge is still being made, holds it.
 */
export async function reserveKey(
  tx: Tx,
  key: { sourceId: string; idemKey: string; requestHash: string; nowMs: number; staleAtOrBeforeMs: number },
): Promise<boolean> {
  const result = await tx.run(
    `INSERT INTO idempotency_keys (source_id, idem_key, request_hash, status_code, response_json, created_at_ms)
     VALUES (?, ?, ?, ?, '', ?)
     ON CONFLICT (source_id, idem_key) DO UPDATE
       SET request_hash = excluded.request_hash, status_code = excluded.status_code, response_json = excluded.response_json, created_at_ms = excluded.created_at_ms
       WHERE idempotency_keys.created_at_ms <= ? AND idempotency_keys.status_code <> ?`,
    [key.sourceId, key.idemKey, key.requestHash, IN_PROGRESS, key.nowMs, key.staleAtOrBeforeMs, IN_PROGRESS],
  );
  return result.changes === 1;
}

export async function getKey(tx: Tx, sourceId: string, idemKey: string): Promise<IdempotencyRow | undefined> {
  return tx.get<IdempotencyRow>(
    'SELECT request_hash, status_code, response_json, created_at_ms FROM idempotency_keys WHERE source_id = ? AND idem_key = ?',
    [sourceId, idemKey],
  );
}

/** Stores the reply of a reserved key; a key already completed keeps its first reply. */
export async function completeKey(tx: Tx, sourceId: string, idemKey: string, statusCode: number, responseJson: string): Promise<void> {
  await tx.run('UPDATE idempotency_keys SET status_code = ?, response_json = ? WHERE source_id = ? AND idem_key = ? AND status_code = ?', [
    statusCode,
    responseJson,
    sourceId,
    idemKey,
    IN_PROGRESS,
  ]);
}

export async function hasPrunableKeys(tx: Tx, createdAtOrBeforeMs: number): Promise<boolean> {
  return (await tx.get('SELECT 1 AS one FROM idempotency_keys WHERE created_at_ms <= ? AND status_code <> ? LIMIT 1', [createdAtOrBeforeMs, IN_PROGRESS])) !== undefined;
}

/**
 * Deletes at most `limit` completed keys created at or before `createdAtOrBeforeMs`. A key
 * still in progress stays until its charge is recorded, so a retry can never
 * slip past a charge that is still being made.
 */
export async function pruneKeys(tx: Tx, createdAtOrBeforeMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    `DELETE FROM idempotency_keys WHERE (source_id, idem_key) IN
       (SELECT source_id, idem_key FROM idempotency_keys WHERE created_at_ms <= ? AND status_code <> ? ORDER BY created_at_ms LIMIT ?)`,
    [createdAtOrBeforeMs, IN_PROGRESS, limit],
  );
  return result.changes;
}
