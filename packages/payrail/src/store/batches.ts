// Settlement batches (docs/api-decisions.md section 10). Each merchant has at
// most one open batch (a partial unique index); a transaction joins it when
// it is captured, and closing the batch settles every captured transaction
// of the merchant into it.
//
// Joining and closing may interleave (separate transactions on PostgreSQL, or
// operations of one group commit), so neither reads and then writes: joining
// takes a shared lock on the open batch's row before it looks the batch up,
// closing takes the row's exclusive lock first and then settles by the charges' stage (not by the id
// they hold), and a close re-opens a batch for any capture that landed after
// its settle statement. A captured transaction is therefore always in the
// open batch or settled, never stranded in a closed one.
import type { Tx } from './db.ts';
import { byKey } from './by-key.ts';

/** A batch with its totals, as the API and the panel show it. */
export interface BatchRow {
  id: number;
  merchant_id: string;
  opened_at_ms: number;
  closed_at_ms: number | null;
  sales_count: number;
  sales_cents: number;
  refunds_count: number;
  refunds_cents: number;
}

/** The id of the open batch of the merchant `merchantId` names (a column or a placeholder), as a scalar subquery: NULL when none is open. */
export function openBatchIdSql(merchantId: string): string {
  return `SELECT id FROM batches WHERE merchant_id = ${merchantId} AND closed_at_ms IS NULL`;
}

/**
 * Puts captured transaction `pk` of the merchant into its open batch,
 * opening one when there is none. Returns the batch's id, or null when the
 * transaction is not captured (then it joins nothing).
 */
export async function joinOpenBatch(tx: Tx, merchantId: string, pk: number, nowMs: number): Promise<number | null> {
  // The statements are sent together (PostgreSQL runs them in this order, in one round trip).
  const statements: Array<Promise<unknown>> = [];
  // Locks the open batch against a close in another transaction (PostgreSQL), which then
  // waits for this one or runs first. A shared lock: joiners do not wait for
  // each other. SQLite runs one write at a time, so it needs none.
  if (tx.dialect === 'postgres') statements.push(tx.all(`${openBatchIdSql('?')} FOR SHARE`, [merchantId]));
  statements.push(
    tx.run('INSERT INTO batches (merchant_id, opened_at_ms) VALUES (?, ?) ON CONFLICT (merchant_id) WHERE closed_at_ms IS NULL DO NOTHING', [
      merchantId,
      nowMs,
    ]),
  );
  const joined = tx.get<{ batch_id: number | string | null }>(
    `UPDATE charges SET batch_id = (${openBatchIdSql('?')}) WHERE ${byKey('pk', "stage = 'captured'")} RETURNING batch_id`,
    [merchantId, pk],
  );
  const [, row] = await Promise.all([Promise.all(statements), joined]);
  return row === undefined || row.batch_id === null ? null : Number(row.batch_id);
}

/**
 * Closes open batch `batchId`: every captured transaction of its merchant
 * without an operation in flight becomes settled in it. Returns false when
 * the batch was already closed (nothing changed).
 */
export async function closeBatch(tx: Tx, batchId: number, nowMs: number): Promise<boolean> {
  const closed = await tx.get<{ merchant_id: string }>('UPDATE batches SET closed_at_ms = ? WHERE id = ? AND closed_at_ms IS NULL RETURNING merchant_id', [
    nowMs,
    batchId,
  ]);
  if (closed === undefined) return false;
  const merchantId = closed.merchant_id;
  await tx.run(
    "UPDATE charges SET stage = 'settled', settled_at_ms = ?, batch_id = ?, updated_at_ms = ? WHERE merchant_id = ? AND stage = 'captured' AND op IS NULL",
    [nowMs, batchId, nowMs, merchantId],
  );
  // Captures that landed after the settle statement go to a new open batch. A
  // transaction with a void in flight is left alone: if the void is refused it
  // joins the open batch then (joinOpenBatch), and waiting on its row lock here
  // could deadlock with that.
  await tx.run(
    `INSERT INTO batches (merchant_id, opened_at_ms) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM charges WHERE merchant_id = ? AND stage = 'captured' AND op IS NULL)
     ON CONFLICT (merchant_id) WHERE closed_at_ms IS NULL DO NOTHING`,
    [merchantId, nowMs, merchantId],
  );
  await tx.run(
    "UPDATE charges SET batch_id = (SELECT id FROM batches WHERE merchant_id = ? AND closed_at_ms IS NULL) WHERE merchant_id = ? AND stage = 'captured' AND op IS NULL",
    [merchantId, merchantId],
  );
  return true;
}

