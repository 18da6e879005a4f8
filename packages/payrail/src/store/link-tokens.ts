// One-time links sent by e-mail (table link_tokens): only a SHA-256 of each
// link's secret is kept. Using a link is one conditional statement, run in
// the transaction of the link's effect, so a link works once even when it is
// followed twice at the same moment. Tokens are random (256-bit secrets),
// compared in constant time; each link works once and expires.
import crypto from 'node:crypto';
import { randomBase62 } from '../domain/ids.ts';
import { formatLinkToken, LINK_TTL_MS, type LinkProblem, type LinkPurpose, parseLinkToken } from '../domain/link-token.ts';
import type { Tx } from './db.ts';

export type { LinkProblem, LinkPurpose };

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

/** How many links of a purpose and subject were made since `sinceMs` (used or not). */
export async function countLinksSince(tx: Tx, purpose: LinkPurpose, subject: string, sinceMs: number): Promise<number> {
  const row = await tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM link_tokens WHERE purpose = ? AND subject = ? AND created_at_ms > ?', [
    purpose,
    subject,
    sinceMs,
  ]);
  return Number(row?.n ?? 0);
}

export type LinkCheck = { readonly ok: true; readonly link: LinkTokenRow } | { readonly ok: false; readonly problem: LinkProblem };

function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

/** Stores a new link and returns its token (to put in a mail, never in a log). */
export async function issueLink(
  tx: Tx,
  link: { purpose: LinkPurpose; subject: string; email: string; detail?: string | null },
  nowMs: number,
): Promise<string> {
  const id = `lnk_${randomBase62(16)}`;
  const secret = crypto.randomBytes(32).toString('base64url');
  await insertLinkToken(tx, {
    id,
    secret_hash: secretHash(secret),
    purpose: link.purpose,
    subject: link.subject,
    email: link.email,
    detail: link.detail ?? null,
    created_at_ms: nowMs,
    expires_at_ms: nowMs + LINK_TTL_MS[link.purpose],
  });
  return formatLinkToken(id, secret);
}

/** Whether a token is a live link of this purpose; a tampered token is "invalid", like an unknown one. */
export async function checkLink(tx: Tx, token: string, purpose: LinkPurpose, nowMs: number): Promise<LinkCheck> {
  const parsed = parseLinkToken(token);
  if (parsed === null) return { ok: false, problem: 'invalid' };
  const row = await getLinkToken(tx, parsed.id);
  const expected = Buffer.from(row?.secret_hash ?? secretHash('no such link'), 'hex');
  const given = Buffer.from(secretHash(parsed.secret), 'hex');
  const same = crypto.timingSafeEqual(expected, given);
  if (row === undefined || !same || row.purpose !== purpose) return { ok: false, problem: 'invalid' };
  if (row.used_at_ms !== null) return { ok: false, problem: 'used' };
  if (row.expires_at_ms <= nowMs) return { ok: false, problem: 'expired' };
  return { ok: true, link: row };
}

/**
 * Checks a link and marks it used, in the caller's transaction: the effect
 * and the use commit together or not at all. A link used by another request
 * at the same moment is reported "used".
 */
export async function useLink(tx: Tx, token: string, purpose: LinkPurpose, nowMs: number): Promise<LinkCheck> {
  const check = await checkLink(tx, token, purpose, nowMs);
  if (!check.ok) return check;
  if (!(await useLinkToken(tx, check.link.id, nowMs))) return { ok: false, problem: 'used' };
  return check;
}
