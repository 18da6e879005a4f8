// Sign-in with lock-out. LOGIN_FAILURES_MAX failures for one e-mail address
// within LOGIN_WINDOW_MS lock it for LOCKOUT_MS; while locked no password is
// even checked. Unknown addresses are counted and hashed like known ones, so
// neither the answer nor its timing tells which addresses exist.
import type { Clock } from '../domain/clock.ts';
import type { Db } from '../store/db.ts';
import { decoyPasswordHash, PASSWORD_LENGTH_MAX, verifyPassword } from './passwords.ts';
import { hashToken, newToken, SESSION_TTL_MS } from './sessions.ts';
import { EMAIL_LENGTH_MAX, getUserByEmail, normalizeEmail } from './users.ts';

export const LOGIN_FAILURES_MAX = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;

export type LoginOutcome =
  | { readonly ok: true; readonly token: string }
  | { readonly ok: false; readonly reason: 'invalid' }
  | { readonly ok: false; readonly reason: 'locked'; readonly lockedForMs: number };

export async function login(deps: { db: Db; clock: Clock }, input: { email: string; password: string }): Promise<LoginOutcome> {
  const email = normalizeEmail(input.email);
  if (email.length === 0 || email.length > EMAIL_LENGTH_MAX || input.password.length > PASSWORD_LENGTH_MAX) return { ok: false, reason: 'invalid' };
  const startMs = deps.clock.nowMs();
  const { user, lockedUntilMs } = await deps.db.read(async (tx) => ({
    user: await getUserByEmail(tx, email),
    lockedUntilMs: (await tx.get<{ locked_until_ms: number }>('SELECT locked_until_ms FROM panel_login_failures WHERE email = ?', [email]))?.locked_until_ms ?? 0,
  }));
  if (lockedUntilMs > startMs) return { ok: false, reason: 'locked', lockedForMs: lockedUntilMs - startMs };

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
  const windowStartMinMs = nowMs - LOGIN_WINDOW_MS;
  const lockedUntil = await deps.db.write(async (tx) => {
    await tx.run('DELETE FROM panel_login_failures WHERE window_started_at_ms <= ? AND locked_until_ms <= ? AND email <> ?', [windowStartMinMs, nowMs, email]);
    // In SET every right-hand side reads the row as it was before the update.
    await tx.run(
      `INSERT INTO panel_login_failures (email, failures, window_started_at_ms, locked_until_ms) VALUES (?, 1, ?, 0)
       ON CONFLICT (email) DO UPDATE SET
         failures = CASE WHEN panel_login_failures.window_started_at_ms > ? THEN panel_login_failures.failures + 1 ELSE 1 END,
         window_started_at_ms = CASE WHEN panel_login_failures.window_started_at_ms > ? THEN panel_login_failures.window_started_at_ms ELSE ? END,
         locked_until_ms = CASE WHEN panel_login_failures.window_started_at_ms > ? AND panel_login_failures.failures + 1 >= ? THEN ? ELSE panel_login_failures.locked_until_ms END`,
      [email, nowMs, windowStartMinMs, windowStartMinMs, nowMs, windowStartMinMs, LOGIN_FAILURES_MAX, nowMs + LOCKOUT_MS],
    );
    return (await tx.get<{ locked_until_ms: number }>('SELECT locked_until_ms FROM panel_login_failures WHERE email = ?', [email]))!.locked_until_ms;
  });
  if (lockedUntil > nowMs) return { ok: false, reason: 'locked', lockedForMs: lockedUntil - nowMs };
  return { ok: false, reason: 'invalid' };
}
