// A merchant's team in the panel: its admins invite people by e-mail with a
// role (admin: everything, the team too; developer: keys and webhooks;
// viewer: read only). The invitation is a one-time link; accepting it sets
// the new account's password and makes the account in the same transaction
// that uses the link.
import type { AuditActor } from '../../domain/audit.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { invitationMail } from '../../domain/mail-templates.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { isDeliverableAddress } from '../../domain/signup-form.ts';
import { fail } from '../../errors.ts';
import { getMerchant } from '../../store/merchants.ts';
import { getUserByEmail, insertUser, listMerchantUsers, type MerchantRole, type UserListItem } from '../../store/panel-users.ts';
import { auditInTx, writeAudited } from '../operations/audit.ts';
import { checkLink, issueLink, type LinkProblem, useLink } from '../../store/link-tokens.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { inboxSaturated, queueMail } from '../../store/mail-outbox.ts';
import { linkUrl, type OnboardingDeps } from '../onboarding/deps.ts';
import { hashPassword } from './passwords.ts';
import { normalizeEmail } from './users.ts';

export const MERCHANT_ROLES: readonly MerchantRole[] = ['admin', 'developer', 'viewer'];
export const INVITATION_PATH = '/dashboard/invitation';
const TEAM_LISTED_MAX = 200;

export function isMerchantRole(text: string): text is MerchantRole {
  return (MERCHANT_ROLES as readonly string[]).includes(text);
}

export async function teamOf(deps: Pick<OnboardingDeps, 'db'>, merchantId: string): Promise<UserListItem[]> {
  return deps.db.read((tx) => listMerchantUsers(tx, merchantId, TEAM_LISTED_MAX));
}

export async function inviteTeamMember(
  deps: OnboardingDeps,
  input: { merchantId: string; email: string; role: string },
  by: AuditActor,
): Promise<{ email: string; role: MerchantRole }> {
  const email = normalizeEmail(input.email);
  if (!isDeliverableAddress(email)) fail('invalid_request', 'Enter a valid e-mail address, like dev@example.com.');
  if (!isMerchantRole(input.role)) fail('invalid_request', `The role must be one of ${MERCHANT_ROLES.join(', ')}.`);
  const role = input.role;
  const event = { action: 'user.invite', target: email, merchantId: input.merchantId, detail: `as ${role}` } as const;
  return writeAudited(deps, by, event, async (tx) => {
    const nowMs = deps.clock.nowMs();
    const merchant = await getMerchant(tx, input.merchantId);
    if (merchant === undefined) fail('not_found', `merchant ${input.merchantId} not found`);
    if ((await getUserByEmail(tx, email)) !== undefined) fail('invalid_request', `${email} already has a panel account.`);
    if (await inboxSaturated(tx, email, nowMs)) fail('rate_limited', 'Too many mails to this address lately; try again in an hour.');
    const token = await issueLink(tx, { purpose: 'invitation', subject: input.merchantId, email, detail: role }, nowMs);
    const mail = invitationMail({
      merchantName: merchant.name,
      role,
      invitedBy: by.label ?? 'An administrator',
      url: linkUrl(deps, `${INVITATION_PATH}/${token}`),
      validForMs: LINK_TTL_MS.invitation,
    });
    await queueMail(tx, 'invitation', email, mail, nowMs);
    return { email, role };
  });
}

export async function invitationState(
  deps: OnboardingDeps,
  token: string,
): Promise<{ ok: true; email: string; role: string } | { ok: false; problem: LinkProblem }> {
  const check = await deps.db.read((tx) => checkLink(tx, token, 'invitation', deps.clock.nowMs()));
  return check.ok ? { ok: true, email: check.link.email, role: check.link.detail ?? '' } : check;
}

export type AcceptOutcome =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly problem: LinkProblem }
  | { readonly ok: false; readonly weak: string }
  | { readonly ok: false; readonly taken: true };

export async function acceptInvitation(deps: OnboardingDeps, token: string, password: string, address: string | null): Promise<AcceptOutcome> {
  const state = await invitationState(deps, token);
  if (!state.ok) return state;
  const weak = passwordProblem(password, state.email);
  if (weak !== null) return { ok: false, weak };
  const passwordHash = await hashPassword(password);
  const userId = `usr_${randomBase62(16)}`;
  return deps.db.write(async (tx): Promise<AcceptOutcome> => {
    const nowMs = deps.clock.nowMs();
    // Looked at before the link is used, so a refusal leaves the link usable.
    if ((await getUserByEmail(tx, state.email)) !== undefined) return { ok: false, taken: true };
    const used = await useLink(tx, token, 'invitation', nowMs);
    if (!used.ok) return used;
    const role = used.link.detail;
    if (role === null || !isMerchantRole(role)) throw new Error(`invitation ${used.link.id} has no valid role`);
    const merchantId = used.link.subject;
    await insertUser(tx, {
      id: userId,
      email: used.link.email,
      role: 'merchant',
      merchant_id: merchantId,
      merchant_role: role,
      password_hash: passwordHash,
      created_at_ms: nowMs,
    });
    const actor = { kind: 'anonymous', id: null, label: used.link.email, address } as const;
    await auditInTx(tx, actor, { action: 'user.create', target: userId, merchantId, detail: `${used.link.email} (${role}, by invitation)` }, 'success', nowMs);
    return { ok: true, email: used.link.email };
  });
}
