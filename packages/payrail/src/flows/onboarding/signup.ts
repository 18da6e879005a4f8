// Self-service sandbox sign-up (docs/interface-spec.md section 5, transfer
// API rule 3): a request from the public form, its confirmation by a mailed
// one-time link, and approval (automatic with PAYRAIL_SIGNUP_AUTO_APPROVE,
// else by the operator in the panel or with `payrail signup approve`), which
// onboards the merchant by e-mail (merchant-invite.ts).
//
// The form's answer never tells whether an address is known: a second
// request for an address with an open request or a panel account makes
// nothing and mails its owner instead.
import { addressKey } from '../../domain/client-address.ts';
import { RATE_WINDOW_MS } from '../../domain/auth-limits.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { signupAlreadyKnownMail, signupConfirmMail, signupRejectedMail } from '../../domain/mail-templates.ts';
import { checkSignupForm, SIGNUP_POSTS_PER_ADDRESS_PER_MIN, type SignupForm, type SignupProblems } from '../../domain/signup-form.ts';
import { fail, isApiError } from '../../errors.ts';
import type { Txn } from '../../store/db.ts';
import { retireLinkTokens } from '../../store/link-tokens.ts';
import { getUserByEmail } from '../../store/panel-users.ts';
import {
  confirmSignupRow,
  decideSignupRow,
  getOpenSignupByEmail,
  getSignup,
  insertSignup,
  listSignups as listSignupRows,
  setSignupMerchant,
  type SignupRow,
  type SignupStatus,
} from '../../store/signup-requests.ts';
import { countRequests } from '../access/abuse-counters.ts';
import { type AuditActor, auditInTx, recordAudit, SYSTEM_ACTOR, writeAudited } from '../operations/audit.ts';
import { issueLink, type LinkProblem, useLink } from '../../store/link-tokens.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { inboxSaturated, queueMail } from '../../store/mail-outbox.ts';
import { linkUrl, type OnboardingDeps } from './deps.ts';
import { inviteMerchantInTx } from './merchant-invite.ts';

export type { SignupRow, SignupStatus };

export const SIGNUP_PATH = '/signup';
export const SIGNUPS_LISTED_MAX = 500;

export type SubmitOutcome = { readonly ok: true } | { readonly ok: false; readonly problems: SignupProblems; readonly form: SignupForm };

function anonymous(email: string, address: string | null): AuditActor {
  return { kind: 'anonymous', id: null, label: email, address };
}

async function mailConfirmation(tx: Txn, deps: OnboardingDeps, request: Pick<SignupRow, 'id' | 'name' | 'company' | 'email'>, nowMs: number): Promise<void> {
  const token = await issueLink(tx, { purpose: 'signup_confirm', subject: request.id, email: request.email }, nowMs);
  const mail = signupConfirmMail({
    name: request.name,
    company: request.company,
    url: linkUrl(deps, `${SIGNUP_PATH}/confirm/${token}`),
    validForMs: LINK_TTL_MS.signup_confirm,
  });
  await queueMail(tx, 'signup_confirm', request.email, mail, nowMs);
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
  await deps.db.write(async (tx) => {
    if (await inboxSaturated(tx, form.email, nowMs)) fail('rate_limited', 'Too many mails to this address lately. Check your inbox, or try again in an hour.');
    const open = await getOpenSignupByEmail(tx, form.email);
    const actor = anonymous(form.email, address);
    if (open?.status === 'unconfirmed') {
      // The first link may be lost or expired: a fresh one replaces it.
      await retireLinkTokens(tx, 'signup_confirm', open.id, nowMs);
      await mailConfirmation(tx, deps, open, nowMs);
      await auditInTx(tx, actor, { action: 'signup.request', target: open.id, detail: 'confirmation sent again' }, 'success', nowMs);
      return;
    }
    if (open !== undefined || (await getUserByEmail(tx, form.email)) !== undefined) {
      const mail = signupAlreadyKnownMail({ signInUrl: linkUrl(deps, '/dashboard/login'), resetUrl: linkUrl(deps, '/dashboard/password/forgot') });
      await queueMail(tx, 'signup_known', form.email, mail, nowMs);
      await auditInTx(tx, actor, { action: 'signup.request', target: open?.id ?? null, detail: 'address already known; nothing made' }, 'failure', nowMs);
      return;
    }
    const id = `sgn_${randomBase62(16)}`;
    if (!(await insertSignup(tx, { id, ...form, client_address: address, created_at_ms: nowMs }))) {
      // Another request for this address won the race: it mails the address itself.
      return;
    }
    await mailConfirmation(tx, deps, { id, ...form }, nowMs);
    await auditInTx(tx, actor, { action: 'signup.request', target: id, detail: form.company }, 'success', nowMs);
  });
  return { ok: true };
}

