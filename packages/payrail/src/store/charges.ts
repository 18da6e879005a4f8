// Card charges. A charge row is written as `pending` before the processor is
// called (so a crash can never lose a charge the processor may have made)
// and its outcome is recorded by a guarded UPDATE afterwards. The sealed card
// number is kept only while the charge may need the processor again.
import type { Tx } from './db.ts';

export type ChargeStatus = 'approved' | 'pending' | 'declined' | 'failed';

export interface ChargeRow {
  pk: number;
  merchant_id: string;
  source_id: string;
  status: ChargeStatus;
  amount_cents: number;
  currency: string;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  auth_code: string | null;
  avs_result_code: string | null;
  cvv_result_code: string | null;
  error_code: string | null;
  error_message: string | null;
  processor_ref: string | null;
  request_json: string;
  idem_key: string | null;
  created_at_ms: number;
}

const COLUMNS =
  'pk, merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, auth_code, avs_result_code, cvv_result_code, error_code, error_message, processor_ref, request_json, idem_key, created_at_ms';

export interface NewCharge {
  merchant_id: string;
  source_id: string;
  amount_cents: number;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  card_number_enc: Buffer;
  request_json: string;
  idem_key: string | null;
  /** When the worker should ask the processor if this request never recorded an outcome. */
  recover_at_ms: number;
  created_at_ms: number;
}

/** Inserts a charge awaiting the processor's answer; returns its reference number. */
export async function insertPendingCharge(tx: Tx, charge: NewCharge): Promise<number> {
  const row = await tx.get<{ pk: number }>(
    `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, idem_key, next_run_at_ms, created_at_ms, updated_at_ms)
     VALUES (?, ?, 'pending', ?, 'USD', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
    [
      charge.merchant_id,
      charge.source_id,
      charge.amount_cents,
      charge.card_type,
      charge.last4,
      charge.bin,
      charge.expiry_month,
      charge.expiry_year,
      charge.card_number_enc,
      charge.request_json,
      charge.idem_key,
      charge.recover_at_ms,
      charge.created_at_ms,
      charge.created_at_ms,
    ],
  );
  if (row === undefined) throw new Error('INSERT INTO charges returned no pk');
  return Number(row.pk);
}

/** What a final charge keeps in place of its sealed card number. */
const ERASED = Buffer.alloc(0);

export interface Outcome {
  status: ChargeStatus;
  auth_code: string;
  avs_result_code: string;
  cvv_result_code: string;
  error_code: string | null;
  error_message: string | null;
  processor_ref: string;
  /** For a pending outcome, when to poll; null once final. */
  next_run_at_ms: number | null;
}

/**
 * Records an outcome for a charge that is still pending. `awaiting` says
 * which pending it must be: `answer` (the processor has not answered yet) or
 * `review` (answered pending, being polled). Returns false when someone else
 * recorded it first; then nothing changed.
 */
export async function recordOutcome(tx: Tx, pk: number, awaiting: 'answer' | 'review', outcome: Outcome, nowMs: number): Promise<boolean> {
  // A final charge never goes to the processor again, so its sealed card
  // number is erased with the outcome; a pending one keeps it for recovery.
  const erase = outcome.status === 'pending' ? '' : ', card_number_enc = ?';
  const result = await tx.run(
    `UPDATE charges SET status = ?, auth_code = ?, avs_result_code = ?, cvv_result_code = ?, error_code = ?, error_message = ?, processor_ref = ?, next_run_at_ms = ?, updated_at_ms = ?${erase}
     WHERE pk = ? AND status = 'pending' AND processor_ref IS ${awaiting === 'answer' ? 'NULL' : 'NOT NULL'}`,
    [
      outcome.status,
      outcome.auth_code,
      outcome.avs_result_code,
      outcome.cvv_result_code,
      outcome.error_code,
      outcome.error_message,
      outcome.processor_ref,
      outcome.next_run_at_ms,
      nowMs,
      ...(erase === '' ? [] : [ERASED]),
      pk,
    ],
  );
  return result.changes === 1;
}

/** A charge of this merchant by reference number; another merchant's reads as absent. */
export async function getCharge(tx: Tx, pk: number, merchantId: string): Promise<ChargeRow | undefined> {
  return tx.get<ChargeRow>(`SELECT ${COLUMNS} FROM charges WHERE pk = ? AND merchant_id = ?`, [pk, merchantId]);
}

export interface DueCharge extends ChargeRow {
  card_number_enc: Buffer;
}

/**
 * Claims at most `limit` pending charges that are due, by pushing their next
 * run to `leaseUntilMs` in the same statement: two workers never process one
 * charge at once (the outer WHERE is re-checked on a row a concurrent claim
 * already moved, so PostgreSQL skips it).
 */
export async function claimDueCharges(tx: Tx, nowMs: number, leaseUntilMs: number, limit: number): Promise<DueCharge[]> {
  const rows = await tx.all<DueCharge>(
    `UPDATE charges SET next_run_at_ms = ?
     WHERE status = 'pending' AND next_run_at_ms <= ?
       AND pk IN (SELECT pk FROM charges WHERE status = 'pending' AND next_run_at_ms <= ? ORDER BY next_run_at_ms LIMIT ?)
     RETURNING ${COLUMNS}, card_number_enc`,
    [leaseUntilMs, nowMs, nowMs, limit],
  );
  return rows.map((row) => ({ ...row, pk: Number(row.pk) }));
}

/** Sets when to look at a pending charge again (a processor that is still reviewing, or unreachable). */
export async function rescheduleCharge(tx: Tx, pk: number, nextRunAtMs: number): Promise<void> {
  await tx.run("UPDATE charges SET next_run_at_ms = ? WHERE pk = ? AND status = 'pending'", [nextRunAtMs, pk]);
}
