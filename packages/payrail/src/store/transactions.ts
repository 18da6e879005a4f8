// Card transactions as the payin API reads them (docs/api-decisions.md
// sections 10 and 14): charges and refunds (the charges table) and
// verifications (their own table, with reference numbers of their own range),
// as one kind of row. The list filters by the status merchants see, which
// domain/card-lifecycle.ts derives from the raw facts; the SQL for each
// status is written here, next to the columns it reads.
import type { TransactionStatus, TransactionType } from '../domain/card-lifecycle.ts';
import { CHARGE_COLUMNS, type ChargeRow, chargeRowOf } from './charges.ts';
import type { Tx } from './db.ts';
import { BATCH_MEMBER_SQL } from './batches.ts';
import { byKey } from './by-key.ts';

/** A charge, refund or verification, in the columns of a charge row. */
export type TransactionRow = Omit<ChargeRow, 'kind'> & { kind: TransactionType };

/** A verification in the columns of a charge row: no amount, no lifecycle. */
const VERIFICATION_AS_TRANSACTION = `SELECT pk, merchant_id, source_id, status, 0 AS amount_cents, 'USD' AS currency, card_type, last4, bin, expiry_month, expiry_year,
    NULL AS auth_code, avs_result_code, cvv_result_code, error_code, error_message, processor_ref, request_json, idem_key, created_at_ms,
    'verify' AS kind, NULL AS parent_pk, 0 AS auto_capture, NULL AS stage, 0 AS captured_cents, 0 AS voided_cents, 0 AS refunded_cents, 0 AS linked_cents,
    NULL AS batch_id, NULL AS settled_at_ms, NULL AS op, NULL AS op_cents, NULL AS op_source_id, NULL AS op_idem_key, 0 AS void_refused,
    NULL AS customer_pk, NULL AS payment_method_pk, NULL AS schedule_pk, save_card_ref, card_ref
  FROM verifications`;

/** The SQL condition for `status` on the charges (or transactions) table aliased `alias`. */
export function transactionStatusSql(status: TransactionStatus, alias: string): string {
  return STATUS_SQL[status].replaceAll('t.', `${alias}.`);
}

/** The SQL condition (on a transaction row `t`) for each status, mirroring transactionStatusOf. */
const STATUS_SQL: Readonly<Record<TransactionStatus, string>> = {
  pending: "(t.status = 'pending' OR t.op IS NOT NULL)",
  declined: "t.status = 'declined'",
  error: "t.status = 'failed'",
  approved: "t.status = 'approved' AND t.op IS NULL AND (t.stage IS NULL OR t.stage = 'authorized')",
  captured: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'captured'",
  settled: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'settled'",
  voided: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'voided'",
  expired: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'expired'",
};

export interface TransactionFilters {
  readonly status: TransactionStatus | null;
  readonly type: TransactionType | null;
  /** Inclusive lower bound of created_at. */
  readonly createdFromMs: number | null;
  /** Exclusive upper bound of created_at. */
  readonly createdBeforeMs: number | null;
}

function rowOf(row: TransactionRow): TransactionRow {
  return chargeRowOf(row as ChargeRow) as unknown as TransactionRow;
}

/** A transaction of the merchant by reference number; another merchant's reads as absent. */
export async function getTransaction(tx: Tx, pk: number, merchantId: string): Promise<TransactionRow | undefined> {
  const row =
    (await tx.get<TransactionRow>(`SELECT ${CHARGE_COLUMNS} FROM charges WHERE ${byKey('pk', 'merchant_id = ?')}`, [pk, merchantId])) ??
    (await tx.get<TransactionRow>(`${VERIFICATION_AS_TRANSACTION} WHERE ${byKey('pk', 'merchant_id = ?')}`, [pk, merchantId]));
  return row === undefined ? undefined : rowOf(row);
}

/** The merchant's transactions matching the filters, newest first. */
export async function listTransactions(
  tx: Tx,
  merchantId: string,
  filters: TransactionFilters,
  page: { limit: number; offset: number },
): Promise<TransactionRow[]> {
  const where: string[] = [];
  const params: Array<string | number> = [merchantId, merchantId];
  if (filters.status !== null) where.push(STATUS_SQL[filters.status]);
  if (filters.type !== null) {
    where.push('t.kind = ?');
    params.push(filters.type);
  }
  if (filters.createdFromMs !== null) {
    where.push('t.created_at_ms >= ?');
    params.push(filters.createdFromMs);
  }
  if (filters.createdBeforeMs !== null) {
    where.push('t.created_at_ms < ?');
    params.push(filters.createdBeforeMs);
  }
  params.push(page.limit, page.offset);
  const rows = await tx.all<TransactionRow>(
    `SELECT * FROM (SELECT ${CHARGE_COLUMNS} FROM charges WHERE merchant_id = ? UNION ALL ${VERIFICATION_AS_TRANSACTION} WHERE merchant_id = ?) t
     ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY t.created_at_ms DESC, t.pk DESC LIMIT ? OFFSET ?`,
    params,
  );
  return rows.map(rowOf);
}

/** The transactions batch `batchId` of the merchant holds, newest first. */
export async function listBatchTransactions(tx: Tx, merchantId: string, batchId: number, page: { limit: number; offset: number }): Promise<TransactionRow[]> {
  const columns = CHARGE_COLUMNS.split(', ')
    .map((column) => `c.${column}`)
    .join(', ');
  const rows = await tx.all<TransactionRow>(
    `SELECT ${columns} FROM charges c JOIN batches b ON ${BATCH_MEMBER_SQL}
     WHERE b.id = ? AND b.merchant_id = ? ORDER BY c.created_at_ms DESC, c.pk DESC LIMIT ? OFFSET ?`,
    [batchId, merchantId, page.limit, page.offset],
  );
  return rows.map(rowOf);
}
