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
import type { AchState, SecCode } from '../domain/ach.ts';
import { type PaymentType, statesShowing, type TransactionState, type TransactionStatus, type TransactionType } from '../domain/card-lifecycle.ts';
import { CHARGE_COLUMNS, type ChargeRow, chargeRowOf } from './charges.ts';
import type { Tx } from './db.ts';
import { BATCH_MEMBER_SQL } from './batches.ts';
import { byKey } from './by-key.ts';

/**
 * What a check transaction's ACH entry adds to its row (store/ach/entries.ts):
 * the account but its number, and where the entry is.
 */
export interface CheckFacts {
  readonly state: AchState;
  readonly account_name: string;
  readonly routing_number: string;
  /** As the request wrote it. */
  readonly account_type: string;
  readonly sec_code: SecCode;
  readonly originated_at_ms: number | null;
  readonly settled_at_ms: number | null;
  readonly returned_at_ms: number | null;
  readonly return_code: string | null;
  readonly return_reason: string | null;
}

/**
 * A charge, refund or verification, in the columns of a charge row; a check
 * (payment_type 'check') with its entry's facts in `check`. Rows a card path
 * read without the entry (an UPDATE ... RETURNING of a card charge) have no
 * `check`: they are cards.
 */
export type TransactionRow = Omit<ChargeRow, 'kind'> & { kind: TransactionType; check?: CheckFacts | null };

/** The entry's columns a transaction read adds (aliased ach_*), from `ach_entries e` joined on the charge. */
const ENTRY_COLUMNS =
  'e.state AS ach_state, e.account_name AS ach_account_name, e.routing_number AS ach_routing_number, e.account_type AS ach_account_type, e.sec_code AS ach_sec_code, ' +
  'e.originated_at_ms AS ach_originated_at_ms, e.settled_at_ms AS ach_settled_at_ms, e.returned_at_ms AS ach_returned_at_ms, e.return_code AS ach_return_code, e.return_reason AS ach_return_reason';
const NO_ENTRY_COLUMNS =
  'NULL AS ach_state, NULL AS ach_account_name, NULL AS ach_routing_number, NULL AS ach_account_type, NULL AS ach_sec_code, ' +
  'NULL AS ach_originated_at_ms, NULL AS ach_settled_at_ms, NULL AS ach_returned_at_ms, NULL AS ach_return_code, NULL AS ach_return_reason';
const WITH_ENTRY = 'LEFT JOIN ach_entries e ON e.charge_pk = c.pk';

