// One-time links sent by e-mail: issuing one (its token goes into the mail,
// its hash into the store), checking one, and using one inside the
// transaction of its effect. Tokens are random (256-bit secrets), stored only
// as SHA-256 and compared in constant time; each link works once and expires.
import crypto from 'node:crypto';
import { randomBase62 } from '../../domain/ids.ts';
import { formatLinkToken, parseLinkToken } from '../../domain/link-token.ts';
import type { Txn } from '../../store/db.ts';
import { getLinkToken, insertLinkToken, type LinkPurpose, type LinkTokenRow, useLinkToken } from '../../store/link-tokens.ts';

export type { LinkPurpose, LinkTokenRow };

/** How long each kind of link works. */
export const LINK_TTL_MS: Readonly<Record<LinkPurpose, number>> = {
  signup_confirm: 24 * 60 * 60_000,
  credentials: 72 * 60 * 60_000,
  password_reset: 60 * 60_000,
  invitation: 7 * 24 * 60 * 60_000,
};

export type LinkProblem = 'invalid' | 'used' | 'expired';

export type LinkCheck = { readonly ok: true; readonly link: LinkTokenRow } | { readonly ok: false; readonly problem: LinkProblem };

function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

/** Stores a new link and returns its token (to put in a mail, never in a log). */
export async function issueLink(
  tx: Txn,
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
export async function checkLink(tx: Txn, token: string, purpose: LinkPurpose, nowMs: number): Promise<LinkCheck> {
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
export async function useLink(tx: Txn, token: string, purpose: LinkPurpose, nowMs: number): Promise<LinkCheck> {
  const check = await checkLink(tx, token, purpose, nowMs);
  if (!check.ok) return check;
  if (!(await useLinkToken(tx, check.link.id, nowMs))) return { ok: false, problem: 'used' };
  return check;
}

/** A refused link, as an error that rolls back the transaction it is raised in. */
export class LinkRefusedError extends Error {
  override readonly name = 'LinkRefusedError';
  constructor(readonly problem: LinkProblem) {
    super(`link ${problem}`);
  }
}
