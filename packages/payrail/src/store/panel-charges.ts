// Read-only projections of charges for the control panel: the merchant's
// list and detail pages, and the charges the operator's reconciliation queue
// offers. Columns come from ChargeRow (store/charges.ts), the one row type of
// the table, plus linked_cents and updated_at_ms, which only the panel shows.
// Every merchant read takes the merchant id and filters on it, so another
// merchant's charge reads as absent; every list is bounded by `limit`.
import type { TransactionStatus } from '../domain/card-lifecycle.ts';
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
};

/** The columns of ChargeListItem. */
const LIST_COLUMNS =
  'pk, status, amount_cents, currency, card_type, last4, linked_cents, created_at_ms, kind, parent_pk, stage, op, captured_cents, refunded_cents';

function listItemOf<T extends ChargeListItem>(row: T): T {
  return {
    ...row,
    pk: Number(row.pk),
    parent_pk: row.parent_pk === null ? null : Number(row.parent_pk),
    captured_cents: Number(row.captured_cents),
    refunded_cents: Number(row.refunded_cents),
  };
}

export interface ChargeListFilters {
  /** The status merchants see (docs/api-decisions.md section 10). */
  readonly status: TransactionStatus | null;
  readonly fromMs: number | null;
  /** Exclusive upper bound. */
  readonly toMs: number | null;
  /** Keyset cursor: only charges with a smaller pk. */
  readonly beforePk: number | null;
  /** Keyset cursor: only charges with a larger pk (a newer page). */
  readonly afterPk?: number | null;
}

function chargeWhere(merchantId: string, filters: ChargeListFilters): { sql: string; params: Array<string | number> } {
  const where = ['merchant_id = ?'];
  const params: Array<string | number> = [merchantId];
  if (filters.status !== null) where.push(transactionStatusSql(filters.status, 'charges'));
  addGivenConditions(where, params, [
    ['created_at_ms >= ?', filters.fromMs],
    ['created_at_ms < ?', filters.toMs],
    ['pk < ?', filters.beforePk],
    ['pk > ?', filters.afterPk],
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
  const rows = await tx.all<ChargeListItem>(`SELECT ${LIST_COLUMNS} FROM charges WHERE ${sql} ORDER BY pk ${ascending ? 'ASC' : 'DESC'} LIMIT ?`, [
    ...params,
    limit,
  ]);
  const items = rows.map(listItemOf);
  return ascending ? items.reverse() : items;
}

/** How many charges of the merchant match the filters (cursors included). */
export async function countChargeItems(tx: Tx, merchantId: string, filters: ChargeListFilters): Promise<number> {
  const { sql, params } = chargeWhere(merchantId, filters);
  const row = await tx.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM charges WHERE ${sql}`, params);
  return Number(row?.n ?? 0);
}

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
  };

export async function getChargeDetail(tx: Tx, merchantId: string, pk: number): Promise<ChargeDetail | undefined> {
  const row = await tx.get<ChargeDetail>(
    `SELECT ${LIST_COLUMNS}, source_id, bin, expiry_month, expiry_year,
            auth_code, avs_result_code, cvv_result_code, error_code, error_message, request_json, updated_at_ms, settled_at_ms, void_refused,
            customer_pk, schedule_pk
     FROM charges WHERE ${byKey('pk', 'merchant_id = ?')}`,
    [pk, merchantId],
  );
  if (row === undefined) return undefined;
  const item = listItemOf(row);
  return {
    ...item,
    customer_pk: item.customer_pk === null ? null : Number(item.customer_pk),
    schedule_pk: item.schedule_pk === null ? null : Number(item.schedule_pk),
  };
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
