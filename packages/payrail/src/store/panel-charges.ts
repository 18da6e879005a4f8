// Read-only projections of charges for the control panel: the merchant's
// list and detail pages, and the charges the operator's reconciliation queue
// offers. Columns come from ChargeRow (store/charges.ts), the one row type of
// the table, plus linked_cents and updated_at_ms, which only the panel shows.
// Every merchant read takes the merchant id and filters on it, so another
// merchant's charge reads as absent; every list is bounded by `limit`.
// A check (charges.payment_type 'check') brings its ACH entry (migration
// 029) through a LEFT JOIN: the status it shows comes from the entry's state.
import type { AchEntryRow } from './ach/entries.ts';
import { type AchState, achStatesShowing } from '../domain/ach.ts';
import { TRANSACTION_STATUSES, type TransactionStatus } from '../domain/card-lifecycle.ts';
import { type ChargeRow, linkableChargeSql, unlinkedCentsSql } from './charges.ts';
import { transactionStatusSql } from './transactions.ts';
import { waitingForSql } from './transfers.ts';
import type { Tx } from './db.ts';
import { addGivenConditions } from './optional-conditions.ts';
import { byKey } from './by-key.ts';

/** A charge (or a refund) as a row of the merchant's list, with what its lifecycle status is derived from. */
export type ChargeListItem = Pick<
  ChargeRow,
  | 'pk'
  | 'status'
  | 'amount_cents'
  | 'currency'
  | 'card_type'
  | 'last4'
  | 'created_at_ms'
  | 'kind'
  | 'parent_pk'
  | 'stage'
  | 'op'
  | 'captured_cents'
  | 'refunded_cents'
> & {
  /** How much of the amount is reserved by transfers linked to it. */
  linked_cents: number;
  payment_type: PanelPaymentType;
  /** A check's ACH entry state; null for a card (and for a check whose entry is missing, which reads as submitting). */
  ach_state: AchState | null;
  ach_return_code: string | null;
  ach_return_reason: string | null;
};

/** What a charge was paid with: a card, or a bank account (a check, behaviour section 17). */
export const PANEL_PAYMENT_TYPES = ['card', 'check'] as const;
export type PanelPaymentType = (typeof PANEL_PAYMENT_TYPES)[number];

/** The statuses a check shows that no card does (domain/ach.ts ACH_STATUS_NAMES). */
export const CHECK_ONLY_STATUSES = ['originated', 'returned'] as const;
/** Every status the panel's list shows and filters by: the card statuses, then those only checks reach. */
export const PANEL_CHARGE_STATUSES = [...TRANSACTION_STATUSES, ...CHECK_ONLY_STATUSES] as const;
export type PanelChargeStatus = (typeof PANEL_CHARGE_STATUSES)[number];

/** The columns of ChargeListItem, `c` the charge and `e` its ACH entry. */
const LIST_COLUMNS =
  'c.pk, c.status, c.amount_cents, c.currency, c.card_type, c.last4, c.linked_cents, c.created_at_ms, c.kind, c.parent_pk, c.stage, c.op, c.captured_cents, c.refunded_cents, c.payment_type, e.state AS ach_state, e.return_code AS ach_return_code, e.return_reason AS ach_return_reason';

/** Charges with the ACH entry of each check (none for a card). */
const FROM_CHARGES = 'charges c LEFT JOIN ach_entries e ON e.charge_pk = c.pk';

function listItemOf<T extends ChargeListItem>(row: T): T {
  return {
    ...row,
    pk: Number(row.pk),
    parent_pk: row.parent_pk === null ? null : Number(row.parent_pk),
    captured_cents: Number(row.captured_cents),
    refunded_cents: Number(row.refunded_cents),
    linked_cents: Number(row.linked_cents),
    amount_cents: Number(row.amount_cents),
    created_at_ms: Number(row.created_at_ms),
    ach_state: row.ach_state ?? null,
    ach_return_code: row.ach_return_code ?? null,
    ach_return_reason: row.ach_return_reason ?? null,
  };
}

/**
 * The condition selecting the charges that show `status`: a card by its
 * lifecycle facts, a check by its entry's state (a check without an entry
 * yet counts as submitting). Each side is guarded by payment_type, so an
 * approved check never reads as an approved card.
 */
function statusSql(status: PanelChargeStatus): { sql: string; params: string[] } {
  const card = (TRANSACTION_STATUSES as readonly string[]).includes(status) ? transactionStatusSql(status as TransactionStatus, 'c') : '1 = 0';
  const states = achStatesShowing([status]);
  const check = states.length === 0 ? '1 = 0' : `COALESCE(e.state, 'submitting') IN (${states.map(() => '?').join(', ')})`;
  return { sql: `((c.payment_type = 'card' AND ${card}) OR (c.payment_type = 'check' AND ${check}))`, params: states };
}

