// Requests for sandbox access from the public sign-up page (table
// signup_requests). State changes are conditional statements on the current
// status, so a request is confirmed, approved or rejected once, whoever
// tries at the same moment.
import type { Tx } from './db.ts';

export type SignupStatus = 'unconfirmed' | 'confirmed' | 'approved' | 'rejected';

export interface SignupRow {
  id: string;
  name: string;
  company: string;
  email: string;
  corridors: string;
  client_address: string | null;
  status: SignupStatus;
  created_at_ms: number;
  confirmed_at_ms: number | null;
  decided_at_ms: number | null;
  merchant_id: string | null;
}

const COLUMNS = 'id, name, company, email, corridors, client_address, status, created_at_ms, confirmed_at_ms, decided_at_ms, merchant_id';

function numeric(row: SignupRow): SignupRow {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return { ...row, created_at_ms: Number(row.created_at_ms), confirmed_at_ms: n(row.confirmed_at_ms), decided_at_ms: n(row.decided_at_ms) };
}

/** Inserts an unconfirmed request; false when the address already has an open one (the unique index decides). */
export async function insertSignup(
  tx: Tx,
  row: Pick<SignupRow, 'id' | 'name' | 'company' | 'email' | 'corridors' | 'client_address' | 'created_at_ms'>,
): Promise<boolean> {
  const done = await tx.run(
    `INSERT INTO signup_requests (id, name, company, email, corridors, client_address, status, created_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, 'unconfirmed', ?) ON CONFLICT DO NOTHING`,
    [row.id, row.name, row.company, row.email, row.corridors, row.client_address, row.created_at_ms],
  );
  return done.changes === 1;
}

export async function getSignup(tx: Tx, id: string): Promise<SignupRow | undefined> {
  const row = await tx.get<SignupRow>(`SELECT ${COLUMNS} FROM signup_requests WHERE id = ?`, [id]);
  return row === undefined ? undefined : numeric(row);
}

/** The open (unconfirmed or confirmed) request of an address. */
export async function getOpenSignupByEmail(tx: Tx, email: string): Promise<SignupRow | undefined> {
  const row = await tx.get<SignupRow>(`SELECT ${COLUMNS} FROM signup_requests WHERE email = ? AND status IN ('unconfirmed', 'confirmed')`, [email]);
  return row === undefined ? undefined : numeric(row);
}

export async function confirmSignupRow(tx: Tx, id: string, nowMs: number): Promise<boolean> {
  const done = await tx.run("UPDATE signup_requests SET status = 'confirmed', confirmed_at_ms = ? WHERE id = ? AND status = 'unconfirmed'", [nowMs, id]);
  return done.changes === 1;
}

/** Approves or rejects a confirmed request; false when it is not confirmed (any more). */
export async function decideSignupRow(tx: Tx, id: string, approved: boolean, nowMs: number): Promise<boolean> {
  const done = await tx.run("UPDATE signup_requests SET status = ?, decided_at_ms = ? WHERE id = ? AND status = 'confirmed'", [
    approved ? 'approved' : 'rejected',
    nowMs,
    id,
  ]);
  return done.changes === 1;
}

/** Records the merchant made for an approved request. */
export async function setSignupMerchant(tx: Tx, id: string, merchantId: string): Promise<void> {
  await tx.run("UPDATE signup_requests SET merchant_id = ? WHERE id = ? AND status = 'approved'", [merchantId, id]);
}

/** Requests of one status (or all), newest first. */
export async function listSignups(tx: Tx, status: SignupStatus | null, limit: number): Promise<SignupRow[]> {
  const rows =
    status === null
      ? await tx.all<SignupRow>(`SELECT ${COLUMNS} FROM signup_requests ORDER BY created_at_ms DESC, id LIMIT ?`, [limit])
      : await tx.all<SignupRow>(`SELECT ${COLUMNS} FROM signup_requests WHERE status = ? ORDER BY created_at_ms DESC, id LIMIT ?`, [status, limit]);
  return rows.map(numeric);
}
