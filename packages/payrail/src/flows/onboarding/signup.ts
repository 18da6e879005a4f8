// Self-service sandbox sign-up (docs/interface-spec.md section 5, transfer
// API rule 3): a request from the public form, its confirmation by a mailed
// one-time link, and approval (automatic with PAYRAIL_SIGNUP_AUTO_APPROVE,
// else by the operator in the panel or with `payrail signup approve`), which
// onboards the merchant by e-mail (merchant-invite.ts).
//
// The form's answer never tells whether an address is known: a second
// request for an address with an open request or a panel account makes
// nothing and mails its owner instead.
import type { AuditEvent, AuditOutcome } from '../../domain/audit.ts';
import { addressKey } from '../../domain/client-address.ts';
import { RATE_WINDOW_MS } from '../../domain/auth-limits.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { signupAlreadyKnownMail, signupConfirmMail, signupRejectedMail } from '../../domain/mail-templates.ts';
import { checkSignupForm, SIGNUP_POSTS_PER_ADDRESS_PER_MIN, type SignupForm, type SignupProblems } from '../../domain/signup-form.ts';
import { fail } from '../../errors.ts';
import type { AuditNote } from '../../store/audit-events.ts';
import type { LinkProblem } from '../../store/link-tokens.ts';
import {
  type Approval,
  approveSignupRequest,
  confirmSignupRequest,
  type NotDecided,
  rejectSignupRequest,
  signupRequests,
  type SubmitBranch,
  submitSignupRequest,
} from '../../store/onboarding/signup.ts';
import type { SignupRow, SignupStatus } from '../../store/signup-requests.ts';
import { countRequests } from '../access/abuse-counters.ts';
import { type AuditActor, audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import { linkUrl, type OnboardingDeps } from './deps.ts';
import { inviteIds, merchantInvite } from './merchant-invite.ts';

export type { SignupRow, SignupStatus };

export const SIGNUP_PATH = '/signup';
export const SIGNUPS_LISTED_MAX = 500;

export type SubmitOutcome = { readonly ok: true } | { readonly ok: false; readonly problems: SignupProblems; readonly form: SignupForm };

function anonymous(email: string, address: string | null): AuditActor {
  return { kind: 'anonymous', id: null, label: email, address };
}

/** The audit event of each way a request from the form ends. */
function submitEvent(branch: SubmitBranch, target: string | null, company: string): { event: AuditEvent; outcome: AuditOutcome } {
  switch (branch) {
    case 'resent':
      return { event: { action: 'signup.request', target, detail: 'confirmation sent again' }, outcome: 'success' };
    case 'known':
      return { event: { action: 'signup.request', target, detail: 'address already known; nothing made' }, outcome: 'failure' };
    case 'made':
      return { event: { action: 'signup.request', target, detail: company }, outcome: 'success' };
  }
}

/**
 * A request from the public form. Refused with `rate_limited` when this
 * client address posts too often, or when this inbox has had as many mails
 * from Payrail lately as anyone may make it get.
 */
export async function submitSignup(deps: OnboardingDeps, input: SignupForm, address: string): Promise<SubmitOutcome> {
  if (deps.config.environment !== 'sandbox') fail('sandbox_only', 'Sign-up is open in the sandbox only; production merchants are onboarded by the operator.');
  const nowMs = deps.clock.nowMs();
  const posts = await countRequests(deps, `signup:${addressKey(address)}`, Math.floor(nowMs / RATE_WINDOW_MS) * RATE_WINDOW_MS, 1);
  if (posts > SIGNUP_POSTS_PER_ADDRESS_PER_MIN) fail('rate_limited', 'Too many sign-up requests from your address. Wait a minute and try again.');
  const checked = checkSignupForm(input);
  if (!checked.ok) return checked;
  const form = checked.form;
  const submitted = await submitSignupRequest(deps.db, {
    id: `sgn_${randomBase62(16)}`,
    form,
    address,
    nowMs,
    confirmMailOf: (request, token) =>
      signupConfirmMail({
        name: request.name,
        company: request.company,
        url: linkUrl(deps, `${SIGNUP_PATH}/confirm/${token}`),
        validForMs: LINK_TTL_MS.signup_confirm,
      }),
    knownMail: () => signupAlreadyKnownMail({ signInUrl: linkUrl(deps, '/dashboard/login'), resetUrl: linkUrl(deps, '/dashboard/password/forgot') }),
    eventOf: (branch, target) => submitEvent(branch, target, form.company),
    actor: anonymous(form.email, address),
  });
  if (submitted === 'saturated') fail('rate_limited', 'Too many mails to this address lately. Check your inbox, or try again in an hour.');
  return { ok: true };
}

export type ConfirmOutcome = { readonly ok: true; readonly approved: boolean } | { readonly ok: false; readonly problem: LinkProblem };

/** An approval of a request by `audit`'s actor: the merchant it onboards by e-mail. */
function approval(deps: OnboardingDeps, audit: AuditNote): Approval {
  const ids = inviteIds(deps);
  return {
    audit,
    inviteOf: (request) => merchantInvite(deps, ids, { name: request.company, email: request.email }),
    detailOf: (request) => `${request.company} (${request.email})`,
  };
}

/** The confirmation link: the address is proven; with auto-approval the merchant is onboarded in the same transaction. */
export async function confirmSignup(deps: OnboardingDeps, token: string, address: string | null): Promise<ConfirmOutcome> {
  const nowMs = deps.clock.nowMs();
  const automatic = deps.config.signupAutoApprove
    ? approval(deps, { actor: SYSTEM_ACTOR, event: { action: 'signup.approve', target: null }, atMs: nowMs })
    : null;
  return confirmSignupRequest(deps.db, { token, nowMs, confirmedBy: (request) => anonymous(request.email, address), approval: automatic });
}

/** Fails with the refusal of a request that could not be decided, in today's words. */
function refuseUndecided(id: string, refused: NotDecided): never {
  if (refused.kind === 'not_found') fail('not_found', `sign-up request ${id} not found`);
  if (refused.kind === 'not_confirmed') fail('invalid_request', `sign-up request ${id} is ${refused.status}; only confirmed requests can be decided`);
  fail('invalid_request', `sign-up request ${id} was decided meanwhile`);
}

/** The operator approves a confirmed request: the merchant is made and its credentials link mailed. */
export async function approveSignup(deps: OnboardingDeps, id: string, by: AuditActor = SYSTEM_ACTOR): Promise<{ id: string; merchant_id: string }> {
  // A refusal is recorded like every refused operator action (the command records the success).
  return audited(deps, by, { action: 'signup.approve', target: id }, async (audit) => {
    const decided = await approveSignupRequest(deps.db, { id, nowMs: deps.clock.nowMs(), approval: approval(deps, audit) });
    if (decided.kind !== 'approved') refuseUndecided(id, decided);
    return { id, merchant_id: decided.merchantId };
  });
}

/** The operator rejects a confirmed request; its author is told by mail. */
export async function rejectSignup(deps: OnboardingDeps, id: string, by: AuditActor = SYSTEM_ACTOR): Promise<{ id: string; status: 'rejected' }> {
  return audited(deps, by, { action: 'signup.reject', target: id }, async (audit) => {
    const mailOf = (request: SignupRow) => signupRejectedMail({ name: request.name });
    const decided = await rejectSignupRequest(deps.db, { id, nowMs: deps.clock.nowMs(), mailOf, audit });
    if (decided.kind !== 'rejected') refuseUndecided(id, decided);
    return { id, status: 'rejected' as const };
  });
}

export async function listSignups(deps: Pick<OnboardingDeps, 'db'>, status: SignupStatus | null, limit = SIGNUPS_LISTED_MAX): Promise<SignupRow[]> {
  return signupRequests(deps.db, status, Math.max(1, Math.min(SIGNUPS_LISTED_MAX, limit)));
}
