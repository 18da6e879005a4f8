// Panel sessions. The browser holds a random 256-bit token in a cookie; the
// store keeps only its SHA-256, with the user and an absolute expiry. The
// CSRF token of a session is an HMAC of the session token, so it needs no
// storage and cannot be computed without the cookie.
import crypto from 'node:crypto';
import type { Db } from '../store/db.ts';
import type { Role } from './users.ts';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface SessionUser {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  /** Set for merchant users: every query of theirs is scoped to it. */
  readonly merchantId: string | null;
  readonly csrfToken: string;
}

export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function csrfTokenFor(sessionToken: string): string {
  return crypto.createHmac('sha256', sessionToken).update('payrail-panel-csrf').digest('base64url');
}

export function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/** Tokens are 43 base64url symbols; anything else is not ours and is not looked up. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export async function findSession(db: Db, token: string | undefined, nowMs: number): Promise<SessionUser | null> {
  if (token === undefined || !TOKEN_PATTERN.test(token)) return null;
  const row = await db.read((tx) =>
    tx.get<{ user_id: string; expires_at_ms: number; email: string; role: Role; merchant_id: string | null; disabled_at_ms: number | null }>(
      `SELECT s.user_id, s.expires_at_ms, u.email, u.role, u.merchant_id, u.disabled_at_ms
       FROM panel_sessions s JOIN panel_users u ON u.id = s.user_id
       WHERE s.token_hash = ?`,
      [hashToken(token)],
    ),
  );
  if (row === undefined || row.expires_at_ms <= nowMs || row.disabled_at_ms !== null) return null;
  return { userId: row.user_id, email: row.email, role: row.role, merchantId: row.merchant_id, csrfToken: csrfTokenFor(token) };
}

export async function endSession(db: Db, token: string): Promise<void> {
  if (!TOKEN_PATTERN.test(token)) return;
  await db.write((tx) => tx.run('DELETE FROM panel_sessions WHERE token_hash = ?', [hashToken(token)]));
}
