// The password reset's commands: mailing a one-time link to an enabled
// account, and using the link to set a new password (its sessions end, its
// lock-out is lifted, its other reset links are retired) in the
// transaction that uses it.
import type { MailContent } from '../../domain/mail-templates.ts';
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import { type AuditNote, appendAudit, appendAuditNote } from '../audit-events.ts';
import type { Db } from '../db.ts';
import { issueLink, type LinkProblem, retireLinkTokens, useLink } from '../link-tokens.ts';
import { inboxSaturated, queueMail } from '../mail-outbox.ts';
import { deleteLoginFailures } from '../panel-login-failures.ts';
import { deleteSessionsOfUser } from '../panel-sessions.ts';
import { getUserByEmail, setPasswordHash } from '../panel-users.ts';

/**
 * Mails a reset link when `email` has an enabled account and its inbox is not
 * saturated; nothing otherwise. `mail` renders the mail around the new
 * link's token; `audit`'s event gets the account as its target.
 */
export async function mailPasswordResetLink(
  db: Db,
  input: { email: string; nowMs: number; mail: (token: string) => MailContent; audit: AuditNote },
): Promise<void> {
  const { email, nowMs } = input;
  await db.write(async (tx) => {
    const user = await getUserByEmail(tx, email);
    if (user === undefined || user.disabled_at_ms !== null || (await inboxSaturated(tx, email, nowMs))) return;
    const token = await issueLink(tx, { purpose: 'password_reset', subject: user.id, email }, nowMs);
    await queueMail(tx, 'password_reset', email, input.mail(token), nowMs);
    await appendAuditNote(tx, input.audit, { target: user.id });
  });
}

export type PasswordResetResult = { readonly ok: true; readonly email: string } | { readonly ok: false; readonly problem: LinkProblem };

/** Uses a reset link and sets its account's password; `describe` gives the event of the reset (success). */
export async function resetPasswordByLink(
  db: Db,
  input: {
    token: string;
    passwordHash: string;
    nowMs: number;
    describe: (link: { email: string; userId: string }) => { actor: AuditActor; event: AuditEvent };
  },
): Promise<PasswordResetResult> {
  const { nowMs } = input;
  return db.write(async (tx): Promise<PasswordResetResult> => {
    const used = await useLink(tx, input.token, 'password_reset', nowMs);
    if (!used.ok) return used;
    const userId = used.link.subject;
    await setPasswordHash(tx, userId, input.passwordHash);
    // Every other reset link of the account dies with this one: a link
    // mailed earlier (or to an inbox read by someone else) cannot undo it.
    await retireLinkTokens(tx, 'password_reset', userId, nowMs);
    await deleteSessionsOfUser(tx, userId);
    await deleteLoginFailures(tx, 'account', used.link.email);
    const { actor, event } = input.describe({ email: used.link.email, userId });
    await appendAudit(tx, actor, event, 'success', nowMs);
    return { ok: true, email: used.link.email };
  });
}
