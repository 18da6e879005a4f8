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
import type { LinkProblem } from '../../store/link-tokens.ts';
import { readLink } from '../../store/panel/links.ts';
import { mailPasswordResetLink, resetPasswordByLink } from '../../store/panel/password-reset.ts';
import { countRequests } from '../access/abuse-counters.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
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
  await mailPasswordResetLink(deps.db, {
    email,
    nowMs,
    mail: (token) => passwordResetMail({ url: linkUrl(deps, `${PASSWORD_RESET_PATH}/${token}`), validForMs: LINK_TTL_MS.password_reset }),
    audit: { actor: { kind: 'anonymous', id: null, label: email, address }, event: { action: 'user.password_reset_request', target: null }, atMs: nowMs },
  });
}

/** The address a live reset link is for, or what is wrong with it. */
export async function passwordLinkState(deps: OnboardingDeps, token: string): Promise<{ ok: true; email: string } | { ok: false; problem: LinkProblem }> {
  const check = await readLink(deps.db, { token, purpose: 'password_reset', nowMs: deps.clock.nowMs() });
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
  return resetPasswordByLink(deps.db, {
    token,
    passwordHash,
    nowMs: deps.clock.nowMs(),
    describe: (link) => ({ actor: { kind: 'anonymous', id: null, label: link.email, address }, event: { action: 'user.password_reset', target: link.userId } }),
  });
}