export interface ChargeListFilters {
  /** The status merchants see (docs/api-decisions.md section 10; a check's from its ACH entry). */
  readonly status: PanelChargeStatus | null;
  /** Cards or checks only; null for both. */
  readonly paymentType?: PanelPaymentType | null;
  readonly fromMs: number | null;
  /** Exclusive upper bound. */
  readonly toMs: number | null;
  /** Keyset cursor: only charges with a smaller pk. */
  readonly beforePk: number | null;
  /** Keyset cursor: only charges with a larger pk (a newer page). */
  readonly afterPk?: number | null;
}

function chargeWhere(merchantId: string, filters: ChargeListFilters): { sql: string; params: Array<string | number> } {
  const where = ['c.merchant_id = ?'];
  const params: Array<string | number> = [merchantId];
  if (filters.status !== null) {
    const status = statusSql(filters.status);
    where.push(status.sql);
    params.push(...status.params);
  }
  addGivenConditions(where, params, [
    ['c.payment_type = ?', filters.paymentType ?? null],
    ['c.created_at_ms >= ?', filters.fromMs],
    ['c.created_at_ms < ?', filters.toMs],
    ['c.pk < ?', filters.beforePk],
    ['c.pk > ?', filters.afterPk],
  ]);
  return { sql: where.join(' AND '), params };
}

/**
 * Up to `limit` charges of the merchant matching the filters, newest first.
 * With `afterPk` these are the oldest of those newer than it (the page just
 * before, in the list's order).
 */
export async function listChargeItems(tx: Tx, merchantId: string, filters: ChargeListFilters, limit: number): Promise<ChargeListItem[]> {
  const { sql, params } = chargeWhere(merchantId, filters);
  const ascending = filters.afterPk !== null && filters.afterPk !== undefined;
  const rows = await tx.all<ChargeListItem>(`SELECT ${LIST_COLUMNS} FROM ${FROM_CHARGES} WHERE ${sql} ORDER BY c.pk ${ascending ? 'ASC' : 'DESC'} LIMIT ?`, [
    ...params,
    limit,
  ]);
  const items = rows.map(listItemOf);
  return ascending ? items.reverse() : items;
}

