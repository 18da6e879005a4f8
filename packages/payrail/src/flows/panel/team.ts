// A merchant's team in the panel: its admins invite people by e-mail with a
// role (admin: everything, keys and the team too; developer: webhooks and
// card-form origins; viewer: read only). The invitation is a one-time link; accepting it sets
// the new account's password and makes the account in the same transaction
// that uses the link. Inviting answers alike whether or not the address
// already has an account, so the team page cannot be used to learn who has
// one. Admins also revoke pending invitations, change members' roles and
// remove members (PCI DSS 8.2.6), never leaving the team without an admin.
import type { AuditActor } from '../../domain/audit.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { INVITATIONS_PER_MERCHANT_MAX } from '../../domain/invitation-limits.ts';
import { invitationMail } from '../../domain/mail-templates.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { isDeliverableAddress } from '../../domain/signup-form.ts';
import { fail } from '../../errors.ts';
import type { LinkProblem, LinkTokenRow } from '../../store/link-tokens.ts';
import { readLink } from '../../store/panel/links.ts';
import {
  type AcceptResult,
  acceptInvitationLink,
  changeTeamMember,
  listPendingInvitations,
  listTeam,
  mailInvitation,
  type MemberChange,
  type PendingInvitation,
  revokeInvitation,
} from '../../store/panel/team.ts';
import type { MerchantRole, UserListItem } from '../../store/panel-users.ts';
import { LINK_TTL_MS } from '../../domain/link-token.ts';
import { audited } from '../operations/audit.ts';
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
  return listTeam(deps.db, merchantId, TEAM_LISTED_MAX);
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
  return audited(deps, by, event, async (audit) => {
    const mail = (link: { token: string; merchantName: string }) =>
      invitationMail({
        merchantName: link.merchantName,
        role,
        invitedBy: by.label ?? null,
        url: linkUrl(deps, `${INVITATION_PATH}/${link.token}`),
        validForMs: LINK_TTL_MS.invitation,
      });
    const result = await mailInvitation(deps.db, { merchantId: input.merchantId, email, role, nowMs: audit.atMs, mail, audit });
    if (result.kind === 'no_merchant') fail('not_found', `merchant ${input.merchantId} not found`);
    if (result.kind === 'merchant_limit') {
      fail('rate_limited', `This merchant has sent ${INVITATIONS_PER_MERCHANT_MAX} invitations in the last 24 hours, the most allowed; try again tomorrow.`);
    }
    return { email, role };
  });
}

export type { PendingInvitation };

export async function pendingInvitationsOf(deps: Pick<OnboardingDeps, 'db' | 'clock'>, merchantId: string): Promise<PendingInvitation[]> {
  return listPendingInvitations(deps.db, merchantId, deps.clock.nowMs(), TEAM_LISTED_MAX);
}

/** Revokes a pending invitation of the merchant: its link stops working. */
export async function revokeTeamInvitation(deps: OnboardingDeps, input: { merchantId: string; invitationId: string }, by: AuditActor): Promise<void> {
  const event = { action: 'user.invitation_revoke', target: input.invitationId, merchantId: input.merchantId } as const;
  await audited(deps, by, event, async (audit) => {
    const done = await revokeInvitation(deps.db, { ...input, nowMs: audit.atMs, audit });
    if (!done) fail('not_found', 'No such pending invitation.');
  });
}

/**
 * Removes a member of the merchant's team (its sessions end at once) or
 * changes its role; an admin cannot remove or demote the team's last admin,
 * themselves included.
 */
export async function changeTeamMemberBy(
  deps: OnboardingDeps,
  input: { merchantId: string; userId: string; change: MemberChange },
  by: AuditActor,
): Promise<{ email: string }> {
  const action = input.change.kind === 'remove' ? 'user.remove' : 'user.role_change';
  const event = { action, target: input.userId, merchantId: input.merchantId } as const;
  return audited(deps, by, event, async (audit) => {
    const result = await changeTeamMember(deps.db, { ...input, audit });
    if (result.kind === 'unknown') fail('not_found', 'No such member of this team.');
    if (result.kind === 'last_admin') fail('invalid_request', 'The team must keep an admin: make someone else admin first.');
    return { email: result.email };
  });
}

/** Reads a role from a form: one of the merchant roles, or a clear refusal. */
export function memberRole(text: string): MerchantRole {
  if (!isMerchantRole(text)) fail('invalid_request', `The role must be one of ${MERCHANT_ROLES.join(', ')}.`);
  return text;
}

export async function invitationState(
  deps: OnboardingDeps,
  token: string,
): Promise<{ ok: true; email: string; role: string } | { ok: false; problem: LinkProblem }> {
  const check = await readLink(deps.db, { token, purpose: 'invitation', nowMs: deps.clock.nowMs() });
  return check.ok ? { ok: true, email: check.link.email, role: check.link.detail ?? '' } : check;
}

export type AcceptOutcome = AcceptResult | { readonly ok: false; readonly weak: string };

/** The role an invitation link carries; a link without one was not made by inviteTeamMember. */
function invitedRole(link: LinkTokenRow): MerchantRole {
  const role = link.detail;
  if (role === null || !isMerchantRole(role)) throw new Error(`invitation ${link.id} has no valid role`);
  return role;
}

export async function acceptInvitation(deps: OnboardingDeps, token: string, password: string, address: string | null): Promise<AcceptOutcome> {
  const state = await invitationState(deps, token);
  if (!state.ok) return state;
  const weak = passwordProblem(password, state.email);
  if (weak !== null) return { ok: false, weak };
  const passwordHash = await hashPassword(password);
  const userId = `usr_${randomBase62(16)}`;
  return acceptInvitationLink(deps.db, {
    token,
    email: state.email,
    userId,
    passwordHash,
    nowMs: deps.clock.nowMs(),
    role: invitedRole,
    describe: (made) => ({
      actor: { kind: 'anonymous', id: null, label: made.email, address },
      event: { action: 'user.create', target: userId, merchantId: made.merchantId, detail: `${made.email} (${made.role}, by invitation)` },
    }),
  });
}
