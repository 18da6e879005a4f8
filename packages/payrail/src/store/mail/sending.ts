// The mail outbox as the sender and the panel see it: recording a send's
// outcome while the claim's lease holds, and listing mail.
import type { Db } from '../db.ts';
import { listMail, type MailRow, markMailAttemptFailed, markMailSent } from '../mail-outbox.ts';

/** A failed attempt (`nextAttemptAtMs` null: given up); false when the lease had ended. */
export async function recordMailFailure(db: Db, input: { id: number; leaseUntilMs: number; error: string; nextAttemptAtMs: number | null }): Promise<boolean> {
  return db.write((tx) => markMailAttemptFailed(tx, input.id, input.leaseUntilMs, input.error, input.nextAttemptAtMs));
}

/** A mail the server accepted; false when the lease had ended. */
export async function recordMailSent(db: Db, id: number, leaseUntilMs: number, nowMs: number): Promise<boolean> {
  return db.write((tx) => markMailSent(tx, id, leaseUntilMs, nowMs));
}

/** Up to `limit` mails, newest first, to one address or to all. */
export async function mailPage(db: Db, filter: { to: string | null }, limit: number): Promise<MailRow[]> {
  return db.read((tx) => listMail(tx, filter, limit));
}
