// Sandbox sign-up requests as the store writes them: a request from the
// public form with its confirmation mail, its confirmation by the mailed
// link, and the operator's (or the automatic) decision. Mails and audit
// events are rendered by the caller's functions; the decisions that must be
// atomic with their writes are taken here.
import type { AuditActor, AuditEvent, AuditOutcome } from '../../domain/audit.ts';
import type { MailContent } from '../../domain/mail-templates.ts';
import type { SignupForm } from '../../domain/signup-form.ts';
import { type AuditNote, appendAudit, appendAuditNote } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { issueLink, type LinkProblem, retireLinkTokens, useLink } from '../link-tokens.ts';
import { inboxSaturated, queueMail } from '../mail-outbox.ts';
import { getUserByEmail } from '../panel-users.ts';
import {
  confirmSignupRow,
  decideSignupRow,
  getOpenSignupByEmail,
  getSignup,
  insertSignup,
  listSignups,
  setSignupMerchant,
  type SignupRow,
  type SignupStatus,
} from '../signup-requests.ts';
import { inviteMerchantIn, type MerchantInvite } from './invite.ts';

/** What a request from the form did: mailed a fresh confirmation link, mailed "already known", made a request, or lost a race (nothing). */
export type SubmitBranch = 'resent' | 'known' | 'made';

export interface SignupSubmission {
  /** The id a new request gets. */
  readonly id: string;
  readonly form: SignupForm;
  readonly address: string;
  readonly nowMs: number;
  readonly confirmMailOf: (request: Pick<SignupRow, 'id' | 'name' | 'company'>, token: string) => MailContent;
  readonly knownMail: () => MailContent;
  /** The audit event of each branch, given the request it concerns (null: none). */
  readonly eventOf: (branch: SubmitBranch, target: string | null) => { event: AuditEvent; outcome: AuditOutcome };
  readonly actor: AuditActor;
}

export type Submitted = SubmitBranch | 'raced' | 'saturated';

async function mailConfirmation(tx: Tx, submission: SignupSubmission, request: Pick<SignupRow, 'id' | 'name' | 'company' | 'email'>): Promise<void> {
  const token = await issueLink(tx, { purpose: 'signup_confirm', subject: request.id, email: request.email }, submission.nowMs);
  await queueMail(tx, 'signup_confirm', request.email, submission.confirmMailOf(request, token), submission.nowMs);
}

async function audit(tx: Tx, submission: SignupSubmission, branch: SubmitBranch, target: string | null): Promise<SubmitBranch> {
  const { event, outcome } = submission.eventOf(branch, target);
  await appendAudit(tx, submission.actor, event, outcome, submission.nowMs);
  return branch;
}

/**
 * A request from the public form. An address with an open request or a
 * panel account makes nothing: an unconfirmed request gets a fresh link, any
 * other is mailed "already known". `saturated`: the inbox has had as many
 * mails lately as anyone may make it get; nothing is written.
 */
export async function submitSignupRequest(db: Db, submission: SignupSubmission): Promise<Submitted> {
  const { form, nowMs } = submission;
  return db.write(async (tx): Promise<Submitted> => {
    if (await inboxSaturated(tx, form.email, nowMs)) return 'saturated';
    const open = await getOpenSignupByEmail(tx, form.email);
    if (open?.status === 'unconfirmed') {
      // The first link may be lost or expired: a fresh one replaces it.
      await retireLinkTokens(tx, 'signup_confirm', open.id, nowMs);
      await mailConfirmation(tx, submission, open);
      return audit(tx, submission, 'resent', open.id);
    }
    if (open !== undefined || (await getUserByEmail(tx, form.email)) !== undefined) {
      await queueMail(tx, 'signup_known', form.email, submission.knownMail(), nowMs);
      return audit(tx, submission, 'known', open?.id ?? null);
    }
    const id = submission.id;
    if (!(await insertSignup(tx, { id, ...form, client_address: submission.address, created_at_ms: nowMs }))) {
      // Another request for this address won the race: it mails the address itself.
      return 'raced';
    }
    await mailConfirmation(tx, submission, { id, ...form });
    return audit(tx, submission, 'made', id);
  });
}

