// A merchant's team: its members listed, an invitation mailed as a one-time
// link, and the link accepted by making the account in the transaction that
// uses it.
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import type { MailContent } from '../../domain/mail-templates.ts';
import { type AuditNote, appendAudit, appendAuditNote } from '../audit-events.ts';
import type { Db } from '../db.ts';
import { INVITATION_WINDOW_MS, INVITATIONS_PER_MERCHANT_MAX } from '../../domain/invitation-limits.ts';
import { countLinksSince, issueLink, type LinkProblem, type LinkTokenRow, useLink } from '../link-tokens.ts';
import { inboxSaturated, queueMail } from '../mail-outbox.ts';
import { getMerchant, lockMerchant } from '../merchants.ts';
import { getUserByEmail, insertUser, listMerchantUsers, type MerchantRole, type UserListItem } from '../panel-users.ts';

export async function listTeam(db: Db, merchantId: string, limit: number): Promise<UserListItem[]> {
  return db.read((tx) => listMerchantUsers(tx, merchantId, limit));
}

export type InvitationResult =
  | { readonly kind: 'invited' }
  | { readonly kind: 'no_merchant' }
  | { readonly kind: 'has_account' }
  | { readonly kind: 'inbox_saturated' }
  | { readonly kind: 'merchant_limit' };

/**
 * Mails an invitation to join the merchant's team as `role`, with its event
 * (`audit`); refused, writing nothing, when the merchant is unknown, the
 * address already has an account or its inbox is saturated. `mail` renders
 * the mail around the new link's token and the merchant's name.
 */
export async function mailInvitation(
  db: Db,
  input: {
    merchantId: string;
    email: string;
    role: MerchantRole;
    nowMs: number;
    mail: (link: { token: string; merchantName: string }) => MailContent;
    audit: AuditNote;
  },
): Promise<InvitationResult> {
  const { merchantId, email, nowMs } = input;
  return db.write(async (tx): Promise<InvitationResult> => {
    // The merchant's row is locked first, so concurrent invitations are counted one after the other and cannot pass the limit together.
    await lockMerchant(tx, merchantId);
    if ((await countLinksSince(tx, 'invitation', merchantId, nowMs - INVITATION_WINDOW_MS)) >= INVITATIONS_PER_MERCHANT_MAX) return { kind: 'merchant_limit' };
    const merchant = await getMerchant(tx, merchantId);
    if (merchant === undefined) return { kind: 'no_merchant' };
    if ((await getUserByEmail(tx, email)) !== undefined) return { kind: 'has_account' };
    if (await inboxSaturated(tx, email, nowMs)) return { kind: 'inbox_saturated' };
    const token = await issueLink(tx, { purpose: 'invitation', subject: merchantId, email, detail: input.role }, nowMs);
    await queueMail(tx, 'invitation', email, input.mail({ token, merchantName: merchant.name }), nowMs);
    await appendAuditNote(tx, input.audit);
    return { kind: 'invited' };
  });
}

export type AcceptResult =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly problem: LinkProblem }
  | { readonly ok: false; readonly taken: true };

/**
 * Uses an invitation link and makes its account. `email` is the link's
 * address as read before: an account made meanwhile refuses the invitation
 * before the link is used, so it stays usable. `role` reads the link's role
 * (it throws on one that is not a role); `describe` gives the event of the
 * account's creation.
 */
export async function acceptInvitationLink(
  db: Db,
  input: {
    token: string;
    email: string;
    userId: string;
    passwordHash: string;
    nowMs: number;
    role: (link: LinkTokenRow) => MerchantRole;
    describe: (made: { email: string; merchantId: string; role: MerchantRole }) => { actor: AuditActor; event: AuditEvent };
  },
): Promise<AcceptResult> {
  const { nowMs } = input;
  return db.write(async (tx): Promise<AcceptResult> => {
    if ((await getUserByEmail(tx, input.email)) !== undefined) return { ok: false, taken: true };
    const used = await useLink(tx, input.token, 'invitation', nowMs);
    if (!used.ok) return used;
    const role = input.role(used.link);
    const merchantId = used.link.subject;
    await insertUser(tx, {
      id: input.userId,
      email: used.link.email,
      role: 'merchant',
      merchant_id: merchantId,
      merchant_role: role,
      password_hash: input.passwordHash,
      created_at_ms: nowMs,
    });
    const { actor, event } = input.describe({ email: used.link.email, merchantId, role });
    await appendAudit(tx, actor, event, 'success', nowMs);
    return { ok: true, email: used.link.email };
  });
}
