// Card transactions as the payin API reads them (docs/api-decisions.md
// sections 10 and 14): charges and refunds (the charges table) and
// verifications (their own table, with reference numbers of their own range),
// as one kind of row. The lists filter by the status merchants see, which
// domain/card-lifecycle.ts derives from the raw facts through a state; the
// SQL for each state is written here, next to the columns it reads. Every
// list is one statement over an index of its scope: charges (merchant_id,
// created_at_ms) and verifications (merchant_id, created_at_ms) for the
// merchant's, charges_batch for a batch's, charges_customer and
// charges_schedule for a customer's and a schedule's, and charges
// (merchant_id, settled_at_ms) when a settlement time bounds it.
import { type PaymentType, statesShowing, type TransactionState, type TransactionStatus, type TransactionType } from '../domain/card-lifecycle.ts';
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

/** The SQL condition (on a transaction row `t`) for each state, mirroring transactionStateOf. */
const STATE_SQL: Readonly<Record<TransactionState, string>> = {
  processing: "(t.status = 'pending' OR t.op IS NOT NULL)",
  declined: "t.status = 'declined' AND t.op IS NULL",
  failed: "t.status = 'failed' AND t.op IS NULL",
  verified: "t.status = 'approved' AND t.op IS NULL AND t.stage IS NULL",
  authorized: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'authorized'",
  captured: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'captured'",
  settled: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'settled'",
  voided: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'voided'",
  expired: "t.status = 'approved' AND t.op IS NULL AND t.stage = 'expired'",
};

/** A condition no row meets: a filter on something no Payrail transaction has. */
const NOTHING = '1 = 0';

/** The SQL condition for rows in one of `states` (none: no row). */
function statesSql(states: readonly TransactionState[]): string {
  return states.length === 0 ? NOTHING : `(${states.map((state) => `(${STATE_SQL[state]})`).join(' OR ')})`;
}

/** The SQL condition for `status` (as the spec dialect names it) on the charges (or transactions) table aliased `alias`. */
export function transactionStatusSql(status: TransactionStatus, alias: string): string {
  return statesSql(statesShowing([status], 'spec')).replaceAll('t.', `${alias}.`);
}

export interface TransactionFilters {
  /** The states shown (the status filter, see statesShowing); null for any. */
  readonly states: readonly TransactionState[] | null;
  readonly type: TransactionType | null;
  /** Payment types (accept.blue's payment_type); null for any. */
  readonly paymentTypes: readonly PaymentType[] | null;
  /** Inclusive lower bound of created_at. */
  readonly createdFromMs: number | null;
  /** Exclusive upper bound of created_at. */
  readonly createdBeforeMs: number | null;
  /** Inclusive lower bound of the settlement time (a transaction never settled is left out). */
  readonly settledFromMs: number | null;
  /** Exclusive upper bound of the settlement time. */
  readonly settledBeforeMs: number | null;
  /** A pay-link key (accept.blue's `key`): Payrail has no pay links, so nothing matches one. */
  readonly payLinkKey: string | null;
  readonly order: 'asc' | 'desc';
}

/** Which transactions a list reads: the merchant's, a batch's, a stored customer's or a schedule's. */
export type TransactionScope =
  | { readonly of: 'merchant' }
  | { readonly of: 'batch'; readonly batchId: number }
  | { readonly of: 'customer'; readonly customerPk: number }
  | { readonly of: 'schedule'; readonly schedulePk: number };

/**
 * Every transaction is a card transaction: checks (behaviour section 17) are
 * not taken, so a filter for them alone finds none.
 */
const PAYMENT_TYPE_SQL: Readonly<Record<PaymentType, boolean>> = { credit_card: true, check: false };

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

/** Verifications are listed only with the merchant's transactions, and only where a filter can find one (they never settle). */
function withVerifications(filters: TransactionFilters): boolean {
  return (filters.type === null || filters.type === 'verify') && filters.settledFromMs === null && filters.settledBeforeMs === null;
}

