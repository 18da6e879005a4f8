// Wrong PINs in a row per source API key, and the lock they earn
// (docs/api-decisions.md section 13). Counted by one conditional upsert, so
// processes sharing the store count together and concurrent attempts cannot
// all read the same count and slip past the limit. The rules (limit, lock
// length) belong to src/domain/auth-limits.ts and src/flows/access/authenticate.ts.
import type { Tx } from './db.ts';

export interface PinFailureCount {
  /** Wrong PINs in a row, this one included. */
  readonly failures: number;
  /** When the lock ends; 0 when the key is not locked. */
  readonly locked_until_ms: number;
}

/**
 * Counts a wrong PIN for a key. A lock that has ended starts the count again
 * at 1; the wrong PIN that brings the count to `failuresMax` locks the key
 * until `lockedUntilMs`. Later ones (counted while it is locked, by attempts
 * that raced past the lock) are counted but do not lengthen the lock: the
 * caller answers them as locked, whatever their PIN.
 */
export async function countWrongPin(
  tx: Tx,
  attempt: { credentialId: string; nowMs: number; failuresMax: number; lockedUntilMs: number },
): Promise<PinFailureCount> {
  // What a first wrong PIN sets (a limit of 1 locks at once).
  const firstLockMs = attempt.failuresMax <= 1 ? attempt.lockedUntilMs : 0;
  // In SET every right-hand side reads the row as it was before the update.
  const ended = '(pin_failures.locked_until_ms > 0 AND pin_failures.locked_until_ms <= ?)';
  const row = await tx.get<{ failures: number; locked_until_ms: number }>(
    `INSERT INTO pin_failures (credential_id, failures, locked_until_ms, updated_at_ms) VALUES (?, 1, ?, ?)
     ON CONFLICT (credential_id) DO UPDATE SET
       failures = CASE WHEN ${ended} THEN 1 ELSE pin_failures.failures + 1 END,
       locked_until_ms = CASE
         WHEN ${ended} THEN excluded.locked_until_ms
         WHEN pin_failures.failures + 1 = ? THEN ?
         ELSE pin_failures.locked_until_ms END,
       updated_at_ms = excluded.updated_at_ms
     RETURNING failures, locked_until_ms`,
    [attempt.credentialId, firstLockMs, attempt.nowMs, attempt.nowMs, attempt.nowMs, attempt.failuresMax, attempt.lockedUntilMs],
  );
  if (row === undefined) throw new Error('counting a wrong PIN returned no row');
  return { failures: Number(row.failures), locked_until_ms: Number(row.locked_until_ms) };
}

/** A key's count as it is now (undefined: no wrong PIN counted), read past any cache. */
export async function getPinFailures(tx: Tx, credentialId: string): Promise<PinFailureCount | undefined> {
  const row = await tx.get<{ failures: number; locked_until_ms: number }>('SELECT failures, locked_until_ms FROM pin_failures WHERE credential_id = ?', [
    credentialId,
  ]);
  return row === undefined ? undefined : { failures: Number(row.failures), locked_until_ms: Number(row.locked_until_ms) };
}

/** A right PIN: the count starts again. Only when the key is not locked at `nowMs` (a lock is never lifted by a guess). */
export async function clearPinFailures(tx: Tx, credentialId: string, nowMs: number): Promise<void> {
  await tx.run('DELETE FROM pin_failures WHERE credential_id = ? AND locked_until_ms <= ?', [credentialId, nowMs]);
}

/** Deletes at most `limit` counts that are not locked and saw no wrong PIN since `updatedBeforeMs`. */
export async function pruneStalePinFailures(tx: Tx, nowMs: number, updatedBeforeMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    `DELETE FROM pin_failures WHERE credential_id IN (
       SELECT credential_id FROM pin_failures WHERE updated_at_ms < ? AND locked_until_ms <= ? ORDER BY updated_at_ms LIMIT ?)`,
    [updatedBeforeMs, nowMs, limit],
  );
  return result.changes;
}
