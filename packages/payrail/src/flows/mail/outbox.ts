// Reading the mail outbox for the panel and `payrail mail list` (mail is
// written by store/mail-outbox.ts in the transaction of the change it announces).
import type { Db } from '../../store/db.ts';
import type { MailRow } from '../../store/mail-outbox.ts';
import { mailPage } from '../../store/mail/sending.ts';

export type { MailRow };

export const MAIL_LISTED_MAX = 500;

export async function mailList(deps: { db: Db }, filter: { to: string | null }, limit: number): Promise<MailRow[]> {
  const bounded = Math.max(1, Math.min(MAIL_LISTED_MAX, limit));
  return mailPage(deps.db, { to: filter.to === null ? null : filter.to.trim().toLowerCase() }, bounded);
}
