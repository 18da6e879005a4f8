// One-time links sent by e-mail (table link_tokens): only a SHA-256 of each
// link's secret is kept. Using a link is one conditional statement, run in
// the transaction of the link's effect, so a link works once even when it is
// followed twice at the same moment.
import type { Tx } from './db.ts';

export type LinkPurpose = 'signup_confirm' | 'credentials' | 'password_reset' | 'invitation';

export interface LinkTokenRow {
  id: string;
  secret_hash: string;
  purpose: LinkPurpose;
  subject: string;
  email: string;
  detail: string | null;
  created_at_ms: number;
  expires_at_ms: number;
  used_at_ms: number | null;
}

const COLUMNS = 'id, secret_hash, purpose, subject, email, detail, created_at_ms, expires_at_ms, used_at_ms';

export async function insertLinkToken(tx: Tx, row: Omit<LinkTokenRow, 'used_at_ms'>): Promise<void> {
  await tx.run(`INSERT INTO link_tokens (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`, [
    row.id,
    row.secret_hash,
    row.purpose,
    row.subject,
    row.email,
    row.detail,
    row.created_at_ms,
    row.expires_at_ms,
  ]);
}

export async function getLinkToken(tx: Tx, id: string): Promise<LinkTokenRow | undefined> {
  const row = await tx.get<LinkTokenRow>(`SELECT ${COLUMNS} FROM link_tokens WHERE id = ?`, [id]);
  return row === undefined ? undefined : { ...row, created_at_ms: Number(row.created_at_ms), expires_at_ms: Number(row.expires_at_ms) };
}

/** Marks a link used if it is unused and unexpired; false when it was not (used meanwhile, or expired). */
export async function useLinkToken(tx: Tx, id: string, nowMs: number): Promise<boolean> {
  const done = await tx.run('UPDATE link_tokens SET used_at_ms = ? WHERE id = ? AND used_at_ms IS NULL AND expires_at_ms > ?', [nowMs, id, nowMs]);
  return done.changes === 1;
}

/** Makes every unused link of a purpose and subject unusable (a newer one replaces them). */
export async function retireLinkTokens(tx: Tx, purpose: LinkPurpose, subject: string, nowMs: number): Promise<number> {
  return (await tx.run('UPDATE link_tokens SET used_at_ms = ? WHERE purpose = ? AND subject = ? AND used_at_ms IS NULL', [nowMs, purpose, subject])).changes;
}
