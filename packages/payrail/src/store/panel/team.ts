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
import { deleteRecoveryCodes } from '../panel-recovery-codes.ts';
import { deleteSessionsOfUser } from '../panel-sessions.ts';
import { getUserByEmail, getUserById, insertUser, listMerchantUsers, type MerchantRole, type UserListItem } from '../panel-users.ts';

export async function listTeam(db: Db, merchantId: string, limit: number): Promise<UserListItem[]> {
  return db.read((tx) => listMerchantUsers(tx, merchantId, limit));
}

export type InvitationResult = { readonly kind: 'invited' } | { readonly kind: 'no_merchant' } | { readonly kind: 'merchant_limit' };

/**
 * Mails an invitation to join the merchant's team as `role`, with its event
 * (`audit`); refused, writing nothing, only when the merchant is unknown.
 * Whether the address has an account (of any merchant, or an operator's)
 * must not show in the answer, so the invitation is made and mailed alike:
 * its link tells the invitee, and only them, that the address has an
 * account (acceptInvitationLink). A saturated inbox gets no mail, but the
 * answer is the same (reset mails, which only accounts get, count there
 * too); the invitation stays pending, listed for the admin to revoke.
 * `mail` renders the mail around the new link's token and the merchant's name.
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
    const token = await issueLink(tx, { purpose: 'invitation', subject: merchantId, email, detail: input.role }, nowMs);
    const saturated = await inboxSaturated(tx, email, nowMs);
    if (!saturated) await queueMail(tx, 'invitation', email, input.mail({ token, merchantName: merchant.name }), nowMs);
    await appendAuditNote(tx, input.audit, saturated ? { detail: `${input.audit.event.detail ?? ''}; not mailed: inbox saturated` } : {});
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

/** An invitation not used, revoked nor expired yet, as the team page lists it (never its token). */
export interface PendingInvitation {
  readonly id: string;
  readonly email: string;
  readonly role: string | null;
  readonly created_at_ms: number;
  readonly expires_at_ms: number;
}

export async function listPendingInvitations(db: Db, merchantId: string, nowMs: number, limit: number): Promise<PendingInvitation[]> {
  const rows = await db.read((tx) =>
    tx.all<{ id: string; email: string; detail: string | null; created_at_ms: number; expires_at_ms: number }>(
      `SELECT id, email, detail, created_at_ms, expires_at_ms FROM link_tokens
       WHERE purpose = 'invitation' AND subject = ? AND used_at_ms IS NULL AND expires_at_ms > ?
       ORDER BY created_at_ms, id LIMIT ?`,
      [merchantId, nowMs, limit],
    ),
  );
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.detail, created_at_ms: Number(r.created_at_ms), expires_at_ms: Number(r.expires_at_ms) }));
}

/** Revokes a pending invitation of the merchant (its link stops working), with its event; false when there is none such. */
export async function revokeInvitation(db: Db, input: { merchantId: string; invitationId: string; nowMs: number; audit: AuditNote }): Promise<boolean> {
  return db.write(async (tx) => {
    const row = await tx.get<{ email: string }>(
      `SELECT email FROM link_tokens WHERE id = ? AND purpose = 'invitation' AND subject = ? AND used_at_ms IS NULL AND expires_at_ms > ?`,
      [input.invitationId, input.merchantId, input.nowMs],
    );
    if (row === undefined) return false;
    const done = await tx.run('UPDATE link_tokens SET used_at_ms = ? WHERE id = ? AND used_at_ms IS NULL', [input.nowMs, input.invitationId]);
    if (done.changes !== 1) return false;
    await appendAuditNote(tx, input.audit, { detail: row.email });
    return true;
  });
}

/** A change an admin makes to a member of the team. */
export type MemberChange = { readonly kind: 'remove' } | { readonly kind: 'role'; readonly role: MerchantRole };

export type MemberChangeResult =
  | { readonly kind: 'changed'; readonly email: string; readonly sessionsEnded: number }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'last_admin' };

/**
 * Removes a member of the merchant's team (the account, its sessions and
 * recovery codes go) or changes its role, with its event. Refused, writing
 * nothing, for a user not in this merchant's team, and for a change that
 * would leave the team without an enabled admin. The merchant's row is
 * locked first on PostgreSQL, so two admins removing each other at the same
 * moment cannot both pass the last-admin check (SQLite runs one writer).
 */
export async function changeTeamMember(
  db: Db,
  input: { merchantId: string; userId: string; change: MemberChange; audit: AuditNote },
): Promise<MemberChangeResult> {
  const { merchantId, userId, change } = input;
  return db.write(async (tx): Promise<MemberChangeResult> => {
    if (tx.dialect === 'postgres') await tx.get('SELECT id FROM merchants WHERE id = ? FOR UPDATE', [merchantId]);
    const user = await getUserById(tx, userId);
    if (user === undefined || user.role !== 'merchant' || user.merchant_id !== merchantId) return { kind: 'unknown' };
    const losesAdmin = user.merchant_role === 'admin' && (change.kind === 'remove' || change.role !== 'admin');
    if (losesAdmin) {
      const others = await tx.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM panel_users WHERE merchant_id = ? AND role = 'merchant' AND merchant_role = 'admin' AND disabled_at_ms IS NULL AND id <> ?`,
        [merchantId, userId],
      );
      if (Number(others?.n ?? 0) === 0) return { kind: 'last_admin' };
    }
    let sessionsEnded = 0;
    if (change.kind === 'remove') {
      sessionsEnded = await deleteSessionsOfUser(tx, userId);
      await deleteRecoveryCodes(tx, userId);
      await tx.run('DELETE FROM panel_users WHERE id = ?', [userId]);
    } else {
      await tx.run('UPDATE panel_users SET merchant_role = ? WHERE id = ?', [change.role, userId]);
    }
    const detail =
      change.kind === 'remove'
        ? `${user.email} (was ${user.merchant_role ?? 'no role'})`
        : `${user.email}: ${user.merchant_role ?? 'no role'} to ${change.role}`;
    await appendAuditNote(tx, input.audit, { detail });
    return { kind: 'changed', email: user.email, sessionsEnded };
  });
}
