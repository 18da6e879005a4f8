// The merchant's transfer list (GET /api/transfers, docs/api-decisions.md
// sections 12 and 14): newest first, filtered by state and creation time,
// paged by a cursor. The order is (created_at_ms, pk) descending, so a page
// boundary is one exact row even when many transfers share a millisecond;
// the index transfers_merchant_created serves it.
import type { SqlValue, Tx } from './db.ts';
import { TRANSFER_STATUS_COLUMNS, type TransferStatusRow } from './transfers.ts';

export interface TransferListRow extends TransferStatusRow {
  pk: number;
  id: string;
  amount_cents: number;
  service: string;
  receiver_country: string;
  receiver_currency: string;
  created_at_ms: number;
}

/** Where a page starts: strictly after (older than) this row. */
export interface TransferCursor {
  readonly createdAtMs: number;
  readonly pk: number;
}

export interface TransferListQuery {
  readonly merchantId: string;
  readonly state: number | null;
  /** Inclusive bounds on the creation time; null for none. */
  readonly createdFromMs: number | null;
  readonly createdToMs: number | null;
  /** Only transfers older than this one (the next page), or newer than `before` (the previous page); at most one of them. */
  readonly after: TransferCursor | null;
  readonly before?: TransferCursor | null;
  readonly limit: number;
}

/** The cursor position of one of the merchant's transfers; undefined when it has none with this id. */
export async function transferCursor(tx: Tx, merchantId: string, id: string): Promise<TransferCursor | undefined> {
  const row = await tx.get<{ pk: number; created_at_ms: number }>('SELECT pk, created_at_ms FROM transfers WHERE merchant_id = ? AND id = ?', [merchantId, id]);
  return row === undefined ? undefined : { pk: Number(row.pk), createdAtMs: Number(row.created_at_ms) };
}

/**
 * At most `limit` transfers of the merchant matching the query, newest
 * first; with `before`, the `limit` nearest newer than it, oldest first (the
 * caller turns the page around).
 */
export async function listTransfers(tx: Tx, query: TransferListQuery): Promise<TransferListRow[]> {
  const conditions = ['merchant_id = ?'];
  const params: SqlValue[] = [query.merchantId];
  if (query.state !== null) {
    conditions.push('state = ?');
    params.push(query.state);
  }
  if (query.createdFromMs !== null) {
    conditions.push('created_at_ms >= ?');
    params.push(query.createdFromMs);
  }
  if (query.createdToMs !== null) {
    conditions.push('created_at_ms <= ?');
    params.push(query.createdToMs);
  }
  if (query.after !== null) {
    conditions.push('(created_at_ms < ? OR (created_at_ms = ? AND pk < ?))');
    params.push(query.after.createdAtMs, query.after.createdAtMs, query.after.pk);
  }
  const before = query.before ?? null;
  if (before !== null) {
    conditions.push('(created_at_ms > ? OR (created_at_ms = ? AND pk > ?))');
    params.push(before.createdAtMs, before.createdAtMs, before.pk);
  }
  params.push(query.limit);
  const order = before === null ? 'created_at_ms DESC, pk DESC' : 'created_at_ms, pk';
  return tx.all<TransferListRow>(
    `SELECT pk, id, amount_cents, service, receiver_country, receiver_currency, created_at_ms, ${TRANSFER_STATUS_COLUMNS}
     FROM transfers WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ?`,
    params,
  );
}
