// Zero-amount card checks (POST /api/v2/transactions/verify, docs/api-decisions.md section 10). A
// verification is written as `pending` before the processor is asked, like a
// charge, and keeps its sealed card number only until the answer is recorded,
// so the worker can ask again after a crash or timeout.
import type { Tx } from './db.ts';
import { getRowHoldingKey, type HeldKey } from './idempotency.ts';
import { byKey } from './by-key.ts';

export interface VerificationRow {
  pk: number;
  merchant_id: string;
  source_id: string;
  status: 'approved' | 'pending' | 'declined' | 'failed';
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
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
  'pk, merchant_id, source_id, status, card_type, last4, bin, expiry_month, expiry_year, avs_result_code, cvv_result_code, error_code, error_message, processor_ref, request_json, idem_key, created_at_ms';

export type NewVerification = Omit<
  VerificationRow,
  'pk' | 'status' | 'avs_result_code' | 'cvv_result_code' | 'error_code' | 'error_message' | 'processor_ref'
> & {
  card_number_enc: Buffer;
  /** The card kept for later `ref-` charges should the verification be approved. */
  ref_card_enc: Buffer;
  recover_at_ms: number;
  /** `save_card: true`: the token an approval issues (card_ref). */
  save_card_ref: string | null;
};

function rowOf<T extends VerificationRow>(row: T): T {
  return { ...row, pk: Number(row.pk) };
}

export async function insertPendingVerification(tx: Tx, v: NewVerification): Promise<number> {
  const pk = await tx.insert(
    `INSERT INTO verifications (merchant_id, source_id, status, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, ref_card_enc, request_json, idem_key,
       next_run_at_ms, created_at_ms, updated_at_ms, save_card_ref)
     VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      v.merchant_id,
      v.source_id,
      v.card_type,
      v.last4,
      v.bin,
      v.expiry_month,
      v.expiry_year,
      v.card_number_enc,
      v.ref_card_enc,
      v.request_json,
      v.idem_key,
      v.recover_at_ms,
      v.created_at_ms,
      v.created_at_ms,
      v.save_card_ref,
    ],
  );
  if (pk === null) throw new Error('INSERT INTO verifications returned no pk');
  return pk;
}

export interface VerificationOutcome {
  status: 'approved' | 'declined' | 'failed';
  avs_result_code: string;
  cvv_result_code: string;
  error_code: string | null;
  error_message: string | null;
  processor_ref: string;
  /** An approval's network transaction id (migration 023); null when the processor gave none. */
  network_transaction_id?: string | null;
}

/**
 * Records the answer of a pending verification and erases its card number
 * (and, unless approved, the copy kept for `ref-` charges); false when recorded already.
 */
export async function recordVerificationOutcome(tx: Tx, pk: number, outcome: VerificationOutcome, nowMs: number): Promise<boolean> {
  const eraseRef = outcome.status === 'approved' ? '' : ', ref_card_enc = NULL';
  const result = await tx.run(
    `UPDATE verifications SET status = ?, avs_result_code = ?, cvv_result_code = ?, error_code = ?, error_message = ?, processor_ref = ?,
       next_run_at_ms = NULL, card_number_enc = ?, updated_at_ms = ?, network_transaction_id = ?${eraseRef}${outcome.status === 'approved' ? ', card_ref = save_card_ref' : ''}
     WHERE ${byKey('pk', "status = 'pending'")}`,
    [
      outcome.status,
      outcome.avs_result_code,
      outcome.cvv_result_code,
      outcome.error_code,
      outcome.error_message,
      outcome.processor_ref,
      Buffer.alloc(0),
      nowMs,
      outcome.status === 'approved' ? (outcome.network_transaction_id ?? null) : null,
      pk,
    ],
  );
  return result.changes === 1;
}

export async function getVerification(tx: Tx, pk: number, merchantId: string): Promise<VerificationRow | undefined> {
  const row = await tx.get<VerificationRow>(`SELECT ${COLUMNS} FROM verifications WHERE ${byKey('pk', 'merchant_id = ?')}`, [pk, merchantId]);
  return row === undefined ? undefined : rowOf(row);
}

/** The verification made with an Idempotency-Key of this source at or after the key's reservation (see getRowHoldingKey). */
export async function getVerificationHoldingKey(tx: Tx, key: HeldKey): Promise<VerificationRow | undefined> {
  const row = await getRowHoldingKey<VerificationRow>(tx, `SELECT ${COLUMNS} FROM verifications`, key);
  return row === undefined ? undefined : rowOf(row);
}

export interface DueVerification extends VerificationRow {
  card_number_enc: Buffer;
}

/** Claims at most `limit` pending verifications that are due, leasing them until `leaseUntilMs`. */
export async function claimDueVerifications(tx: Tx, nowMs: number, leaseUntilMs: number, limit: number): Promise<DueVerification[]> {
  const rows = await tx.all<DueVerification>(
    `UPDATE verifications SET next_run_at_ms = ?
     WHERE status = 'pending' AND next_run_at_ms <= ?
       AND pk IN (SELECT pk FROM verifications WHERE status = 'pending' AND next_run_at_ms <= ? ORDER BY next_run_at_ms LIMIT ?)
     RETURNING ${COLUMNS}, card_number_enc`,
    [leaseUntilMs, nowMs, nowMs, limit],
  );
  return rows.map(rowOf);
}
