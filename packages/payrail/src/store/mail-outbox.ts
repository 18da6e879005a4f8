// The mail outbox (table mail_outbox). A mail is inserted in the transaction
// of the change it announces; the worker claims due rows with a lease, sends
// them, and records the outcome only while its lease holds, so two workers
// never both record (or both send) one row.
import type { MailContent } from '../domain/mail-templates.ts';
import { MAIL_TO_ADDRESS_WINDOW_MS, MAILS_TO_ADDRESS_MAX } from '../domain/signup-form.ts';
import type { Db, Tx } from './db.ts';

export type MailStatus = 'pending' | 'sent' | 'failed';

export interface OutgoingMail {
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
}

export interface MailRow extends OutgoingMail {
  id: number;
  status: MailStatus;
  attempts: number;
  next_attempt_at_ms: number;
  lease_until_ms: number;
  created_at_ms: number;
  sent_at_ms: number | null;
  last_error: string | null;
}

const COLUMNS =
  'id, kind, to_address, subject, text_body, html_body, status, attempts, next_attempt_at_ms, lease_until_ms, created_at_ms, sent_at_ms, last_error';

function numeric(row: MailRow): MailRow {
  return {
    ...row,
    id: Number(row.id),
    attempts: Number(row.attempts),
    next_attempt_at_ms: Number(row.next_attempt_at_ms),
    lease_until_ms: Number(row.lease_until_ms),
    created_at_ms: Number(row.created_at_ms),
    sent_at_ms: row.sent_at_ms === null ? null : Number(row.sent_at_ms),
  };
}

export async function insertMail(tx: Tx, mail: OutgoingMail, nowMs: number): Promise<void> {
  await tx.run(
    `INSERT INTO mail_outbox (kind, to_address, subject, text_body, html_body, status, attempts, next_attempt_at_ms, lease_until_ms, created_at_ms)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, 0, ?)`,
    [mail.kind, mail.to_address, mail.subject, mail.text_body, mail.html_body, nowMs, nowMs],
  );
}

/**
 * Claims up to `limit` due pending mails for one sender until `leaseUntilMs`,
 * in one statement (on PostgreSQL skipping rows another worker has locked),
 * and returns them with the lease they now hold.
 */
export async function claimDueMail(db: Db, nowMs: number, leaseUntilMs: number, limit: number): Promise<MailRow[]> {
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  const rows = await db.write((tx) =>
    tx.all<MailRow>(
      `UPDATE mail_outbox SET lease_until_ms = ?
       WHERE id IN (
         SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at_ms <= ? AND lease_until_ms <= ?
         ORDER BY next_attempt_at_ms, id LIMIT ?${skipLocked})
       RETURNING ${COLUMNS}`,
      [leaseUntilMs, nowMs, nowMs, limit],
    ),
  );
  return rows.map(numeric).sort((a, b) => a.id - b.id);
}

/**
 * Records a sent mail, if the sender's lease still holds. Its body is cleared:
 * it may hold a live one-time link, which the store should not keep once the
 * mail is on its way.
 */
export async function markMailSent(tx: Tx, id: number, leaseUntilMs: number, nowMs: number): Promise<boolean> {
  const done = await tx.run(
    "UPDATE mail_outbox SET status = 'sent', sent_at_ms = ?, attempts = attempts + 1, lease_until_ms = 0, last_error = NULL, text_body = '', html_body = '' WHERE id = ? AND status = 'pending' AND lease_until_ms = ?",
    [nowMs, id, leaseUntilMs],
  );
  return done.changes === 1;
}

/** Records a failed attempt: tried again at `nextAttemptAtMs`, or given up (`failed`) when that is null. */
export async function markMailAttemptFailed(tx: Tx, id: number, leaseUntilMs: number, error: string, nextAttemptAtMs: number | null): Promise<boolean> {
  const done = await tx.run(
    `UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, lease_until_ms = 0,
       status = ?, next_attempt_at_ms = ?
     WHERE id = ? AND status = 'pending' AND lease_until_ms = ?`,
    [error, nextAttemptAtMs === null ? 'failed' : 'pending', nextAttemptAtMs ?? 0, id, leaseUntilMs],
  );
  return done.changes === 1;
}

/** The newest mails first, optionally only those to one address. */
export async function listMail(tx: Tx, filter: { to: string | null }, limit: number): Promise<MailRow[]> {
  const rows =
    filter.to === null
      ? await tx.all<MailRow>(`SELECT ${COLUMNS} FROM mail_outbox ORDER BY id DESC LIMIT ?`, [limit])
      : await tx.all<MailRow>(`SELECT ${COLUMNS} FROM mail_outbox WHERE to_address = ? ORDER BY id DESC LIMIT ?`, [filter.to, limit]);
  return rows.map(numeric);
}

/** Mails written to an address since `sinceMs` (a limit on how often anyone can make Payrail write to one inbox). */
export async function countMailTo(tx: Tx, to: string, sinceMs: number): Promise<number> {
  const row = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox WHERE to_address = ? AND created_at_ms >= ?', [to, sinceMs]);
  return Number(row?.n ?? 0);
}

/** Writes a mail to the outbox in the transaction of the change it announces (a rolled-back change sends nothing). */
export async function queueMail(tx: Tx, kind: string, to: string, content: MailContent, nowMs: number): Promise<void> {
  await insertMail(tx, { kind, to_address: to, subject: content.subject, text_body: content.text, html_body: content.html }, nowMs);
}

/** Whether Payrail has written as many mails to this address lately as anyone may make it write. */
export async function inboxSaturated(tx: Tx, to: string, nowMs: number): Promise<boolean> {
  return (await countMailTo(tx, to, nowMs - MAIL_TO_ADDRESS_WINDOW_MS)) >= MAILS_TO_ADDRESS_MAX;
}
