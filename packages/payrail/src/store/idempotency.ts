// Idempotency keys of the charge API, scoped per payin source. A row is
// reserved (status_code 0, no response yet) in the same transaction that
// consumes the nonce, and completed with the reply in the transaction that
// records the charge's outcome. A charge whose request gave up without the
// processor's answer marks its key OUTCOME_UNKNOWN with the pending reply,
// which replays answer at once until the worker records the answer.
import type { Tx } from './db.ts';

/** An Idempotency-Key of a source as reserved at `reservedAtMs`, to find the row made with it. */
export interface HeldKey {
  readonly merchantId: string;
  readonly sourceId: string;
  readonly idemKey: string;
  readonly reservedAtMs: number;
}

/**
 * The row made with an Idempotency-Key of this source: the first one
 * created at or after the key's (current) reservation, which is the one
 * holding it (a key and its row are written in one transaction with one
 * time, so the index on (merchant_id, created_at_ms) finds it at once).
 * `selectFrom` is the query's `SELECT ... FROM table`; `also`, a further
 * condition on the row.
 */
export function getRowHoldingKey<T>(tx: Tx, selectFrom: string, key: HeldKey, also = ''): Promise<T | undefined> {
  return tx.get<T>(
    `${selectFrom} WHERE merchant_id = ? AND created_at_ms >= ? AND source_id = ? AND idem_key = ?${also === '' ? '' : ` AND ${also}`} ORDER BY created_at_ms, pk LIMIT 1`,
    [key.merchantId, key.reservedAtMs, key.sourceId, key.idemKey],
  );
}

/** status_code of a reserved key whose charge has no reply yet. */
export const IN_PROGRESS = 0;
/**
 * status_code of a key whose charge's request ended without the processor's
 * answer: response_json is the pending reply it gave, which is the charge's
 * current state until the worker records the answer (and completes the key).
 */
export const OUTCOME_UNKNOWN = 1;

/** The status codes of a key whose charge has no answer yet: such a key is never replaced nor pruned. */
const UNANSWERED = `(${IN_PROGRESS}, ${OUTCOME_UNKNOWN})`;

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
 * false when a live row, or one whose charge has no answer yet, holds it.
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
       WHERE idempotency_keys.created_at_ms <= ? AND idempotency_keys.status_code NOT IN ${UNANSWERED}`,
    [key.sourceId, key.idemKey, key.requestHash, IN_PROGRESS, key.nowMs, key.staleAtOrBeforeMs],
  );
  return result.changes === 1;
}

export async function getKey(tx: Tx, sourceId: string, idemKey: string): Promise<IdempotencyRow | undefined> {
  return tx.get<IdempotencyRow>('SELECT request_hash, status_code, response_json, created_at_ms FROM idempotency_keys WHERE source_id = ? AND idem_key = ?', [
    sourceId,
    idemKey,
  ]);
}

/**
 * Stores the reply of a key whose charge had no answer yet (in progress, or
 * its outcome unknown); a key already completed keeps its first reply.
 */
export async function completeKey(tx: Tx, sourceId: string, idemKey: string, statusCode: number, responseJson: string): Promise<void> {
  await tx.run(`UPDATE idempotency_keys SET status_code = ?, response_json = ? WHERE source_id = ? AND idem_key = ? AND status_code IN ${UNANSWERED}`, [
    statusCode,
    responseJson,
    sourceId,
    idemKey,
  ]);
}

/**
 * Marks a key still in progress OUTCOME_UNKNOWN with the pending reply its
 * request gave; a key the worker completed meanwhile keeps its reply.
 */
export async function markKeyOutcomeUnknown(tx: Tx, sourceId: string, idemKey: string, pendingJson: string): Promise<void> {
  await tx.run('UPDATE idempotency_keys SET status_code = ?, response_json = ? WHERE source_id = ? AND idem_key = ? AND status_code = ?', [
    OUTCOME_UNKNOWN,
    pendingJson,
    sourceId,
    idemKey,
    IN_PROGRESS,
  ]);
}

export async function hasPrunableKeys(tx: Tx, createdAtOrBeforeMs: number): Promise<boolean> {
  return (
    (await tx.get(`SELECT 1 AS one FROM idempotency_keys WHERE created_at_ms <= ? AND status_code NOT IN ${UNANSWERED} LIMIT 1`, [createdAtOrBeforeMs])) !==
    undefined
  );
}

/**
 * Deletes at most `limit` completed keys created at or before `createdAtOrBeforeMs`. A key
 * whose charge has no answer yet stays until the answer is recorded, so a
 * retry can never slip past a charge that is still being made or resolved.
 */
export async function pruneKeys(tx: Tx, createdAtOrBeforeMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    `DELETE FROM idempotency_keys WHERE (source_id, idem_key) IN
       (SELECT source_id, idem_key FROM idempotency_keys WHERE created_at_ms <= ? AND status_code NOT IN ${UNANSWERED} ORDER BY created_at_ms LIMIT ?)`,
    [createdAtOrBeforeMs, limit],
  );
  return result.changes;
}
