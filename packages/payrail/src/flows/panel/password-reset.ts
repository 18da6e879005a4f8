// "Forgot password" by e-mail, and setting the password of an account made
// by a one-time credentials link. Asking for a reset answers the same
// whether or not the address has an account; the link works once, for an
// hour, and using it ends the account's sessions and lifts its lock-out.
import { addressKey } from '../../domain/client-address.ts';
import { RATE_WINDOW_MS } from '../../domain/auth-limits.ts';
import { passwordResetMail } from '../../domain/mail-templates.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { SIGNUP_POSTS_PER_ADDRESS_PER_MIN } from '../../domain/signup-form.ts';
import { fail } from '../../errors.ts';
import { deleteLoginFailures } from '../../store/panel-login-failures.ts';
import { deleteSessionsOfUser } from '../../store/panel-sessions.ts';
import { getUserByEmail, setPasswordHash } from '../../store/panel-users.ts';
import { countRequests } from '../access/abuse-counters.ts';
import { auditInTx } from '../operations/audit.ts';
import { checkLink, issueLink, type LinkProblem, useLink } from '../../store/link-tokens.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { inboxSaturated, queueMail } from '../../store/mail-outbox.ts';
import { linkUrl, type OnboardingDeps } from '../onboarding/deps.ts';
import { hashPassword } from './passwords.ts';
import { normalizeEmail } from './users.ts';

export const PASSWORD_RESET_PATH = '/dashboard/password/reset';

/** Mails a reset link when the address has an enabled account; says nothing either way. */
export async function requestPasswordReset(deps: OnboardingDeps, emailText: string, address: string): Promise<void> {
  const nowMs = deps.clock.nowMs();
  const posts = await countRequests(deps, `reset:${addressKey(address)}`, Math.floor(nowMs / RATE_WINDOW_MS) * RATE_WINDOW_MS, 1);
  if (posts > SIGNUP_POSTS_PER_ADDRESS_PER_MIN) fail('rate_limited', 'Too many requests from your address. Wait a minute and try again.');
  const email = normalizeEmail(emailText).slice(0, 254);
  await deps.db.write(async (tx) => {
    const user = await getUserByEmail(tx, email);
    if (user === undefined || user.disabled_at_ms !== null || (await inboxSaturated(tx, email, nowMs))) return;
    const token = await issueLink(tx, { purpose: 'password_reset', subject: user.id, email }, nowMs);
    await queueMail(
      tx,
      'password_reset',
      email,
      passwordResetMail({ url: linkUrl(deps, `${PASSWORD_RESET_PATH}/${token}`), validForMs: LINK_TTL_MS.password_reset }),
      nowMs,
    );
    await auditInTx(tx, { kind: 'anonymous', id: null, label: email, address }, { action: 'user.password_reset_request', target: user.id }, 'success', nowMs);
  });
}

/** The address a live reset link is for, or what is wrong with it. */
export async function passwordLinkState(deps: OnboardingDeps, token: string): Promise<{ ok: true; email: string } | { ok: false; problem: LinkProblem }> {
  const check = await deps.db.read((tx) => checkLink(tx, token, 'password_reset', deps.clock.nowMs()));
  return check.ok ? { ok: true, email: check.link.email } : check;
}

export type ResetOutcome =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly problem: LinkProblem }
  | { readonly ok: false; readonly weak: string };

export async function completePasswordReset(deps: OnboardingDeps, token: string, password: string, address: string | null): Promise<ResetOutcome> {
  const state = await passwordLinkState(deps, token);
  if (!state.ok) return state;
  const weak = passwordProblem(password, state.email);
  if (weak !== null) return { ok: false, weak };
  const passwordHash = await hashPassword(password);
  return deps.db.write(async (tx): Promise<ResetOutcome> => {
    const nowMs = deps.clock.nowMs();
    const used = await useLink(tx, token, 'password_reset', nowMs);
    if (!used.ok) return used;
    const userId = used.link.subject;
    await setPasswordHash(tx, userId, passwordHash);
    await deleteSessionsOfUser(tx, userId);
    await deleteLoginFailures(tx, 'account', used.link.email);
    await auditInTx(tx, { kind: 'anonymous', id: null, label: used.link.email, address }, { action: 'user.password_reset', target: userId }, 'success', nowMs);
    return { ok: true, email: used.link.email };
  });
}
