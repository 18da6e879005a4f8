// Sign-in: the password step, then (for users with a second factor) the code
// step on the session it opened. Lock-out is counted per address and per
// account (attempts.ts). Unknown addresses are counted and hashed like known
// ones, so neither the answer nor its timing tells which addresses exist.
// Every sign-in, successful or not, is in the audit trail.
import type { AuditActor } from '../../domain/audit.ts';
import { PASSWORD_LENGTH_MAX } from '../../domain/password-policy.ts';
import type { PanelUserRow } from '../../store/panel-users.ts';
import { recordAudit } from '../operations/audit.ts';
import { LOCKOUT_MS, LOGIN_WINDOW_MS } from './attempts.ts';
import { checkedAttempt } from './checked-attempt.ts';
import type { PanelDeps } from './deps.ts';
import { decoyPasswordHash, verifyPassword } from './passwords.ts';
import { CODE_STEP_TTL_MS, findPendingSession, hashToken, newToken, SESSION_IDLE_MS, SESSION_TTL_MS } from './sessions.ts';
import { readSecondFactor } from './second-factor.ts';
import { EMAIL_LENGTH_MAX, looksLikeEmail, normalizeEmail } from './users.ts';

export { LOCKOUT_MS, LOGIN_WINDOW_MS };
export { ADDRESS_FAILURES_MAX as LOGIN_FAILURES_MAX } from './attempts.ts';

export type LoginOutcome =
  | { readonly ok: true; readonly token: string; readonly next: 'code' | 'home' }
  | { readonly ok: false; readonly reason: 'invalid' }
  | { readonly ok: false; readonly reason: 'locked'; readonly lockedForMs: number };

/** Who signs in, for the audit trail: the user when the e-mail is theirs, else the e-mail typed (when it is one). */
export function signInActor(user: PanelUserRow | undefined, email: string, address: string): AuditActor {
  if (user !== undefined) return { kind: 'user', id: user.id, label: user.email, address };
  return { kind: 'anonymous', id: null, label: looksLikeEmail(email) ? email : null, address };
}

/**
 * The password step. A right password opens a session: a full one, or, when
 * the user has a second factor, one that can only take the code (next:
 * 'code') and lasts CODE_STEP_TTL_MS.
 */
export async function login(deps: PanelDeps, input: { email: string; password: string; address: string }): Promise<LoginOutcome> {
  const email = normalizeEmail(input.email);
  const { address } = input;
  if (email.length === 0 || email.length > EMAIL_LENGTH_MAX || input.password.length > PASSWORD_LENGTH_MAX) {
    await recordAudit(deps, signInActor(undefined, email, address), { action: 'panel.sign_in', target: null, detail: 'malformed form' }, 'denied');
    return { ok: false, reason: 'invalid' };
  }
  const token = newToken();
  const outcome = await checkedAttempt(deps, {
    email,
    address,
    describe: (user) => ({
      actor: signInActor(user, email, address),
      event: { action: 'panel.sign_in', target: user?.id ?? null, merchantId: user?.merchant_id },
    }),
    precheck: async (user) => ((await verifyPassword(input.password, user?.password_hash ?? (await decoyPasswordHash()))) ? null : 'wrong password'),
    prepare: (user, nowMs) => {
      const codePending = user.totp_enrolled_at_ms !== null;
      const session = {
        token_hash: hashToken(token),
        user_id: user.id,
        created_at_ms: nowMs,
        expires_at_ms: nowMs + (codePending ? CODE_STEP_TTL_MS : SESSION_TTL_MS),
        code_pending: codePending,
      };
      // Ended and idle sessions are swept at sign-in.
      const work = { kind: 'open_session', idleSinceMs: nowMs - SESSION_IDLE_MS, session } as const;
      return { work, value: { token, next: codePending ? ('code' as const) : ('home' as const) } };
    },
  });
  return outcome.ok ? { ok: true, ...outcome.value } : outcome;
}

export type CodeOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'invalid' | 'expired' }
  | { readonly ok: false; readonly reason: 'locked'; readonly lockedForMs: number };

/** The code step: a TOTP code (once per time step) or an unused recovery code turns the waiting session into a full one. */
export async function completeSignIn(deps: PanelDeps, input: { token: string | undefined; code: string; address: string }): Promise<CodeOutcome> {
  const pending = await findPendingSession(deps, input.token);
  if (pending === null || input.token === undefined) return { ok: false, reason: 'expired' };
  const tokenHash = hashToken(input.token);
  const outcome = await checkedAttempt(deps, {
    email: pending.email,
    address: input.address,
    describe: (user) => ({
      actor: signInActor(user, pending.email, input.address),
      event: { action: 'panel.sign_in_code', target: pending.userId, merchantId: pending.merchantId },
    }),
    precheck: async () => null,
    prepare: (user, nowMs) => {
      const claim = readSecondFactor(user, input.code, nowMs);
      return { work: { kind: 'complete_code', userId: user.id, claim, tokenHash, expiresAtMs: nowMs + SESSION_TTL_MS }, value: true };
    },
  });
  return outcome.ok ? { ok: true } : outcome;
}
