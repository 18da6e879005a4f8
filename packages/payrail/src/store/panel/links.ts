// Whether a one-time link of the panel (a password reset, an invitation) is
// live, read before its page is shown or its form is taken.
import type { Db } from '../db.ts';
import { checkLink, type LinkCheck, type LinkPurpose } from '../link-tokens.ts';

export type { LinkCheck };

export async function readLink(db: Db, input: { token: string; purpose: LinkPurpose; nowMs: number }): Promise<LinkCheck> {
  return db.read((tx) => checkLink(tx, input.token, input.purpose, input.nowMs));
}
