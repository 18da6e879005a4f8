// Sign-in attempts counted within a window for the panel's lock-out, by two
// counters: per e-mail address (table panel_login_failures), known address
// or not, and per client address (table panel_address_failures). A count is
// taken and its lock set by one conditional upsert, so concurrent attempts
// cannot all read the same count and slip past the limit; the rules (limits,
// window, lock length, which counter when) belong to flows/panel/attempts.ts.
import type { Tx } from './db.ts';

/** Table and key column of each counter; fixed here, never taken from input. */
const COUNTERS = {
  account: { table: 'panel_login_failures', key: 'email' },
  address: { table: 'panel_address_failures', key: 'address' },
} as const;

export type LoginCounter = keyof typeof COUNTERS;

export interface LoginAttemptCount {
  /** Attempts counted in the current window, this one included. */
  readonly failures: number;
  /** When the lock ends; 0 when it is not locked. */
  readonly locked_until_ms: number;
}

/**
 * Counts an attempt under `key` and returns the count. A row whose window
 * started at or before `windowStartMinMs`, or whose lock has ended by
 * `nowMs`, starts again at 1 (window starting now). The attempt that brings
 * the count to `failuresMax` sets the lock to `lockedUntilMs`; later ones
 * leave it.
 */
export async function countLoginAttempt(
  tx: Tx,
  counter: LoginCounter,
  attempt: { key: string; nowMs: number; windowStartMinMs: number; failuresMax: number; lockedUntilMs: number },
): Promise<LoginAttemptCount> {
  const { table, key } = COUNTERS[counter];
  const { nowMs, windowStartMinMs } = attempt;
  // In SET every right-hand side reads the row as it was before the update.
  const stale = `(${table}.locked_until_ms <= ? AND (${table}.window_started_at_ms <= ? OR ${table}.locked_until_ms > 0))`;
  const row = await tx.get<{ failures: number; locked_until_ms: number }>(
    `INSERT INTO ${table} (${key}, failures, window_started_at_ms, locked_until_ms) VALUES (?, 1, ?, 0)
     ON CONFLICT (${key}) DO UPDATE SET
       failures = CASE WHEN ${stale} THEN 1 ELSE ${table}.failures + 1 END,
       window_started_at_ms = CASE WHEN ${stale} THEN excluded.window_started_at_ms ELSE ${table}.window_started_at_ms END,
       locked_until_ms = CASE WHEN ${stale} THEN 0 WHEN ${table}.failures + 1 = ? THEN ? ELSE ${table}.locked_until_ms END
     RETURNING failures, locked_until_ms`,
    [attempt.key, nowMs, nowMs, windowStartMinMs, nowMs, windowStartMinMs, nowMs, windowStartMinMs, attempt.failuresMax, attempt.lockedUntilMs],
  );
  if (row === undefined) throw new Error('counting a sign-in attempt returned no row');
  return { failures: Number(row.failures), locked_until_ms: Number(row.locked_until_ms) };
}

/** Deletes at most `limit` rows of other keys whose window has passed and which are not locked. */
export async function deleteStaleLoginFailures(
  tx: Tx,
  counter: LoginCounter,
  stale: { windowStartMinMs: number; nowMs: number; exceptKey: string; limit: number },
): Promise<void> {
  const { table, key } = COUNTERS[counter];
  await tx.run(
    `DELETE FROM ${table} WHERE ${key} IN (
       SELECT ${key} FROM ${table} WHERE window_started_at_ms <= ? AND locked_until_ms <= ? AND ${key} <> ? LIMIT ?)`,
    [stale.windowStartMinMs, stale.nowMs, stale.exceptKey, stale.limit],
  );
}

export async function deleteLoginFailures(tx: Tx, counter: LoginCounter, keyValue: string): Promise<void> {
  const { table, key } = COUNTERS[counter];
  await tx.run(`DELETE FROM ${table} WHERE ${key} = ?`, [keyValue]);
}

/**
 * Takes back one counted attempt that proved right (it was counted as a
 * failure before its check), lifting the lock when the count falls below
 * `failuresMax`. One conditional statement, like the count.
 */
export async function uncountLoginAttempt(tx: Tx, counter: LoginCounter, keyValue: string, failuresMax: number): Promise<void> {
  const { table, key } = COUNTERS[counter];
  await tx.run(
    `UPDATE ${table} SET failures = failures - 1, locked_until_ms = CASE WHEN failures - 1 < ? THEN 0 ELSE locked_until_ms END
     WHERE ${key} = ? AND failures > 0`,
    [failuresMax, keyValue],
  );
}
