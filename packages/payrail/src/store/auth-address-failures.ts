// Failed API authentications per client address within a window, and the
// lock an address earns by reaching the limit (docs/api-decisions.md section
// 13). One conditional upsert counts and locks, so every process sharing the
// store counts together. The rules belong to src/domain/auth-limits.ts.
import type { Tx } from './db.ts';

/** When the address's lock ends or ended, as stored; 0 when the address has no row. */
export async function addressLockEnd(tx: Tx, address: string): Promise<number> {
  const row = await tx.get<{ locked_until_ms: number }>('SELECT locked_until_ms FROM auth_address_failures WHERE address = ?', [address]);
  return row === undefined ? 0 : Number(row.locked_until_ms);
}

/**
 * Counts a failed authentication of `address`. A row whose window started at
 * or before `windowStartMinMs`, or whose lock has ended, starts again at 1.
 * The failure that brings the count to `failuresMax` locks the address until
 * `lockedUntilMs`. Returns the lock's end (0 when not locked).
 */
export async function countAddressFailure(
  tx: Tx,
  attempt: { address: string; nowMs: number; windowStartMinMs: number; failuresMax: number; lockedUntilMs: number },
): Promise<number> {
  const firstLockMs = attempt.failuresMax <= 1 ? attempt.lockedUntilMs : 0;
  // In SET every right-hand side reads the row as it was before the update.
  const stale =
    '(auth_address_failures.locked_until_ms <= ? AND (auth_address_failures.window_started_at_ms <= ? OR auth_address_failures.locked_until_ms > 0))';
  const row = await tx.get<{ locked_until_ms: number }>(
    `INSERT INTO auth_address_failures (address, failures, window_started_at_ms, locked_until_ms) VALUES (?, 1, ?, ?)
     ON CONFLICT (address) DO UPDATE SET
       failures = CASE WHEN ${stale} THEN 1 ELSE auth_address_failures.failures + 1 END,
       window_started_at_ms = CASE WHEN ${stale} THEN excluded.window_started_at_ms ELSE auth_address_failures.window_started_at_ms END,
       locked_until_ms = CASE
         WHEN ${stale} THEN excluded.locked_until_ms
         WHEN auth_address_failures.failures + 1 >= ? THEN ?
         ELSE auth_address_failures.locked_until_ms END
     RETURNING locked_until_ms`,
    [
      attempt.address,
      attempt.nowMs,
      firstLockMs,
      attempt.nowMs,
      attempt.windowStartMinMs,
      attempt.nowMs,
      attempt.windowStartMinMs,
      attempt.nowMs,
      attempt.windowStartMinMs,
      attempt.failuresMax,
      attempt.lockedUntilMs,
    ],
  );
  if (row === undefined) throw new Error('counting a failed authentication returned no row');
  return Number(row.locked_until_ms);
}

/** Deletes at most `limit` rows whose window started at or before `windowStartMinMs` and which are not locked. */
export async function pruneAddressFailures(tx: Tx, nowMs: number, windowStartMinMs: number, limit: number): Promise<number> {
  const result = await tx.run(
    `DELETE FROM auth_address_failures WHERE address IN (
       SELECT address FROM auth_address_failures WHERE window_started_at_ms <= ? AND locked_until_ms <= ? LIMIT ?)`,
    [windowStartMinMs, nowMs, limit],
  );
  return result.changes;
}
