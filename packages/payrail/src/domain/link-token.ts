// The shape of a one-time link's token: "<id>.<secret>". The id finds the
// stored row; only a SHA-256 of the secret is stored, and the two are
// compared in constant time. Pure: making the random parts is the caller's.

const ID_PATTERN = /^lnk_[0-9A-Za-z]{16}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function formatLinkToken(id: string, secret: string): string {
  return `${id}.${secret}`;
}

/** The id and secret of a token, or null when it cannot be one of ours (nothing is looked up then). */
export function parseLinkToken(token: string): { id: string; secret: string } | null {
  const dot = token.indexOf('.');
  if (dot === -1) return null;
  const id = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  return ID_PATTERN.test(id) && SECRET_PATTERN.test(secret) ? { id, secret } : null;
}

/** Why a link was refused: a tampered token is "invalid", like an unknown one. */
export type LinkProblem = 'invalid' | 'used' | 'expired';

/** What a one-time link is for. */
export type LinkPurpose = 'signup_confirm' | 'credentials' | 'password_reset' | 'invitation';

/** How long each kind of link works. */
export const LINK_TTL_MS: Readonly<Record<LinkPurpose, number>> = {
  signup_confirm: 24 * 60 * 60_000,
  credentials: 72 * 60 * 60_000,
  password_reset: 60 * 60_000,
  invitation: 7 * 24 * 60 * 60_000,
};
