// Receivers' verifications kept for a KYC provider working in sessions
// (migration 027). Every change is one conditional statement, so the store
// decides races: two requests cannot both start a session for a receiver,
// and a decision older than the one kept, or a replay of it, changes nothing.
import type { Db } from '../db.ts';

/** A session's decision as the provider reported it (providers/kyc.ts KycDecision), 'pending' while open. */
export type SessionDecisionName = 'approved' | 'declined' | 'resubmission_requested' | 'expired' | 'abandoned' | 'review' | 'pending';
/** What the row keeps: 'none' before the receiver's first session. */
export type KeptDecision = SessionDecisionName | 'none';

/** A session as the provider started it. */
export interface StartedSession {
  readonly sessionId: string;
  readonly url: string;
  readonly expiresAtMs: number | null;
}

/** A decision as the provider reported it. */
export interface ReportedDecision {
  readonly decision: SessionDecisionName;
  readonly reasonCode: string | null;
  readonly decidedAtMs: number | null;
}

export interface ReceiverVerification {
  readonly pk: number;
  readonly phone: string;
  readonly sessionId: string | null;
  readonly sessionUrl: string | null;
  readonly sessionStartedAtMs: number | null;
  readonly sessionExpiresAtMs: number | null;
  readonly decision: KeptDecision;
  readonly reasonCode: string | null;
  readonly decidedAtMs: number | null;
  readonly updatedAtMs: number;
}

/** Decisions after which the receiver needs a new session to be verified. */
export const ENDED_DECISIONS: readonly SessionDecisionName[] = ['declined', 'resubmission_requested', 'expired', 'abandoned'];
const ENDED_SQL = ENDED_DECISIONS.map((decision) => `'${decision}'`).join(', ');

const COLUMNS = 'pk, phone, session_id, session_url, session_started_at_ms, session_expires_at_ms, decision, reason_code, decided_at_ms, updated_at_ms';

