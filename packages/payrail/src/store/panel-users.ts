// People who sign in to the control panel (table panel_users). E-mail
// addresses arrive here already normalized by the flows (lower-cased), so a
// lookup is an exact match; passwords are kept only as scrypt hashes.
import type { Tx } from './db.ts';

/** An operator runs the deployment and sees every merchant; a merchant user sees only its merchant. */
export type PanelRole = 'operator' | 'merchant';

/** What a merchant user may do: admin everything (the team too), developer webhooks and card-form origins (no key that moves money), viewer read only. */
export type MerchantRole = 'admin' | 'developer' | 'viewer';

export interface PanelUserRow {
  id: string;
  email: string;
  role: PanelRole;
  merchant_id: string | null;
  /** Null for operators. */
  merchant_role: MerchantRole | null;
  password_hash: string;
  disabled_at_ms: number | null;
  /** Base32 TOTP secret once enrolled, else null. */
  totp_secret: string | null;
  totp_enrolled_at_ms: number | null;
}

const USER_COLUMNS = 'id, email, role, merchant_id, merchant_role, password_hash, disabled_at_ms, totp_secret, totp_enrolled_at_ms';

export async function getUserByEmail(tx: Tx, email: string): Promise<PanelUserRow | undefined> {
  return tx.get<PanelUserRow>(`SELECT ${USER_COLUMNS} FROM panel_users WHERE email = ?`, [email]);
}

export async function getUserById(tx: Tx, id: string): Promise<PanelUserRow | undefined> {
  return tx.get<PanelUserRow>(`SELECT ${USER_COLUMNS} FROM panel_users WHERE id = ?`, [id]);
}

export async function insertUser(
  tx: Tx,
  row: Omit<PanelUserRow, 'disabled_at_ms' | 'totp_secret' | 'totp_enrolled_at_ms'> & { created_at_ms: number },
): Promise<void> {
  await tx.run('INSERT INTO panel_users (id, email, role, merchant_id, merchant_role, password_hash, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    row.id,
    row.email,
    row.role,
    row.merchant_id,
    row.merchant_role,
    row.password_hash,
    row.created_at_ms,
  ]);
}

/** A user as `payrail user list` shows it: never a hash or a secret. */
export interface UserListItem {
  id: string;
  email: string;
  role: PanelRole;
  merchant_id: string | null;
  merchant_role: MerchantRole | null;
  created_at_ms: number;
  disabled_at_ms: number | null;
  totp_enrolled_at_ms: number | null;
}

/** Up to `limit` users, oldest first. */
export async function listUsers(tx: Tx, limit: number): Promise<UserListItem[]> {
  return tx.all<UserListItem>(
    'SELECT id, email, role, merchant_id, merchant_role, created_at_ms, disabled_at_ms, totp_enrolled_at_ms FROM panel_users ORDER BY created_at_ms, id LIMIT ?',
    [limit],
  );
}

/** The users of one merchant, oldest first. */
export async function listMerchantUsers(tx: Tx, merchantId: string, limit: number): Promise<UserListItem[]> {
  return tx.all<UserListItem>(
    'SELECT id, email, role, merchant_id, merchant_role, created_at_ms, disabled_at_ms, totp_enrolled_at_ms FROM panel_users WHERE merchant_id = ? ORDER BY created_at_ms, id LIMIT ?',
    [merchantId, limit],
  );
}

/** Disables (keeping the first time) or enables a user; false when there is no such user. */
export async function setUserDisabled(tx: Tx, id: string, disabledAtMs: number | null): Promise<boolean> {
  const done =
    disabledAtMs === null
      ? await tx.run('UPDATE panel_users SET disabled_at_ms = NULL WHERE id = ?', [id])
      : await tx.run('UPDATE panel_users SET disabled_at_ms = COALESCE(disabled_at_ms, ?) WHERE id = ?', [disabledAtMs, id]);
  return done.changes === 1;
}

export async function setPasswordHash(tx: Tx, id: string, passwordHash: string): Promise<boolean> {
  return (await tx.run('UPDATE panel_users SET password_hash = ? WHERE id = ?', [passwordHash, id])).changes === 1;
}

/** Enrols a TOTP secret, or removes it (secret null); the accepted-step memory starts again. */
export async function setTotp(tx: Tx, id: string, totp: { secret: string; enrolledAtMs: number } | null): Promise<boolean> {
  const done =
    totp === null
      ? await tx.run('UPDATE panel_users SET totp_secret = NULL, totp_enrolled_at_ms = NULL, totp_last_step = 0 WHERE id = ?', [id])
      : await tx.run('UPDATE panel_users SET totp_secret = ?, totp_enrolled_at_ms = ?, totp_last_step = 0 WHERE id = ?', [totp.secret, totp.enrolledAtMs, id]);
  return done.changes === 1;
}

/**
 * Accepts a TOTP time step for a user if no step at or after it was accepted
 * before: one conditional statement, so the same code cannot be used twice,
 * even by two requests at once. Returns whether the step was accepted.
 */
export async function claimTotpStep(tx: Tx, id: string, step: number): Promise<boolean> {
  return (await tx.run('UPDATE panel_users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?', [step, id, step])).changes === 1;
}
