// Panel users: creation and administration (from the CLI), and the e-mail
// rules sign-in shares. E-mail addresses are stored lower-cased so sign-in is
// case-insensitive; passwords only as scrypt hashes, and a chosen password
// must pass domain/password-policy.ts. Every change is in the audit trail.
import type { AuditActor } from '../../domain/audit.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { fail } from '../../errors.ts';
import { changePanelUser, createPanelUser, listPanelUsers, type UserChangeKind } from '../../store/panel/users.ts';
import type { MerchantRole, PanelRole, UserListItem } from '../../store/panel-users.ts';
import { audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import type { PanelDeps } from './deps.ts';
import { generatePassword, hashPassword } from './passwords.ts';

export type { MerchantRole, PanelRole, UserListItem };

export const EMAIL_LENGTH_MAX = 254;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const USERS_LISTED_MAX = 1000;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function looksLikeEmail(text: string): boolean {
  return text.length <= EMAIL_LENGTH_MAX && EMAIL_PATTERN.test(text);
}

export interface CreatedUser {
  readonly id: string;
  readonly email: string;
  readonly role: PanelRole;
  readonly merchant_id: string | null;
  /** Present only when Payrail generated the password: it is shown this once. */
  readonly generated_password: string | null;
}

export async function createUser(
  deps: PanelDeps,
  input: { email: string; role: string; merchantId?: string | undefined; password?: string | undefined },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<CreatedUser> {
  const email = normalizeEmail(input.email);
  if (!looksLikeEmail(email)) fail('invalid_request', 'email must be an e-mail address');
  if (input.role !== 'operator' && input.role !== 'merchant') fail('invalid_request', 'role must be operator or merchant');
  const role: PanelRole = input.role;
  if (role === 'merchant' && (input.merchantId === undefined || input.merchantId === '')) fail('invalid_request', 'a merchant user needs --merchant <id>');
  if (role === 'operator' && input.merchantId !== undefined) fail('invalid_request', 'an operator user belongs to no merchant; drop --merchant');
  const password = input.password ?? generatePassword();
  const problem = passwordProblem(password, email);
  if (problem !== null) fail('invalid_request', problem);
  // Hashing is slow on purpose; it happens before, not inside, the write transaction.
  const passwordHash = await hashPassword(password);
  const id = `usr_${randomBase62(16)}`;
  const merchantId = role === 'merchant' ? input.merchantId! : null;
  const event = { action: 'user.create', target: id, merchantId, detail: `${email} (${role})` } as const;
  await audited(deps, by, event, async (audit) => {
    const user = {
      id,
      email,
      role,
      merchant_id: merchantId,
      merchant_role: role === 'merchant' ? ('admin' as const) : null,
      password_hash: passwordHash,
      created_at_ms: deps.clock.nowMs(),
    };
    const result = await createPanelUser(deps.db, { user, audit });
    if (result.kind === 'no_merchant') fail('not_found', `merchant ${merchantId} not found`);
    if (result.kind === 'email_taken') fail('invalid_request', `a user with email ${email} already exists`);
  });
  return { id, email, role, merchant_id: merchantId, generated_password: input.password === undefined ? password : null };
}

export async function listUsers(deps: Pick<PanelDeps, 'db'>): Promise<UserListItem[]> {
  return listPanelUsers(deps.db, USERS_LISTED_MAX);
}

export interface UserChange {
  readonly id: string;
  readonly email: string;
  /** Sessions ended by the change. */
  readonly sessions_ended: number;
}

/** Runs an administrative change of one user, audited, in one transaction. */
async function changeUser(
  deps: PanelDeps,
  by: AuditActor,
  emailText: string,
  action: 'user.disable' | 'user.enable' | 'user.end_sessions' | 'user.reset_totp' | 'user.reset_password',
  change: UserChangeKind,
): Promise<UserChange> {
  const email = normalizeEmail(emailText);
  const event = { action, target: email } as const;
  return audited(deps, by, event, async (audit) => {
    const result = await changePanelUser(deps.db, { email, change, nowMs: deps.clock.nowMs(), audit });
    if (result.kind === 'unknown') fail('not_found', `no user with email ${email}`);
    return { id: result.id, email: result.email, sessions_ended: result.sessionsEnded };
  });
}

/** Disables a user: its sessions end now and it cannot sign in until enabled again. */
export function disableUser(deps: PanelDeps, email: string, by: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  return changeUser(deps, by, email, 'user.disable', { kind: 'disable' });
}

/** Enables a user again and lifts a lock-out of its account. */
export function enableUser(deps: PanelDeps, email: string, by: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  return changeUser(deps, by, email, 'user.enable', { kind: 'enable' });
}

export function endUserSessions(deps: PanelDeps, email: string, by: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  return changeUser(deps, by, email, 'user.end_sessions', { kind: 'end_sessions' });
}

/** Removes a user's second factor (a lost phone and lost recovery codes); an operator must enrol again at the next sign-in. */
export function resetUserTotp(deps: PanelDeps, email: string, by: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  return changeUser(deps, by, email, 'user.reset_totp', { kind: 'reset_totp' });
}

/** A new generated password, shown once; the user's sessions end and a lock-out of its account is lifted. */
export async function resetUserPassword(deps: PanelDeps, email: string, by: AuditActor = SYSTEM_ACTOR): Promise<UserChange & { password: string }> {
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const done = await changeUser(deps, by, email, 'user.reset_password', { kind: 'reset_password', passwordHash });
  return { ...done, password };
}
