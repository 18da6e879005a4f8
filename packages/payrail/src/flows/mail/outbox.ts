// Writing mail to the outbox, in the transaction of the change it announces
// (so a rolled-back change sends nothing and a committed one loses nothing),
// and reading the outbox for the panel and `payrail mail list`.
import type { MailContent } from '../../domain/mail-templates.ts';
import { MAIL_TO_ADDRESS_WINDOW_MS, MAILS_TO_ADDRESS_MAX } from '../../domain/signup-form.ts';
import type { Db, Txn } from '../../store/db.ts';
import { countMailTo, insertMail, listMail, type MailRow } from '../../store/mail-outbox.ts';

export type { MailRow };

export const MAIL_LISTED_MAX = 500;

export async function queueMail(tx: Txn, kind: string, to: string, content: MailContent, nowMs: number): Promise<void> {
  await insertMail(tx, { kind, to_address: to, subject: content.subject, text_body: content.text, html_body: content.html }, nowMs);
}

/** Whether Payrail has written as many mails to this address lately as anyone may make it write. */
export async function inboxSaturated(tx: Txn, to: string, nowMs: number): Promise<boolean> {
  return (await countMailTo(tx, to, nowMs - MAIL_TO_ADDRESS_WINDOW_MS)) >= MAILS_TO_ADDRESS_MAX;
}

export async function mailList(deps: { db: Db }, filter: { to: string | null }, limit: number): Promise<MailRow[]> {
  const bounded = Math.max(1, Math.min(MAIL_LISTED_MAX, limit));
  return deps.db.read((tx) => listMail(tx, { to: filter.to === null ? null : filter.to.trim().toLowerCase() }, bounded));
}
