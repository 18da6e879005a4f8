// The panel's session commands and queries: a session read by its token's
// hash, its activity recorded, a sign-out with its event.
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db } from '../db.ts';
import { deleteSession, getSessionUser, type SessionUserRow, touchSession } from '../panel-sessions.ts';

export type { SessionUserRow };

export async function readSessionUser(db: Db, tokenHash: string): Promise<SessionUserRow | undefined> {
  return db.read((tx) => getSessionUser(tx, tokenHash));
}

/** Records activity on a session unless some was recorded within the last `intervalMs`. */
export async function touchPanelSession(db: Db, input: { tokenHash: string; nowMs: number; intervalMs: number }): Promise<void> {
  await db.write((tx) => touchSession(tx, input.tokenHash, input.nowMs, input.intervalMs));
}

/** Ends a session; with `audit`, the sign-out's event is appended with it. */
export async function endPanelSession(db: Db, input: { tokenHash: string; audit: AuditNote | null }): Promise<void> {
  await db.write(async (tx) => {
    await deleteSession(tx, input.tokenHash);
    if (input.audit !== null) await appendAuditNote(tx, input.audit);
  });
}