const C_COLUMNS = CHARGE_COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ');

/**
 * The rows of the scope as a subquery (aliased `t` by the caller) with its
 * parameters, and the order its index serves: creation time for the
 * merchant's and a batch's, the reference number (charges_customer,
 * charges_schedule) for a customer's and a schedule's.
 */
function scopeSql(merchantId: string, scope: TransactionScope, filters: TransactionFilters): { sql: string; params: Array<string | number>; orderBy: string } {
  const byTime = 't.created_at_ms DIR, t.pk DIR';
  switch (scope.of) {
    case 'merchant':
      return withVerifications(filters)
        ? {
            sql: `SELECT ${CHARGE_COLUMNS} FROM charges WHERE merchant_id = ? UNION ALL ${VERIFICATION_AS_TRANSACTION} WHERE merchant_id = ?`,
            params: [merchantId, merchantId],
            orderBy: byTime,
          }
        : { sql: `SELECT ${CHARGE_COLUMNS} FROM charges WHERE merchant_id = ?`, params: [merchantId], orderBy: byTime };
    case 'batch':
      return {
        sql: `SELECT ${C_COLUMNS} FROM charges c JOIN batches b ON ${BATCH_MEMBER_SQL} WHERE b.id = ? AND b.merchant_id = ?`,
        params: [scope.batchId, merchantId],
        orderBy: byTime,
      };
    case 'customer':
      return {
        sql: `SELECT ${CHARGE_COLUMNS} FROM charges WHERE customer_pk = ? AND merchant_id = ?`,
        params: [scope.customerPk, merchantId],
        orderBy: 't.pk DIR',
      };
    case 'schedule':
      return {
        sql: `SELECT ${CHARGE_COLUMNS} FROM charges WHERE schedule_pk = ? AND merchant_id = ?`,
        params: [scope.schedulePk, merchantId],
        orderBy: 't.pk DIR',
      };
  }
}

/** The filters as conditions on `t`, with their parameters. */
function filterSql(filters: TransactionFilters): { where: string[]; params: Array<string | number> } {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filters.states !== null) where.push(statesSql(filters.states));
  if (filters.paymentTypes !== null && !filters.paymentTypes.some((type) => PAYMENT_TYPE_SQL[type])) where.push(NOTHING);
  if (filters.payLinkKey !== null) where.push(NOTHING);
  if (filters.type !== null) {
    where.push('t.kind = ?');
    params.push(filters.type);
  }
  for (const [condition, value] of [
    ['t.created_at_ms >= ?', filters.createdFromMs],
    ['t.created_at_ms < ?', filters.createdBeforeMs],
    ['t.settled_at_ms >= ?', filters.settledFromMs],
    ['t.settled_at_ms < ?', filters.settledBeforeMs],
  ] as const) {
    if (value === null) continue;
    where.push(condition);
    params.push(value);
  }
  return { where, params };
}

/** A page of the scope's transactions matching the filters, in the filters' order. */
export async function listTransactions(
  tx: Tx,
  merchantId: string,
  scope: TransactionScope,
  filters: TransactionFilters,
  page: { limit: number; offset: number },
): Promise<TransactionRow[]> {
  const rows = scopeSql(merchantId, scope, filters);
  const conditions = filterSql(filters);
  const direction = filters.order === 'asc' ? 'ASC' : 'DESC';
  const rowsFound = await tx.all<TransactionRow>(
    `SELECT * FROM (${rows.sql}) t
     ${conditions.where.length === 0 ? '' : `WHERE ${conditions.where.join(' AND ')}`}
     ORDER BY ${rows.orderBy.replaceAll('DIR', direction)} LIMIT ? OFFSET ?`,
    [...rows.params, ...conditions.params, page.limit, page.offset],
  );
  return rowsFound.map(rowOf);
}