export type ConfirmOutcome = { readonly ok: true; readonly approved: boolean } | { readonly ok: false; readonly problem: LinkProblem };

/** Approves a confirmed request in the caller's transaction; false when it is not confirmed (decided meanwhile). */
async function approveInTx(tx: Txn, deps: OnboardingDeps, request: SignupRow, actor: AuditActor, nowMs: number): Promise<boolean> {
  // Decided first, by one conditional statement: a request decided meanwhile makes no merchant.
  if (!(await decideSignupRow(tx, request.id, true, nowMs))) return false;
  const merchantId = await inviteMerchantInTx(tx, deps, { name: request.company, email: request.email }, nowMs);
  await setSignupMerchant(tx, request.id, merchantId);
  await auditInTx(tx, actor, { action: 'signup.approve', target: request.id, merchantId, detail: `${request.company} (${request.email})` }, 'success', nowMs);
  return true;
}

/** The confirmation link: the address is proven; with auto-approval the merchant is onboarded in the same transaction. */
export async function confirmSignup(deps: OnboardingDeps, token: string, address: string | null): Promise<ConfirmOutcome> {
  return deps.db.write(async (tx): Promise<ConfirmOutcome> => {
    const nowMs = deps.clock.nowMs();
    const used = await useLink(tx, token, 'signup_confirm', nowMs);
    if (!used.ok) return used;
    const request = await getSignup(tx, used.link.subject);
    if (request === undefined || !(await confirmSignupRow(tx, request.id, nowMs))) return { ok: false, problem: 'used' };
    await auditInTx(tx, anonymous(request.email, address), { action: 'signup.confirm', target: request.id }, 'success', nowMs);
    if (!deps.config.signupAutoApprove) return { ok: true, approved: false };
    const approved = await approveInTx(tx, deps, { ...request, status: 'confirmed' }, SYSTEM_ACTOR, nowMs);
    return { ok: true, approved };
  });
}

async function requireConfirmed(tx: Txn, id: string): Promise<SignupRow> {
  const request = await getSignup(tx, id);
  if (request === undefined) fail('not_found', `sign-up request ${id} not found`);
  if (request.status !== 'confirmed') fail('invalid_request', `sign-up request ${id} is ${request.status}; only confirmed requests can be decided`);
  return request;
}

/** The operator approves a confirmed request: the merchant is made and its credentials link mailed. */
export async function approveSignup(deps: OnboardingDeps, id: string, by: AuditActor = SYSTEM_ACTOR): Promise<{ id: string; merchant_id: string }> {
  try {
    return await deps.db.write(async (tx) => {
      const nowMs = deps.clock.nowMs();
      const request = await requireConfirmed(tx, id);
      if (!(await approveInTx(tx, deps, request, by, nowMs))) fail('invalid_request', `sign-up request ${id} was decided meanwhile`);
      const decided = await getSignup(tx, id);
      return { id, merchant_id: decided?.merchant_id ?? '' };
    });
  } catch (error) {
    // A refusal is recorded like every refused operator action (approveInTx records the success).
    if (isApiError(error)) await recordAudit(deps, by, { action: 'signup.approve', target: id, detail: `${error.error}: ${error.message}` }, 'failure');
    throw error;
  }
}

/** The operator rejects a confirmed request; its author is told by mail. */
export async function rejectSignup(deps: OnboardingDeps, id: string, by: AuditActor = SYSTEM_ACTOR): Promise<{ id: string; status: 'rejected' }> {
  return writeAudited(deps, by, { action: 'signup.reject', target: id }, async (tx) => {
    const nowMs = deps.clock.nowMs();
    const request = await requireConfirmed(tx, id);
    if (!(await decideSignupRow(tx, id, false, nowMs))) fail('invalid_request', `sign-up request ${id} was decided meanwhile`);
    await queueMail(tx, 'signup_rejected', request.email, signupRejectedMail({ name: request.name }), nowMs);
    return { id, status: 'rejected' as const };
  });
}

export async function listSignups(deps: Pick<OnboardingDeps, 'db'>, status: SignupStatus | null, limit = SIGNUPS_LISTED_MAX): Promise<SignupRow[]> {
  return deps.db.read((tx) => listSignupRows(tx, status, Math.max(1, Math.min(SIGNUPS_LISTED_MAX, limit))));
}