/** How many charges of the merchant match the filters (cursors included). */
export async function countChargeItems(tx: Tx, merchantId: string, filters: ChargeListFilters): Promise<number> {
  const { sql, params } = chargeWhere(merchantId, filters);
  const row = await tx.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${FROM_CHARGES} WHERE ${sql}`, params);
  return Number(row?.n ?? 0);
}

/**
 * The bank-account side of a check as its page shows it: the account (never
 * the sealed number: its last four are the charge's last4) and the times of
 * the entry's life.
 */
/** A check's account and entry as its page shows them (the entry's columns, store/ach/entries.ts). */
export type CheckAccountDetail = Pick<
  AchEntryRow,
  | 'direction'
  | 'account_name'
  | 'routing_number'
  | 'account_type'
  | 'sec_code'
  | 'state'
  | 'submitted_at_ms'
  | 'originated_at_ms'
  | 'settled_at_ms'
  | 'returned_at_ms'
  | 'return_code'
  | 'return_reason'
  | 'decline_message'
  | 'updated_at_ms'
  | 'submitted_ach_ms'
>;

/** A charge as its detail page shows it: never the sealed card number, nor processor or idempotency internals. */
export type ChargeDetail = ChargeListItem &
  Pick<
    ChargeRow,
    | 'source_id'
    | 'bin'
    | 'expiry_month'
    | 'expiry_year'
    | 'auth_code'
    | 'avs_result_code'
    | 'cvv_result_code'
    | 'error_code'
    | 'error_message'
    | 'request_json'
    | 'settled_at_ms'
    | 'void_refused'
    | 'customer_pk'
    | 'schedule_pk'
  > & {
    updated_at_ms: number;
    /** A check's account and entry; null for a card. */
    check: CheckAccountDetail | null;
  };

const CHECK_COLUMNS =
  'e.direction AS e_direction, e.account_name AS e_account_name, e.routing_number AS e_routing_number, e.account_type AS e_account_type, e.sec_code AS e_sec_code, e.submitted_at_ms AS e_submitted_at_ms, e.originated_at_ms AS e_originated_at_ms, e.settled_at_ms AS e_settled_at_ms, e.returned_at_ms AS e_returned_at_ms, e.decline_message AS e_decline_message, e.updated_at_ms AS e_updated_at_ms, e.submitted_ach_ms AS e_submitted_ach_ms';

const msOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function checkOf(row: Record<string, unknown>): CheckAccountDetail | null {
  if (row.ach_state === null || row.ach_state === undefined) return null;
  return {
    direction: row.e_direction as CheckAccountDetail['direction'],
    account_name: String(row.e_account_name),
    routing_number: String(row.e_routing_number),
    account_type: String(row.e_account_type),
    sec_code: row.e_sec_code as CheckAccountDetail['sec_code'],
    state: row.ach_state as AchState,
    submitted_at_ms: Number(row.e_submitted_at_ms),
    originated_at_ms: msOrNull(row.e_originated_at_ms),
    settled_at_ms: msOrNull(row.e_settled_at_ms),
    returned_at_ms: msOrNull(row.e_returned_at_ms),
    return_code: (row.ach_return_code as string | null) ?? null,
    return_reason: (row.ach_return_reason as string | null) ?? null,
    decline_message: (row.e_decline_message as string | null) ?? null,
    updated_at_ms: Number(row.e_updated_at_ms),
    submitted_ach_ms: msOrNull(row.e_submitted_ach_ms),
  };
}

export async function getChargeDetail(tx: Tx, merchantId: string, pk: number): Promise<ChargeDetail | undefined> {
  const row = await tx.get<ChargeDetail & Record<string, unknown>>(
    `SELECT ${LIST_COLUMNS}, c.source_id, c.bin, c.expiry_month, c.expiry_year,
            c.auth_code, c.avs_result_code, c.cvv_result_code, c.error_code, c.error_message, c.request_json, c.updated_at_ms, c.settled_at_ms, c.void_refused,
            c.customer_pk, c.schedule_pk, ${CHECK_COLUMNS}
     FROM ${FROM_CHARGES} WHERE ${byKey('c.pk', 'c.merchant_id = ?')}`,
    [pk, merchantId],
  );
  if (row === undefined) return undefined;
  const item = listItemOf(row);
  const check = checkOf(row);
  const detail: ChargeDetail = {
    pk: item.pk,
    status: item.status,
    amount_cents: item.amount_cents,
    currency: item.currency,
    card_type: item.card_type,
    last4: item.last4,
    created_at_ms: item.created_at_ms,
    kind: item.kind,
    parent_pk: item.parent_pk,
    stage: item.stage,
    op: item.op,
    captured_cents: item.captured_cents,
    refunded_cents: item.refunded_cents,
    linked_cents: item.linked_cents,
    payment_type: item.payment_type,
    ach_state: item.ach_state,
    ach_return_code: item.ach_return_code,
    ach_return_reason: item.ach_return_reason,
    source_id: item.source_id,
    bin: item.bin,
    expiry_month: item.expiry_month,
    expiry_year: item.expiry_year,
    auth_code: item.auth_code,
    avs_result_code: item.avs_result_code,
    cvv_result_code: item.cvv_result_code,
    error_code: item.error_code,
    error_message: item.error_message,
    request_json: item.request_json,
    settled_at_ms: msOrNull(item.settled_at_ms),
    void_refused: item.void_refused,
    updated_at_ms: Number(item.updated_at_ms),
    customer_pk: item.customer_pk === null ? null : Number(item.customer_pk),
    schedule_pk: item.schedule_pk === null ? null : Number(item.schedule_pk),
    check,
  };
  return detail;
}

/** The refunds of a charge of the merchant, oldest first, as list rows (a check's refund with its entry's state). */
export async function listChargeRefundItems(tx: Tx, merchantId: string, parentPk: number, limit: number): Promise<ChargeListItem[]> {
  const rows = await tx.all<ChargeListItem>(
    `SELECT ${LIST_COLUMNS} FROM ${FROM_CHARGES} WHERE c.parent_pk = ? AND c.merchant_id = ? AND c.kind = 'refund' ORDER BY c.pk LIMIT ?`,
    [parentPk, merchantId, limit],
  );
  return rows.map(listItemOf);
}

/** A transfer linked to a charge, with the share of the charge it holds. */
export interface ChargeTransferLink {
  /** The transfer's id. */
  id: string;
  /** The linked share, not the transfer's amount. */
  amount_cents: number;
  state: number;
  how: string;
  created_at_ms: number;
}

/** Transfers of the merchant linked to one of its charges, in the order they were linked. */
export async function listChargeTransferLinks(tx: Tx, merchantId: string, chargePk: number, limit: number): Promise<ChargeTransferLink[]> {
  return tx.all<ChargeTransferLink>(
    `SELECT t.id, l.amount_cents, t.state, l.how, l.created_at_ms FROM transfer_links l JOIN transfers t ON t.pk = l.transfer_pk
     WHERE l.charge_pk = ? AND t.merchant_id = ? ORDER BY l.created_at_ms LIMIT ?`,
    [chargePk, merchantId, limit],
  );
}

/** An approved charge with an unlinked remainder, offered to the operator for linking. */
export type ReconciliationCandidate = Pick<ChargeRow, 'pk' | 'merchant_id' | 'amount_cents' | 'created_at_ms'> & { linked_cents: number };

/** Up to `limit` candidates, newest first, of the merchants that have a transfer waiting for reconciliation. */
export async function listReconciliationCandidates(tx: Tx, limit: number): Promise<ReconciliationCandidate[]> {
  return tx.all<ReconciliationCandidate>(
    `SELECT c.pk, c.merchant_id, c.amount_cents, c.linked_cents, c.created_at_ms FROM charges c
     WHERE ${linkableChargeSql('c')} AND ${unlinkedCentsSql('c')} > 0
       AND c.merchant_id IN (SELECT t.merchant_id FROM transfers t WHERE ${waitingForSql('reconciliation', 't')})
     ORDER BY c.created_at_ms DESC, c.pk DESC LIMIT ?`,
    [limit],
  );
}
