// Sign-in with lock-out. LOGIN_FAILURES_MAX failures for one e-mail address
// within LOGIN_WINDOW_MS lock it for LOCKOUT_MS; while locked no password is
// even checked. Unknown addresses are counted and hashed like known ones, so
// neither the answer nor its timing tells which addresses exist.
//
// Every attempt is counted BEFORE its password is checked, by one
// conditional upsert whose result alone decides whether the check may run:
// the slow hash leaves a long gap, and concurrent attempts that each read
// the count first and recorded their failure after it would all get past
// the limit. An attempt counts as a failure until its password proves right;
// a right password then clears the count.
import type { Clock } from '../domain/clock.ts';
import type { Db, Tx } from '../store/db.ts';
import { decoyPasswordHash, PASSWORD_LENGTH_MAX, verifyPassword } from './passwords.ts';
import { hashToken, newToken, SESSION_TTL_MS } from './sessions.ts';
import { EMAIL_LENGTH_MAX, getUserByEmail, normalizeEmail, type UserRow } from './users.ts';

export const LOGIN_FAILURES_MAX = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;
/** Stale failure rows of other addresses swept per attempt. */
const STALE_ROWS_SWEPT_MAX = 100;

export type LoginOutcome =
  | { readonly ok: true; readonly token: string }
  | { readonly ok: false; readonly reason: 'invalid' }
  | { readonly ok: false; readonly reason: 'locked'; readonly lockedForMs: number };

interface Attempt {
  /** Attempts counted in the current window, this one included. */
  readonly attempts: number;
  readonly lockedUntilMs: number;
  readonly user: UserRow | undefined;
}

/**
 * Counts this attempt and returns the count. A row whose window has passed,
 * or whose lock has ended, starts again at 1. The attempt that reaches
 * LOGIN_FAILURES_MAX sets the lock (cleared again should its password prove
 * right); every later one finds itself over the limit.
 */
async function countAttempt(tx: Tx, email: string, nowMs: number): Promise<Attempt> {
  const windowStartMinMs = nowMs - LOGIN_WINDOW_MS;
  // In SET every right-hand side reads the row as it was before the update.
  const stale = `(panel_login_failures.locked_until_ms <= ? AND (panel_login_failures.window_started_at_ms <= ? OR panel_login_failures.locked_until_ms > 0))`;
  const row = await tx.get<{ failures: number; locked_until_ms: number }>(
    `INSERT INTO panel_login_failures (email, failures, window_started_at_ms, locked_until_ms) VALUES (?, 1, ?, 0)
     ON CONFLICT (email) DO UPDATE SET
       failures = CASE WHEN ${stale} THEN 1 ELSE panel_login_failures.failures + 1 END,
       window_started_at_ms = CASE WHEN ${stale} THEN excluded.window_started_at_ms ELSE panel_login_failures.window_started_at_ms END,
       locked_until_ms = CASE WHEN ${stale} THEN 0 WHEN panel_login_failures.failures + 1 = ? THEN ? ELSE panel_login_failures.locked_until_ms END
     RETURNING failures, locked_until_ms`,
    [email, nowMs, nowMs, windowStartMinMs, nowMs, windowStartMinMs, nowMs, windowStartMinMs, LOGIN_FAILURES_MAX, nowMs + LOCKOUT_MS],
  );
  if (row === undefined) throw new Error('counting a sign-in attempt returned no row');
  await tx.run(
    `DELETE FROM panel_login_failures WHERE email IN (
       SELECT email FROM panel_login_failures WHERE window_started_at_ms <= ? AND locked_until_ms <= ? AND email <> ? LIMIT ?)`,
    [windowStartMinMs, nowMs, email, STALE_ROWS_SWEPT_MAX],
  );
  return { attempts: Number(row.failures), lockedUntilMs: Number(row.locked_until_ms), user: await getUserByEmail(tx, email) };
}

export async function login(deps: { db: Db; clock: Clock }, input: { email: string; password: string }): Promise<LoginOutcome> {
  const email = normalizeEmail(input.email);
  if (email.length === 0 || email.length > EMAIL_LENGTH_MAX || input.password.length > PASSWORD_LENGTH_MAX) return { ok: false, reason: 'invalid' };
  const startMs = deps.clock.nowMs();
  const { attempts, lockedUntilMs, user } = await deps.db.write((tx) => countAttempt(tx, email, startMs));
  if (attempts > LOGIN_FAILURES_MAX) return { ok: false, reason: 'locked', lockedForMs: Math.max(0, lockedUntilMs - startMs) };

  const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyPasswordHash()));
  const nowMs = deps.clock.nowMs();
  if (matches && user !== undefined && user.disabled_at_ms === null) {
    const token = newToken();
    await deps.db.write(async (tx) => {
      await tx.run('DELETE FROM panel_login_failures WHERE email = ?', [email]);
      // Expired sessions are swept at sign-in; the index on expires_at_ms keeps this cheap.
      await tx.run('DELETE FROM panel_sessions WHERE expires_at_ms <= ?', [nowMs]);
      await tx.run('INSERT INTO panel_sessions (token_hash, user_id, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?)', [
        hashToken(token),
        user.id,
        nowMs,
        nowMs + SESSION_TTL_MS,
      ]);
    });
    return { ok: true, token };
  }
  // This failure was counted above; the one that reached the limit set the lock.
  if (attempts >= LOGIN_FAILURES_MAX && lockedUntilMs > nowMs) return { ok: false, reason: 'locked', lockedForMs: lockedUntilMs - nowMs };
  return { ok: false, reason: 'invalid' };
}
