// Progressive delays of panel sign-in attempts (the rules are
// flows/panel/attempts.ts's): per account and client address (table
// panel_pair_failures) and per account for addresses it has not signed in
// from (panel_login_failures), and the addresses each account signed in
// from (panel_known_addresses). An attempt claims its turn by a conditional
// statement on the row as it read it, so concurrent attempts cannot all take
// the same turn; one that loses the race waits like a delayed one.
import type { Tx } from './db.ts';

/** Table and key columns of each delay counter; fixed here, never taken from input. */
const DELAYS = {
  account: { table: 'panel_login_failures', keys: ['email'] },
  pair: { table: 'panel_pair_failures', keys: ['email', 'address'] },
} as const;

export type DelayCounter = keyof typeof DELAYS;

export type DelayClaim =
  /** The attempt may be checked; `failures` counts it (as a failure until it proves right). */
  | { readonly allowed: true; readonly failures: number }
  /** Too early: the next attempt may be checked at `untilMs`. */
  | { readonly allowed: false; readonly untilMs: number };

function where(counter: DelayCounter): string {
  return DELAYS[counter].keys.map((k) => `${k} = ?`).join(' AND ');
}

/**
 * Claims a turn of `keyValues` at `nowMs`: refused while the last attempt's
 * delay runs; otherwise counted (from 1 again when the last attempt was at
 * or before `quietSinceMs`), and the next attempt delayed by
 * `delayMsFor(failures)`.
 */
export async function claimDelayedAttempt(
  tx: Tx,
  counter: DelayCounter,
  input: { keyValues: readonly string[]; nowMs: number; quietSinceMs: number; delayMsFor: (failures: number) => number },
): Promise<DelayClaim> {
  const { table, keys } = DELAYS[counter];
  const { keyValues, nowMs } = input;
  const row = await tx.get<{ failures: number; window_started_at_ms: number; locked_until_ms: number }>(
    `SELECT failures, window_started_at_ms, locked_until_ms FROM ${table} WHERE ${where(counter)}`,
    keyValues,
  );
  if (row !== undefined && Number(row.locked_until_ms) > nowMs) return { allowed: false, untilMs: Number(row.locked_until_ms) };
  const before = row === undefined || Number(row.window_started_at_ms) <= input.quietSinceMs ? 0 : Number(row.failures);
  const failures = before + 1;
  const nextMs = nowMs + input.delayMsFor(failures);
  const done =
    row === undefined
      ? await tx.run(
          `INSERT INTO ${table} (${keys.join(', ')}, failures, window_started_at_ms, locked_until_ms) VALUES (${keys.map(() => '?').join(', ')}, ?, ?, ?)
           ON CONFLICT (${keys.join(', ')}) DO NOTHING`,
          [...keyValues, failures, nowMs, nextMs],
        )
      : await tx.run(
          `UPDATE ${table} SET failures = ?, window_started_at_ms = ?, locked_until_ms = ?
           WHERE ${where(counter)} AND failures = ? AND window_started_at_ms = ? AND locked_until_ms = ?`,
          [failures, nowMs, nextMs, ...keyValues, row.failures, row.window_started_at_ms, row.locked_until_ms],
        );
  // Another attempt took this turn between the read and the write: this one waits for the next.
  if (done.changes !== 1) return { allowed: false, untilMs: nowMs + Math.max(1000, input.delayMsFor(failures)) };
  return { allowed: true, failures };
}

/** After a success: the pair's failures are forgotten. */
export async function deletePairFailures(tx: Tx, email: string, address: string): Promise<void> {
  await tx.run('DELETE FROM panel_pair_failures WHERE email = ? AND address = ?', [email, address]);
}

/** Deletes at most `limit` pair rows quiet since `quietSinceMs` whose delay has run. */
export async function deleteStalePairFailures(tx: Tx, quietSinceMs: number, nowMs: number, limit: number): Promise<void> {
  await tx.run(
    `DELETE FROM panel_pair_failures WHERE (email, address) IN (
       SELECT email, address FROM panel_pair_failures WHERE window_started_at_ms <= ? AND locked_until_ms <= ? LIMIT ?)`,
    [quietSinceMs, nowMs, limit],
  );
}

/** Whether the account signed in from this address since `sinceMs`. */
export async function isKnownAddress(tx: Tx, email: string, address: string, sinceMs: number): Promise<boolean> {
  const row = await tx.get('SELECT 1 AS known FROM panel_known_addresses WHERE email = ? AND address = ? AND last_success_at_ms > ?', [
    email,
    address,
    sinceMs,
  ]);
  return row !== undefined;
}

/** Records a success of the account from this address, and forgets its addresses unused since `forgetBeforeMs`. */
export async function rememberAddress(tx: Tx, email: string, address: string, nowMs: number, forgetBeforeMs: number): Promise<void> {
  await tx.run(
    `INSERT INTO panel_known_addresses (email, address, last_success_at_ms) VALUES (?, ?, ?)
     ON CONFLICT (email, address) DO UPDATE SET last_success_at_ms = excluded.last_success_at_ms`,
    [email, address, nowMs],
  );
  await tx.run('DELETE FROM panel_known_addresses WHERE email = ? AND last_success_at_ms < ?', [email, forgetBeforeMs]);
}