interface Row {
  pk: number | string;
  phone: string;
  session_id: string | null;
  session_url: string | null;
  session_started_at_ms: number | string | null;
  session_expires_at_ms: number | string | null;
  decision: string;
  reason_code: string | null;
  decided_at_ms: number | string | null;
  updated_at_ms: number | string;
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

function verificationOf(row: Row): ReceiverVerification {
  return {
    pk: Number(row.pk),
    phone: row.phone,
    sessionId: row.session_id,
    sessionUrl: row.session_url,
    sessionStartedAtMs: numberOrNull(row.session_started_at_ms),
    sessionExpiresAtMs: numberOrNull(row.session_expires_at_ms),
    decision: row.decision as KeptDecision,
    reasonCode: row.reason_code,
    decidedAtMs: numberOrNull(row.decided_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

export async function readVerificationByPhone(db: Db, phone: string): Promise<ReceiverVerification | null> {
  const row = await db.read((tx) => tx.get<Row>(`SELECT ${COLUMNS} FROM receiver_verifications WHERE phone = ?`, [phone]));
  return row === undefined ? null : verificationOf(row);
}

export async function readVerificationBySession(db: Db, sessionId: string): Promise<ReceiverVerification | null> {
  const row = await db.read((tx) => tx.get<Row>(`SELECT ${COLUMNS} FROM receiver_verifications WHERE session_id = ?`, [sessionId]));
  return row === undefined ? null : verificationOf(row);
}

/** The receiver's row, made (decision 'none') when it has none yet: its pk is the reference the provider is given. */
export async function ensureVerification(db: Db, phone: string, connector: string, nowMs: number): Promise<ReceiverVerification> {
  const existing = await readVerificationByPhone(db, phone);
  if (existing !== null) return existing;
  await db.write((tx) =>
    tx.insert(
      'INSERT INTO receiver_verifications (phone, connector, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?)',
      [phone, connector.slice(0, 80), nowMs, nowMs],
      'phone',
    ),
  );
  const made = await readVerificationByPhone(db, phone);
  if (made === null) throw new Error('receiver verification row vanished after its insert');
  return made;
}

/** Whether the row, as kept at `nowMs`, needs a new session before the receiver can verify. */
export function needsNewSession(row: ReceiverVerification, nowMs: number): boolean {
  if (row.decision === 'approved') return false;
  if (row.sessionId === null || row.decision === 'none') return true;
  if ((ENDED_DECISIONS as readonly string[]).includes(row.decision)) return true;
  return row.sessionExpiresAtMs !== null && row.sessionExpiresAtMs <= nowMs;
}

/**
 * Takes the lease to start the receiver's next session: true for exactly one
 * caller while the row still needs one and no live lease is held. The same
 * condition as needsNewSession, decided by the store.
 */
export async function claimSessionStart(db: Db, input: { pk: number; token: string; nowMs: number; leaseUntilMs: number }): Promise<boolean> {
  const { changes } = await db.write((tx) =>
    tx.run(
      `UPDATE receiver_verifications SET start_lease_token = ?, start_lease_until_ms = ?
        WHERE pk = ? AND decision <> 'approved'
          AND (start_lease_until_ms IS NULL OR start_lease_until_ms <= ?)
          AND (session_id IS NULL OR decision = 'none' OR decision IN (${ENDED_SQL}) OR session_expires_at_ms <= ?)`,
      [input.token, input.leaseUntilMs, input.pk, input.nowMs, input.nowMs],
    ),
  );
  return changes === 1;
}

/**
 * Keeps the session the lease holder started (pending); false when the lease
 * was lost meanwhile (it had run out and another took it), or when the
 * session it replaces was approved meanwhile: an approval is never undone by
 * a new session.
 */
export async function recordStartedSession(db: Db, input: { pk: number; token: string; session: StartedSession; nowMs: number }): Promise<boolean> {
  const { changes } = await db.write((tx) =>
    tx.run(
      `UPDATE receiver_verifications
          SET session_id = ?, session_url = ?, session_started_at_ms = ?, session_expires_at_ms = ?, decision = 'pending',
              reason_code = NULL, decided_at_ms = NULL, checked_at_ms = NULL, start_lease_token = NULL, start_lease_until_ms = NULL, updated_at_ms = ?
        WHERE pk = ? AND start_lease_token = ? AND decision <> 'approved'`,
      [input.session.sessionId, input.session.url, input.nowMs, input.session.expiresAtMs, input.nowMs, input.pk, input.token],
    ),
  );
  return changes === 1;
}

/** Gives the lease back after a start that failed, so the next request may try at once. */
export async function releaseSessionStart(db: Db, pk: number, token: string): Promise<void> {
  await db.write((tx) =>
    tx.run('UPDATE receiver_verifications SET start_lease_token = NULL, start_lease_until_ms = NULL WHERE pk = ? AND start_lease_token = ?', [pk, token]),
  );
}

export type DecisionApplied = 'applied' | 'unchanged';

/**
 * Keeps the provider's decision of a session, in one guarded statement:
 * only for the receiver's current session, only when it is newer than the
 * decision kept (a decision without a time only over none), so an older
 * decision, a replay, or a decision of a session since replaced changes
 * nothing. A pending answer is no decision: nothing to keep.
 */
export async function applySessionDecision(db: Db, input: { sessionId: string; decision: ReportedDecision; nowMs: number }): Promise<DecisionApplied> {
  const { decision, reasonCode, decidedAtMs } = input.decision;
  if (decision === 'pending') return 'unchanged';
  // Undated: only over no decision, or over a review (still undecided) by a final one.
  const undated = decision === 'review' ? "decision = 'pending'" : "decision IN ('pending', 'review')";
  const newer = decidedAtMs === null ? `decided_at_ms IS NULL AND ${undated}` : '(decided_at_ms IS NULL OR decided_at_ms < ?)';
  const { changes } = await db.write((tx) =>
    tx.run(
      `UPDATE receiver_verifications SET decision = ?, reason_code = ?, decided_at_ms = ?, checked_at_ms = ?, updated_at_ms = ?
        WHERE session_id = ? AND ${newer}`,
      [decision, reasonCode, decidedAtMs, input.nowMs, input.nowMs, input.sessionId, ...(decidedAtMs === null ? [] : [decidedAtMs])],
    ),
  );
  return changes === 1 ? 'applied' : 'unchanged';
}

/** Open sessions the worker should ask about: started before `startedBeforeMs`, not asked since `checkedBeforeMs`, not long expired; oldest check first. */
export async function openSessionsToCheck(
  db: Db,
  input: { startedBeforeMs: number; checkedBeforeMs: number; expiresAfterMs: number; limit: number },
): Promise<Array<{ pk: number; sessionId: string }>> {
  const rows = await db.read((tx) =>
    tx.all<{ pk: number | string; session_id: string }>(
      `SELECT pk, session_id FROM receiver_verifications
        WHERE decision IN ('pending', 'review') AND session_id IS NOT NULL AND session_started_at_ms <= ?
          AND (checked_at_ms IS NULL OR checked_at_ms <= ?) AND session_expires_at_ms > ?
        ORDER BY COALESCE(checked_at_ms, 0), pk LIMIT ?`,
      [input.startedBeforeMs, input.checkedBeforeMs, input.expiresAfterMs, input.limit],
    ),
  );
  return rows.map((row) => ({ pk: Number(row.pk), sessionId: row.session_id }));
}

/** Records that the worker asked about these sessions (whatever the answer), so the next batch takes others first. */
export async function markChecked(db: Db, pks: readonly number[], nowMs: number): Promise<void> {
  if (pks.length === 0) return;
  await db.write((tx) => tx.run(`UPDATE receiver_verifications SET checked_at_ms = ? WHERE pk IN (${pks.map(() => '?').join(', ')})`, [nowMs, ...pks]));
}