/** Open batches opened before `openedBeforeMs` (the last scheduled close), at most `limit`. */
export async function dueBatchIds(tx: Tx, openedBeforeMs: number, limit: number): Promise<number[]> {
  const rows = await tx.all<{ id: number }>('SELECT id FROM batches WHERE closed_at_ms IS NULL AND opened_at_ms < ? ORDER BY opened_at_ms LIMIT ?', [
    openedBeforeMs,
    limit,
  ]);
  return rows.map((row) => Number(row.id));
}

/** Open batches of one merchant (at most one), or of every merchant, at most `limit`. */
export async function openBatchIds(tx: Tx, merchantId: string | null, limit: number): Promise<number[]> {
  const rows =
    merchantId === null
      ? await tx.all<{ id: number }>('SELECT id FROM batches WHERE closed_at_ms IS NULL ORDER BY id LIMIT ?', [limit])
      : await tx.all<{ id: number }>('SELECT id FROM batches WHERE closed_at_ms IS NULL AND merchant_id = ? ORDER BY id LIMIT ?', [merchantId, limit]);
  return rows.map((row) => Number(row.id));
}

/** Transactions a batch holds: settled in it once closed, captured while open. */
export const BATCH_MEMBER_SQL = "c.batch_id = b.id AND c.stage = CASE WHEN b.closed_at_ms IS NULL THEN 'captured' ELSE 'settled' END";

const BATCH_SELECT = `SELECT b.id, b.merchant_id, b.opened_at_ms, b.closed_at_ms,
    (SELECT COUNT(*) FROM charges c WHERE ${BATCH_MEMBER_SQL} AND c.kind = 'charge') AS sales_count,
    (SELECT COALESCE(SUM(c.captured_cents), 0) FROM charges c WHERE ${BATCH_MEMBER_SQL} AND c.kind = 'charge') AS sales_cents,
    (SELECT COUNT(*) FROM charges c WHERE ${BATCH_MEMBER_SQL} AND c.kind = 'refund') AS refunds_count,
    (SELECT COALESCE(SUM(c.amount_cents), 0) FROM charges c WHERE ${BATCH_MEMBER_SQL} AND c.kind = 'refund') AS refunds_cents
  FROM batches b`;

function batchRowOf(row: BatchRow): BatchRow {
  return {
    id: Number(row.id),
    merchant_id: row.merchant_id,
    opened_at_ms: Number(row.opened_at_ms),
    closed_at_ms: row.closed_at_ms === null ? null : Number(row.closed_at_ms),
    sales_count: Number(row.sales_count),
    sales_cents: Number(row.sales_cents),
    refunds_count: Number(row.refunds_count),
    refunds_cents: Number(row.refunds_cents),
  };
}

/** A batch of the merchant (another merchant's reads as absent), or of anyone's for null (the operator, the CLI). */
export async function getBatch(tx: Tx, merchantId: string | null, id: number): Promise<BatchRow | undefined> {
  const row =
    merchantId === null
      ? await tx.get<BatchRow>(`${BATCH_SELECT} WHERE b.id = ?`, [id])
      : await tx.get<BatchRow>(`${BATCH_SELECT} WHERE b.id = ? AND b.merchant_id = ?`, [id, merchantId]);
  return row === undefined ? undefined : batchRowOf(row);
}

/** Which batches a list shows, and in which order of id (the order they opened). */
export interface BatchFilters {
  /** Open batches only (true), closed only (false), or both (null). */
  readonly open: boolean | null;
  /** Inclusive lower and exclusive upper bounds of opened_at. */
  readonly openedFromMs: number | null;
  readonly openedBeforeMs: number | null;
  readonly order: 'asc' | 'desc';
}

/** Every batch, newest first. */
export const ALL_BATCHES: BatchFilters = { open: null, openedFromMs: null, openedBeforeMs: null, order: 'desc' };

/**
 * The merchant's batches (or every merchant's, for the operator) matching
 * the filters. A merchant has at most one batch a day (batches_merchant
 * serves the order), so a time filter reads few rows.
 */
export async function listBatches(
  tx: Tx,
  merchantId: string | null,
  page: { limit: number; offset: number },
  filters: BatchFilters = ALL_BATCHES,
): Promise<BatchRow[]> {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (merchantId !== null) {
    where.push('b.merchant_id = ?');
    params.push(merchantId);
  }
  if (filters.open !== null) where.push(filters.open ? 'b.closed_at_ms IS NULL' : 'b.closed_at_ms IS NOT NULL');
  for (const [condition, value] of [
    ['b.opened_at_ms >= ?', filters.openedFromMs],
    ['b.opened_at_ms < ?', filters.openedBeforeMs],
  ] as const) {
    if (value === null) continue;
    where.push(condition);
    params.push(value);
  }
  const rows = await tx.all<BatchRow>(
    `${BATCH_SELECT} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY b.id ${filters.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`,
    [...params, page.limit, page.offset],
  );
  return rows.map(batchRowOf);
}
