// Panel users: creation (from the CLI) and lookup. E-mail addresses are
// stored lower-cased so sign-in is case-insensitive; passwords only as scrypt
// hashes.
import { randomBase62 } from '../domain/ids.ts';
import type { Clock } from '../domain/clock.ts';
import { fail } from '../errors.ts';
import type { Db, Tx } from '../store/db.ts';
import { generatePassword, hashPassword, PASSWORD_LENGTH_MAX, PASSWORD_LENGTH_MIN } from './passwords.ts';

export type Role = 'operator' | 'merchant';

export interface UserRow {
  id: string;
  email: string;
  role: Role;
  merchant_id: string | null;
  password_hash: string;
  disabled_at_ms: number | null;
}

export const EMAIL_LENGTH_MAX = 254;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface CreatedUser {
  readonly id: string;
  readonly email: string;
  readonly role: Role;
  readonly merchant_id: string | null;
  /** Present only when Payrail generated the password: it is shown this once. */
  readonly generated_password: string | null;
}

export async function createUser(
  deps: { db: Db; clock: Clock },
  input: { email: string; role: string; merchantId?: string | undefined; password?: string | undefined },
): Promise<CreatedUser> {
  const email = normalizeEmail(input.email);
  if (email.length > EMAIL_LENGTH_MAX || !EMAIL_PATTERN.test(email)) fail('invalid_request', 'email must be an e-mail address');
  if (input.role !== 'operator' && input.role !== 'merchant') fail('invalid_request', 'role must be operator or merchant');
  const role: Role = input.role;
  if (role === 'merchant' && (input.merchantId === undefined || input.merchantId === '')) fail('invalid_request', 'a merchant user needs --merchant <id>');
  if (role === 'operator' && input.merchantId !== undefined) fail('invalid_request', 'an operator user belongs to no merchant; drop --merchant');
  const password = input.password ?? generatePassword();
  if (password.length < PASSWORD_LENGTH_MIN || password.length > PASSWORD_LENGTH_MAX) {
    fail('invalid_request', `password must be ${PASSWORD_LENGTH_MIN} to ${PASSWORD_LENGTH_MAX} characters`);
  }
  // Hashing is slow on purpose; it happens before, not inside, the write transaction.
  const passwordHash = await hashPassword(password);
  const id = `usr_${randomBase62(16)}`;
  const merchantId = role === 'merchant' ? input.merchantId! : null;
  await deps.db.write(async (tx) => {
    if (merchantId !== null) {
      const merchant = await tx.get('SELECT id FROM merchants WHERE id = ?', [merchantId]);
      if (merchant === undefined) fail('not_found', `merchant ${merchantId} not found`);
    }
    if ((await getUserByEmail(tx, email)) !== undefined) fail('invalid_request', `a user with email ${email} already exists`);
    await tx.run('INSERT INTO panel_users (id, email, role, merchant_id, password_hash, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)', [
      id,
      email,
      role,
      merchantId,
      passwordHash,
      deps.clock.nowMs(),
    ]);
  });
  return { id, email, role, merchant_id: merchantId, generated_password: input.password === undefined ? password : null };
}

export async function getUserByEmail(tx: Tx, email: string): Promise<UserRow | undefined> {
  return tx.get<UserRow>('SELECT id, email, role, merchant_id, password_hash, disabled_at_ms FROM panel_users WHERE email = ?', [email]);
}