/** An approval: the merchant it onboards and its audit event (target, merchant and detail are filled from the request). */
export interface Approval {
  readonly audit: AuditNote;
  readonly inviteOf: (request: SignupRow) => MerchantInvite;
  readonly detailOf: (request: SignupRow) => string;
}

/** Approves a confirmed request in the command's transaction; the merchant's id, or null when it is not confirmed (decided meanwhile). */
async function approveIn(tx: Tx, request: SignupRow, approval: Approval, nowMs: number): Promise<string | null> {
  // Decided first, by one conditional statement: a request decided meanwhile makes no merchant.
  if (!(await decideSignupRow(tx, request.id, true, nowMs))) return null;
  const invite = approval.inviteOf(request);
  await inviteMerchantIn(tx, invite, nowMs);
  await setSignupMerchant(tx, request.id, invite.merchantId);
  await appendAuditNote(tx, approval.audit, { target: request.id, merchantId: invite.merchantId, detail: approval.detailOf(request) });
  return invite.merchantId;
}

export type Confirmed = { readonly ok: true; readonly approved: boolean } | { readonly ok: false; readonly problem: LinkProblem };

/** The confirmation link: the address is proven; with an approval given, the merchant is onboarded in the same transaction. */
export async function confirmSignupRequest(
  db: Db,
  input: { token: string; nowMs: number; confirmedBy: (request: SignupRow) => AuditActor; approval: Approval | null },
): Promise<Confirmed> {
  const nowMs = input.nowMs;
  return db.write(async (tx): Promise<Confirmed> => {
    const used = await useLink(tx, input.token, 'signup_confirm', nowMs);
    if (!used.ok) return used;
    const request = await getSignup(tx, used.link.subject);
    if (request === undefined || !(await confirmSignupRow(tx, request.id, nowMs))) return { ok: false, problem: 'used' };
    await appendAudit(tx, input.confirmedBy(request), { action: 'signup.confirm', target: request.id }, 'success', nowMs);
    if (input.approval === null) return { ok: true, approved: false };
    const merchantId = await approveIn(tx, { ...request, status: 'confirmed' }, input.approval, nowMs);
    return { ok: true, approved: merchantId !== null };
  });
}

/** Why a request could not be decided: unknown, not confirmed (its status says what it is), or decided by someone else meanwhile. */
export type NotDecided =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'not_confirmed'; readonly status: SignupStatus }
  | { readonly kind: 'decided_meanwhile' };

async function confirmedRequest(tx: Tx, id: string): Promise<SignupRow | NotDecided> {
  const request = await getSignup(tx, id);
  if (request === undefined) return { kind: 'not_found' };
  if (request.status !== 'confirmed') return { kind: 'not_confirmed', status: request.status };
  return request;
}

/** The operator approves a confirmed request: the merchant is made and its credentials link mailed. */
export async function approveSignupRequest(
  db: Db,
  input: { id: string; nowMs: number; approval: Approval },
): Promise<{ readonly kind: 'approved'; readonly merchantId: string } | NotDecided> {
  return db.write(async (tx) => {
    const request = await confirmedRequest(tx, input.id);
    if ('kind' in request) return request;
    if ((await approveIn(tx, request, input.approval, input.nowMs)) === null) return { kind: 'decided_meanwhile' } as const;
    const decided = await getSignup(tx, input.id);
    return { kind: 'approved', merchantId: decided?.merchant_id ?? '' } as const;
  });
}

/** The operator rejects a confirmed request; its author is told by the caller's mail. */
export async function rejectSignupRequest(
  db: Db,
  input: { id: string; nowMs: number; mailOf: (request: SignupRow) => MailContent; audit: AuditNote },
): Promise<{ readonly kind: 'rejected' } | NotDecided> {
  return db.write(async (tx) => {
    const request = await confirmedRequest(tx, input.id);
    if ('kind' in request) return request;
    if (!(await decideSignupRow(tx, input.id, false, input.nowMs))) return { kind: 'decided_meanwhile' } as const;
    await queueMail(tx, 'signup_rejected', request.email, input.mailOf(request), input.nowMs);
    await appendAuditNote(tx, input.audit);
    return { kind: 'rejected' } as const;
  });
}

export async function signupRequests(db: Db, status: SignupStatus | null, limit: number): Promise<SignupRow[]> {
  return db.read((tx) => listSignups(tx, status, limit));
}
