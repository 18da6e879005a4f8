// Control panel sessions (table panel_sessions). Only a SHA-256 of the
// session token is stored, so a copy of the database cannot sign anyone in;
// callers pass that hash, never the token.
import type { Tx } from './db.ts';
import type { MerchantRole, PanelRole } from './panel-users.ts';

/** A session joined with its user: what every signed-in request needs, in one read. */
export interface SessionUserRow {
  user_id: string;
  expires_at_ms: number;
  last_seen_at_ms: number;
  authenticated_at_ms: number;
  code_pending: number;
  email: string;
  role: PanelRole;
  merchant_id: string | null;
  merchant_role: MerchantRole | null;
  disabled_at_ms: number | null;
  totp_enrolled_at_ms: number | null;
}

export async function getSessionUser(tx: Tx, tokenHash: string): Promise<SessionUserRow | undefined> {
  return tx.get<SessionUserRow>(
    `SELECT s.user_id, s.expires_at_ms, s.last_seen_at_ms, s.authenticated_at_ms, s.code_pending,
            u.email, u.role, u.merchant_id, u.merchant_role, u.disabled_at_ms, u.totp_enrolled_at_ms
     FROM panel_sessions s JOIN panel_users u ON u.id = s.user_id
     WHERE s.token_hash = ?`,
    [tokenHash],
  );
}

export async function insertSession(
  tx: Tx,
  row: { token_hash: string; user_id: string; created_at_ms: number; expires_at_ms: number; code_pending: boolean },
): Promise<void> {
  await tx.run(
    `INSERT INTO panel_sessions (token_hash, user_id, created_at_ms, expires_at_ms, last_seen_at_ms, authenticated_at_ms, code_pending)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [row.token_hash, row.user_id, row.created_at_ms, row.expires_at_ms, row.created_at_ms, row.created_at_ms, row.code_pending ? 1 : 0],
  );
}

/** Records activity on a session, at most once per `intervalMs` (a read-mostly panel should not write on every page). */
export async function touchSession(tx: Tx, tokenHash: string, nowMs: number, intervalMs: number): Promise<void> {
  await tx.run('UPDATE panel_sessions SET last_seen_at_ms = ? WHERE token_hash = ? AND last_seen_at_ms <= ?', [nowMs, tokenHash, nowMs - intervalMs]);
}

/** Records a fresh password (and code) check on a session; with `signIn`, a session waiting for its code becomes a full one. */
export async function markSessionAuthenticated(tx: Tx, tokenHash: string, nowMs: number, signIn: { expiresAtMs: number } | null): Promise<boolean> {
  if (signIn === null) {
    const done = await tx.run('UPDATE panel_sessions SET authenticated_at_ms = ?, last_seen_at_ms = ? WHERE token_hash = ? AND code_pending = 0', [
      nowMs,
      nowMs,
      tokenHash,
    ]);
    return done.changes === 1;
  }
  const done = await tx.run(
    'UPDATE panel_sessions SET authenticated_at_ms = ?, last_seen_at_ms = ?, expires_at_ms = ?, code_pending = 0 WHERE token_hash = ? AND code_pending = 1',
    [nowMs, nowMs, signIn.expiresAtMs, tokenHash],
  );
  return done.changes === 1;
}

export async function deleteSession(tx: Tx, tokenHash: string): Promise<void> {
  await tx.run('DELETE FROM panel_sessions WHERE token_hash = ?', [tokenHash]);
}

/** Ends every session of a user (disabled, password reset, or on request); returns how many there were. */
export async function deleteSessionsOfUser(tx: Tx, userId: string): Promise<number> {
  return (await tx.run('DELETE FROM panel_sessions WHERE user_id = ?', [userId])).changes;
}

/** Ended and idle sessions; the indexes on expires_at_ms and last_seen_at_ms keep this cheap enough to run at every sign-in. */
export async function deleteExpiredSessions(tx: Tx, nowMs: number, idleSinceMs: number): Promise<void> {
  await tx.run('DELETE FROM panel_sessions WHERE expires_at_ms <= ? OR last_seen_at_ms <= ?', [nowMs, idleSinceMs]);
}
