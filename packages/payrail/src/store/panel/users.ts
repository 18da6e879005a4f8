// Panel users' administration as commands: an account made, the accounts
// listed, and the changes an operator makes to one account (disable, enable,
// end its sessions, reset its second factor or its password), each with its
// audit event.
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db } from '../db.ts';
import { retireLinkTokens } from '../link-tokens.ts';
import { getMerchant } from '../merchants.ts';
import { deleteLoginFailures } from '../panel-login-failures.ts';
import { deleteRecoveryCodes } from '../panel-recovery-codes.ts';
import { deleteSessionsOfUser } from '../panel-sessions.ts';
import { getUserByEmail, insertUser, listUsers, type PanelUserRow, setPasswordHash, setTotp, setUserDisabled, type UserListItem } from '../panel-users.ts';

export async function listPanelUsers(db: Db, limit: number): Promise<UserListItem[]> {
  return db.read((tx) => listUsers(tx, limit));
}

export type NewPanelUser = Omit<PanelUserRow, 'disabled_at_ms' | 'totp_secret' | 'totp_enrolled_at_ms'> & { created_at_ms: number };

export type CreateUserResult = { readonly kind: 'created' } | { readonly kind: 'no_merchant' } | { readonly kind: 'email_taken' };

/** Makes an account, with its event; refused, writing nothing, when its merchant is unknown or its e-mail taken. */
export async function createPanelUser(db: Db, input: { user: NewPanelUser; audit: AuditNote }): Promise<CreateUserResult> {
  const { user } = input;
  return db.write(async (tx): Promise<CreateUserResult> => {
    if (user.merchant_id !== null && (await getMerchant(tx, user.merchant_id)) === undefined) return { kind: 'no_merchant' };
    if ((await getUserByEmail(tx, user.email)) !== undefined) return { kind: 'email_taken' };
    await insertUser(tx, user);
    await appendAuditNote(tx, input.audit);
    return { kind: 'created' };
  });
}

/** What an operator changes on one account; every change but enabling ends the account's sessions. */
export type UserChangeKind =
  | { readonly kind: 'disable' }
  | { readonly kind: 'enable' }
  | { readonly kind: 'end_sessions' }
  | { readonly kind: 'reset_totp' }
  | { readonly kind: 'reset_password'; readonly passwordHash: string };

export type UserChangeResult =
  | { readonly kind: 'changed'; readonly id: string; readonly email: string; readonly sessionsEnded: number }
  | { readonly kind: 'unknown' };

/**
 * Changes the account of `email`, with its event (its target and detail
 * become the account's id and e-mail); refused, writing nothing, when there
 * is no such account.
 */
export async function changePanelUser(db: Db, input: { email: string; change: UserChangeKind; nowMs: number; audit: AuditNote }): Promise<UserChangeResult> {
  const { change, nowMs } = input;
  return db.write(async (tx): Promise<UserChangeResult> => {
    const user = await getUserByEmail(tx, input.email);
    if (user === undefined) return { kind: 'unknown' };
    let sessionsEnded = 0;
    switch (change.kind) {
      case 'disable':
        await setUserDisabled(tx, user.id, nowMs);
        await retireLinkTokens(tx, 'password_reset', user.id, nowMs);
        sessionsEnded = await deleteSessionsOfUser(tx, user.id);
        break;
      case 'enable':
        await setUserDisabled(tx, user.id, null);
        await deleteLoginFailures(tx, 'account', user.email);
        break;
      case 'end_sessions':
        sessionsEnded = await deleteSessionsOfUser(tx, user.id);
        break;
      case 'reset_totp':
        await setTotp(tx, user.id, null);
        await deleteRecoveryCodes(tx, user.id);
        sessionsEnded = await deleteSessionsOfUser(tx, user.id);
        break;
      case 'reset_password':
        await setPasswordHash(tx, user.id, change.passwordHash);
        // A reset link mailed before must not undo the operator's reset.
        await retireLinkTokens(tx, 'password_reset', user.id, nowMs);
        await deleteLoginFailures(tx, 'account', user.email);
        sessionsEnded = await deleteSessionsOfUser(tx, user.id);
        break;
    }
    await appendAuditNote(tx, input.audit, { target: user.id, detail: user.email });
    return { kind: 'changed', id: user.id, email: user.email, sessionsEnded };
  });
}