/** A verification in the columns of a charge row: no amount, no lifecycle. */
const VERIFICATION_AS_TRANSACTION = `SELECT pk, merchant_id, source_id, status, 0 AS amount_cents, 'USD' AS currency, card_type, last4, bin, expiry_month, expiry_year,
    NULL AS auth_code, avs_result_code, cvv_result_code, error_code, error_message, processor_ref, request_json, idem_key, created_at_ms,
    'verify' AS kind, NULL AS parent_pk, 0 AS auto_capture, NULL AS stage, 0 AS captured_cents, 0 AS voided_cents, 0 AS refunded_cents, 0 AS linked_cents,
    NULL AS batch_id, NULL AS settled_at_ms, NULL AS op, NULL AS op_cents, NULL AS op_source_id, NULL AS op_idem_key, 0 AS void_refused,
    NULL AS customer_pk, NULL AS payment_method_pk, NULL AS schedule_pk, save_card_ref, card_ref, 'card' AS payment_type, ${NO_ENTRY_COLUMNS}
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

const C_COLUMNS = CHARGE_COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ');

/** A condition no row meets: a filter on something no Payrail transaction has. */
const NOTHING = '1 = 0';

/** The SQL condition for rows in one of `states` (none: no row). */
function statesSql(states: readonly TransactionState[]): string {
  return states.length === 0 ? NOTHING : `(${states.map((state) => `(${STATE_SQL[state]})`).join(' OR ')})`;
}

/**
 * A status filter: cards by their card states, checks by their entry's
 * states (a check's status comes from its entry, domain/ach.ts
 * ACH_STATUS_NAMES, never from its charge row).
 */
function statusFilterSql(cardStates: readonly TransactionState[], achStates: readonly AchState[]): string {
  const checks = achStates.length === 0 ? NOTHING : `t.ach_state IN (${achStates.map((state) => `'${state}'`).join(', ')})`;
  return `((t.payment_type = 'card' AND ${statesSql(cardStates)}) OR (t.payment_type = 'check' AND ${checks}))`;
}

/** The SQL condition for `status` (as the spec dialect names it) on the charges (or transactions) table aliased `alias`. */
export function transactionStatusSql(status: TransactionStatus, alias: string): string {
  return statesSql(statesShowing([status], 'spec')).replaceAll('t.', `${alias}.`);
}

export interface TransactionFilters {
  /** The states shown (the status filter, see statesShowing); null for any. */
  readonly states: readonly TransactionState[] | null;
  /** The check entry states the same status filter shows (domain/ach.ts achStatesShowing); read with `states`. */
  readonly achStates?: readonly AchState[] | null | undefined;
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

/** accept.blue's payment types as the charges table writes them (verifications are cards). */
const PAYMENT_TYPE_COLUMN: Readonly<Record<PaymentType, 'card' | 'check'>> = { credit_card: 'card', check: 'check' };

const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A read row (with the entry's ach_* columns) as a TransactionRow: a check's facts gathered in `check`, a card's row as it always read. */
function rowOf(raw: Record<string, unknown>): TransactionRow {
  const {
    ach_state,
    ach_account_name,
    ach_routing_number,
    ach_account_type,
    ach_sec_code,
    ach_originated_at_ms,
    ach_settled_at_ms,
    ach_returned_at_ms,
    ach_return_code,
    ach_return_reason,
    ...rest
  } = raw;
  const row = chargeRowOf(rest as unknown as ChargeRow) as unknown as TransactionRow;
  if (ach_state === null || ach_state === undefined) return row;
  row.check = {
    state: ach_state as AchState,
    account_name: String(ach_account_name),
    routing_number: String(ach_routing_number),
    account_type: String(ach_account_type),
    sec_code: ach_sec_code as SecCode,
    originated_at_ms: nullableNumber(ach_originated_at_ms),
    settled_at_ms: nullableNumber(ach_settled_at_ms),
    returned_at_ms: nullableNumber(ach_returned_at_ms),
    return_code: (ach_return_code as string | null) ?? null,
    return_reason: (ach_return_reason as string | null) ?? null,
  };
  return row;
}

/**
 * A transaction of the merchant by reference number; another merchant's
 * reads as absent. A card is one statement by the charges key, as it always
 * was; a check's entry is read by its own key after it.
 */
export async function getTransaction(tx: Tx, pk: number, merchantId: string): Promise<TransactionRow | undefined> {
  const row =
    (await tx.get<Record<string, unknown>>(`SELECT ${CHARGE_COLUMNS} FROM charges WHERE ${byKey('pk', 'merchant_id = ?')}`, [pk, merchantId])) ??
    (await tx.get<Record<string, unknown>>(`${VERIFICATION_AS_TRANSACTION} WHERE ${byKey('pk', 'merchant_id = ?')}`, [pk, merchantId]));
  if (row === undefined) return undefined;
  if (row.payment_type !== 'check') return rowOf(row);
  const entry = await tx.get<Record<string, unknown>>(`SELECT ${ENTRY_COLUMNS} FROM ach_entries e WHERE e.charge_pk = ?`, [pk]);
  return rowOf({ ...row, ...entry });
}

/** Verifications are listed only with the merchant's transactions, and only where a filter can find one (they never settle). */
function withVerifications(filters: TransactionFilters): boolean {
  return (filters.type === null || filters.type === 'verify') && filters.settledFromMs === null && filters.settledBeforeMs === null;
}

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
            sql: `SELECT ${C_COLUMNS}, ${ENTRY_COLUMNS} FROM charges c ${WITH_ENTRY} WHERE c.merchant_id = ? UNION ALL ${VERIFICATION_AS_TRANSACTION} WHERE merchant_id = ?`,
            params: [merchantId, merchantId],
            orderBy: byTime,
          }
        : { sql: `SELECT ${C_COLUMNS}, ${ENTRY_COLUMNS} FROM charges c ${WITH_ENTRY} WHERE c.merchant_id = ?`, params: [merchantId], orderBy: byTime };
    case 'batch':
      return {
        sql: `SELECT ${C_COLUMNS}, ${NO_ENTRY_COLUMNS} FROM charges c JOIN batches b ON ${BATCH_MEMBER_SQL} WHERE b.id = ? AND b.merchant_id = ?`,
        params: [scope.batchId, merchantId],
        orderBy: byTime,
      };
    case 'customer':
      return {
        sql: `SELECT ${C_COLUMNS}, ${ENTRY_COLUMNS} FROM charges c ${WITH_ENTRY} WHERE c.customer_pk = ? AND c.merchant_id = ?`,
        params: [scope.customerPk, merchantId],
        orderBy: 't.pk DIR',
      };
    case 'schedule':
      return {
        sql: `SELECT ${C_COLUMNS}, ${ENTRY_COLUMNS} FROM charges c ${WITH_ENTRY} WHERE c.schedule_pk = ? AND c.merchant_id = ?`,
        params: [scope.schedulePk, merchantId],
        orderBy: 't.pk DIR',
      };
  }
}

/** The filters as conditions on `t`, with their parameters. */
function filterSql(filters: TransactionFilters): { where: string[]; params: Array<string | number> } {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filters.states !== null) where.push(statusFilterSql(filters.states, filters.achStates ?? []));
  if (filters.paymentTypes !== null) {
    const types = [...new Set(filters.paymentTypes.map((type) => PAYMENT_TYPE_COLUMN[type]))];
    where.push(types.length === 0 ? NOTHING : `t.payment_type IN (${types.map(() => '?').join(', ')})`);
    params.push(...types);
  }
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
  const rowsFound = await tx.all<Record<string, unknown>>(
    `SELECT * FROM (${rows.sql}) t
     ${conditions.where.length === 0 ? '' : `WHERE ${conditions.where.join(' AND ')}`}
     ORDER BY ${rows.orderBy.replaceAll('DIR', direction)} LIMIT ? OFFSET ?`,
    [...rows.params, ...conditions.params, page.limit, page.offset],
  );
  return rowsFound.map(rowOf);
}
