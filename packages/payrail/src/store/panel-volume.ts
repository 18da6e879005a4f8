// Daily sums behind the merchant's volume chart: approved card payins and
// transfers that did not fail, per UTC day. Each is one GROUP BY over the
// merchant's rows since a start, never one query per day.
import { DAY_MS } from '../domain/clock.ts';
import type { Tx } from './db.ts';

export interface DayTotal {
  /** Day number since the epoch (UTC): created_at_ms / DAY_MS, rounded down. */
  readonly day: number;
  readonly cents: number;
}

// PostgreSQL returns SUM of BIGINT as NUMERIC text; the sums are far below 2^53.
function dayTotals(rows: ReadonlyArray<{ day: number | string; total: number | string }>): DayTotal[] {
  return rows.map((r) => ({ day: Number(r.day), cents: Number(r.total) }));
}

/**
 * Card payins of the merchant created at or after `fromMs` (what was captured
 * and not voided), summed per day; days without any are absent. Checks are
 * left out: the chart says card payins, and a settled check may still be
 * returned.
 */
export async function approvedChargeCentsByDay(tx: Tx, merchantId: string, fromMs: number): Promise<DayTotal[]> {
  const rows = await tx.all<{ day: number; total: number | string }>(
    `SELECT created_at_ms / ${DAY_MS} AS day, SUM(captured_cents - voided_cents) AS total FROM charges
     WHERE merchant_id = ? AND created_at_ms >= ? AND status = 'approved' AND kind = 'charge' AND payment_type = 'card' GROUP BY created_at_ms / ${DAY_MS}`,
    [merchantId, fromMs],
  );
  return dayTotals(rows);
}

/** Transfers of the merchant created at or after `fromMs` and not failed (state 80), summed per day; days without any are absent. */
export async function unfailedTransferCentsByDay(tx: Tx, merchantId: string, fromMs: number): Promise<DayTotal[]> {
  const rows = await tx.all<{ day: number; total: number | string }>(
    `SELECT created_at_ms / ${DAY_MS} AS day, SUM(amount_cents) AS total FROM transfers
     WHERE merchant_id = ? AND created_at_ms >= ? AND state <> 80 GROUP BY created_at_ms / ${DAY_MS}`,
    [merchantId, fromMs],
  );
  return dayTotals(rows);
}
