// Panel sessions. The browser holds a random 256-bit token in a cookie; the
// store keeps only its SHA-256, with the user, an absolute expiry
// (SESSION_TTL_MS after sign-in) and the time of the last activity: a
// session left idle for SESSION_IDLE_MS ends (PCI DSS 8.2.8), so a stolen
// cookie dies with the user's break. The CSRF token of a session is an HMAC
// of the session token, so it needs no storage and cannot be computed
// without the cookie.
import crypto from 'node:crypto';
import type { AuditActor } from '../../domain/audit.ts';
import { endPanelSession, readSessionUser, type SessionUserRow, touchPanelSession } from '../../store/panel/sessions.ts';
import type { PanelDeps } from './deps.ts';
import type { MerchantRole, PanelRole } from './users.ts';

/** Absolute lifetime of a session, however active. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A session with no request for this long has ended. */
export const SESSION_IDLE_MS = 15 * 60 * 1000;
/**
 * Activity is written at most this often: a page view within a minute of
 * the last recorded one writes nothing, so a session may end up to this much
 * before SESSION_IDLE_MS after its very last request, never after.
 */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;
/** A session between a right password and its second factor lasts this long. */
export const CODE_STEP_TTL_MS = 5 * 60 * 1000;
/** Creating or rotating credentials needs a password (and code) check this recent. */
export const REAUTH_WINDOW_MS = 5 * 60 * 1000;

export interface SessionUser {
  readonly userId: string;
  readonly email: string;
  readonly role: PanelRole;
  /** Set for merchant users: every query of theirs is scoped to it. */
  readonly merchantId: string | null;
  /** What a merchant user may do (admin, developer, viewer); null for operators. */
  readonly merchantRole: MerchantRole | null;
  readonly csrfToken: string;
  /** When the password (and code) were last checked in this session. */
  readonly authenticatedAtMs: number;
  readonly totpEnrolled: boolean;
  readonly totpEnrolledAtMs: number | null;
  /** Operators must enrol a second factor before any other page. */
  readonly mustEnrolTotp: boolean;
}

export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function csrfTokenFor(sessionToken: string): string {
  // A KeyObject, not the text (src/crypto/subkeys.ts says why).
  return crypto
    .createHmac('sha256', crypto.createSecretKey(Buffer.from(sessionToken, 'utf8')))
    .update('payrail-panel-csrf')
    .digest('base64url');
}

export function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/** Tokens are 43 base64url symbols; anything else is not ours and is not looked up. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Whether a session row is alive at `nowMs`: not expired, not idle too long, its user not disabled. */
function alive(row: SessionUserRow, nowMs: number): boolean {
  return row.expires_at_ms > nowMs && row.last_seen_at_ms + SESSION_IDLE_MS > nowMs && row.disabled_at_ms === null;
}

function sessionUserOf(row: SessionUserRow, token: string): SessionUser {
  const totpEnrolled = row.totp_enrolled_at_ms !== null;
  return {
    userId: row.user_id,
    email: row.email,
    role: row.role,
    merchantId: row.merchant_id,
    merchantRole: row.merchant_role,
    csrfToken: csrfTokenFor(token),
    authenticatedAtMs: row.authenticated_at_ms,
    totpEnrolled,
    totpEnrolledAtMs: row.totp_enrolled_at_ms,
    mustEnrolTotp: row.role === 'operator' && !totpEnrolled,
  };
}

/**
 * The signed-in user of a session token, or null when it is unknown, ended
 * (expired or idle), waiting for its second factor, or its user is
 * disabled. A live session's activity is recorded, which keeps it alive.
 */
export async function findSession(deps: PanelDeps, token: string | undefined): Promise<SessionUser | null> {
  if (token === undefined || !TOKEN_PATTERN.test(token)) return null;
  const nowMs = deps.clock.nowMs();
  const tokenHash = hashToken(token);
  const row = await readSessionUser(deps.db, tokenHash);
  if (row === undefined || !alive(row, nowMs) || row.code_pending !== 0) return null;
  if (row.last_seen_at_ms <= nowMs - SESSION_TOUCH_INTERVAL_MS) {
    await touchPanelSession(deps.db, { tokenHash, nowMs, intervalMs: SESSION_TOUCH_INTERVAL_MS });
  }
  return sessionUserOf(row, token);
}

/** The user of a session waiting for its second factor, or null. */
export async function findPendingSession(deps: PanelDeps, token: string | undefined): Promise<SessionUser | null> {
  if (token === undefined || !TOKEN_PATTERN.test(token)) return null;
  const row = await readSessionUser(deps.db, hashToken(token));
  if (row === undefined || !alive(row, deps.clock.nowMs()) || row.code_pending !== 1) return null;
  return sessionUserOf(row, token);
}

/** Whether the session's password (and code) were checked recently enough to create or rotate credentials. */
export function recentlyAuthenticated(deps: Pick<PanelDeps, 'clock'>, user: SessionUser): boolean {
  return deps.clock.nowMs() - user.authenticatedAtMs < REAUTH_WINDOW_MS;
}

/** Signs out: the session ends, and the sign-out is recorded when its user is known. */
export async function endSession(deps: PanelDeps, token: string, by: AuditActor | null = null): Promise<void> {
  if (!TOKEN_PATTERN.test(token)) return;
  const audit = by === null ? null : { actor: by, event: { action: 'panel.sign_out', target: by.id } as const, atMs: deps.clock.nowMs() };
  await endPanelSession(deps.db, { tokenHash: hashToken(token), audit });
}
