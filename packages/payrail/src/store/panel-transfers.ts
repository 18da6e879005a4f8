// Read-only projections of transfers for the control panel: the merchant's
// list and detail pages (with state history and the linked charge), and the
// operator's queue of transfers waiting for reconciliation. Columns come from
// TransferRow (store/transfers.ts), the one row type of the table, plus the
// columns only the panel shows. Every merchant read takes the merchant id and
// filters on it; every list is bounded by `limit`.
import type { ReversalMark } from '../domain/transfer-reversals.ts';
import type { Tx } from './db.ts';
import { STATE, SUBSTATE } from '../domain/transfer-states.ts';
import { type TransferRow, waitingForSql } from './transfers.ts';
import { addGivenConditions } from './optional-conditions.ts';

/** A transfer as a row of the merchant's list. */
export type TransferListItem = Pick<
  TransferRow,
  'pk' | 'id' | 'receiver_phone' | 'amount_cents' | 'service' | 'receiver_currency' | 'state' | 'substate' | 'final' | 'waiting_for'
> & { created_at_ms: number };

const TRANSFER_LIST_COLUMNS = 'pk, id, receiver_phone, amount_cents, service, receiver_currency, state, substate, final, waiting_for, created_at_ms';

export interface TransferListFilters {
  /** One state, those waiting (state 0 substate 9), or null for all. */
  readonly state: number | 'waiting' | null;
  /** Created at or after, or null. */
  readonly fromMs: number | null;
  /** Created before (exclusive), or null. */
  readonly toMs: number | null;
  /** One corridor (its service id), or null for all. */
  readonly service: string | null;
  /** Keyset cursor: only transfers with a smaller pk. */
  readonly beforePk: number | null;
  /** Keyset cursor: only transfers with a larger pk (a newer page). */
  readonly afterPk?: number | null;
}

function transferWhere(merchantId: string, filters: TransferListFilters): { sql: string; params: Array<string | number> } {
  const where = ['merchant_id = ?'];
  const params: Array<string | number> = [merchantId];
  if (filters.state === 'waiting') where.push(`final = 0 AND state = ${STATE.new} AND substate = ${SUBSTATE.waiting}`);
  addGivenConditions(where, params, [
    ['state = ?', filters.state === 'waiting' ? null : filters.state],
    ['created_at_ms >= ?', filters.fromMs],
    ['created_at_ms < ?', filters.toMs],
    ['service = ?', filters.service],
    ['pk < ?', filters.beforePk],
    ['pk > ?', filters.afterPk],
  ]);
  return { sql: where.join(' AND '), params };
}

/**
 * Up to `limit` transfers of the merchant matching the filters, newest
 * first. With `afterPk` these are the oldest of those newer than it (the
 * page just before, in the list's order).
 */
export async function listTransferItems(tx: Tx, merchantId: string, filters: TransferListFilters, limit: number): Promise<TransferListItem[]> {
  const { sql, params } = transferWhere(merchantId, filters);
  const ascending = filters.afterPk !== null && filters.afterPk !== undefined;
  const rows = await tx.all<TransferListItem>(`SELECT ${TRANSFER_LIST_COLUMNS} FROM transfers WHERE ${sql} ORDER BY pk ${ascending ? 'ASC' : 'DESC'} LIMIT ?`, [
    ...params,
    limit,
  ]);
  return ascending ? rows.reverse() : rows;
}

/** How many transfers of the merchant match the filters (cursors included). */
export async function countTransferItems(tx: Tx, merchantId: string, filters: TransferListFilters): Promise<number> {
  const { sql, params } = transferWhere(merchantId, filters);
  const row = await tx.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM transfers WHERE ${sql}`, params);
  return Number(row?.n ?? 0);
}

/** A transfer as its detail page shows it: no worker or provider internals beyond the error. */
export type TransferDetail = TransferListItem &
  Pick<
    TransferRow,
    | 'sender_phone'
    | 'received_minor'
    | 'attributes_json'
    | 'code'
    | 'payment_id'
    | 'trans'
    | 'provider_error_text'
    | 'provider_error_code'
    | 'invitation_expires_at_ms'
  > & {
    receiver_country: string;
    fx_rate: string;
    updated_at_ms: number;
    /** A reversal of its completed payout: reported, confirmed, or none. */
    reversal: ReversalMark | null;
  };

export async function getTransferDetail(tx: Tx, merchantId: string, id: string): Promise<TransferDetail | undefined> {
  return tx.get<TransferDetail>(
    `SELECT ${TRANSFER_LIST_COLUMNS}, sender_phone, receiver_country, fx_rate, received_minor, attributes_json, code, payment_id, trans,
            provider_error_text, provider_error_code, invitation_expires_at_ms, updated_at_ms, reversal
     FROM transfers WHERE merchant_id = ? AND id = ?`,
    [merchantId, id],
  );
}

export interface TransferEventItem {
  state: number;
  substate: number;
  note: string | null;
  at_ms: number;
}

/** A transfer's state history, oldest first. */
export async function listTransferEvents(tx: Tx, transferPk: number, limit: number): Promise<TransferEventItem[]> {
  return tx.all<TransferEventItem>('SELECT state, substate, note, at_ms FROM transfer_events WHERE transfer_pk = ? ORDER BY id LIMIT ?', [transferPk, limit]);
}

/** The card payin a transfer is linked to, with the linked share and the charge's own amount and status. */
export interface TransferChargeLink {
  charge_pk: number;
  amount_cents: number;
  how: string;
  created_at_ms: number;
  charge_amount_cents: number;
  charge_status: string;
  charge_created_at_ms: number;
}

/** The link of a transfer to a charge of the same merchant, if any. */
export async function getTransferChargeLink(tx: Tx, merchantId: string, transferPk: number): Promise<TransferChargeLink | undefined> {
  return tx.get<TransferChargeLink>(
    `SELECT l.charge_pk, l.amount_cents, l.how, l.created_at_ms, c.amount_cents AS charge_amount_cents, c.status AS charge_status, c.created_at_ms AS charge_created_at_ms
     FROM transfer_links l JOIN charges c ON c.pk = l.charge_pk WHERE l.transfer_pk = ? AND c.merchant_id = ?`,
    [transferPk, merchantId],
  );
}

/** A transfer in the operator's reconciliation queue, with its merchant's name. */
export type WaitingTransferItem = Pick<TransferRow, 'pk' | 'id' | 'merchant_id' | 'receiver_phone' | 'amount_cents'> & {
  merchant_name: string;
  created_at_ms: number;
};

/** Up to `limit` transfers of any merchant in state 0 substate 9 waiting for reconciliation, oldest first. */
export async function listTransfersWaitingForReconciliation(tx: Tx, limit: number): Promise<WaitingTransferItem[]> {
  return tx.all<WaitingTransferItem>(
    `SELECT t.pk, t.id, t.merchant_id, m.name AS merchant_name, t.receiver_phone, t.amount_cents, t.created_at_ms
     FROM transfers t JOIN merchants m ON m.id = t.merchant_id
     WHERE ${waitingForSql('reconciliation', 't')}
     ORDER BY t.created_at_ms, t.pk LIMIT ?`,
    [limit],
  );
}
