// Settlement batches (docs/api-decisions.md section 10): the daily close the
// worker runs at the configured time (PAYRAIL_BATCH_CLOSE_UTC, on the
// service clock), the immediate close of the sandbox call and of `payrail
// batch close`, and the batches as the payin API and the panel show them.
// Every close is one write transaction per batch (store/batches.ts).
import { lastCloseAtOrBeforeMs } from '../../domain/card-lifecycle.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import type { BatchRow } from '../../store/batches.ts';
import { batchOfMerchant, batchPage, batchTransactionPage, closeBatchNow, closeDueBatch, dueBatches, openBatches } from '../../store/payin/batches.ts';
import { renderCharge } from './charge-answers.ts';

type Deps = Pick<Service, 'db' | 'clock'>;

/** Batches closed per call: the worker calls again while a call is full. */
export const BATCH_CLOSE_MAX = 100;
/** An immediate close of every merchant's batch looks at most this many pages of open batches. */
const CLOSE_ROUNDS_MAX = 1_000;

/** A batch on the wire (a Payrail extension; amounts in dollars like the payin API's). */
export interface BatchView {
  readonly id: number;
  readonly status: 'open' | 'closed';
  readonly opened_at: string;
  readonly closed_at: string | null;
  readonly transaction_count: number;
  readonly sales_count: number;
  readonly sales_amount: number;
  readonly refunds_count: number;
  readonly refunds_amount: number;
  readonly net_amount: number;
}

export function renderBatch(row: BatchRow): BatchView {
  return {
    id: row.id,
    status: row.closed_at_ms === null ? 'open' : 'closed',
    opened_at: new Date(row.opened_at_ms).toISOString(),
    closed_at: row.closed_at_ms === null ? null : new Date(row.closed_at_ms).toISOString(),
    transaction_count: row.sales_count + row.refunds_count,
    sales_count: row.sales_count,
    sales_amount: centsToDollarNumber(row.sales_cents),
    refunds_count: row.refunds_count,
    refunds_amount: centsToDollarNumber(row.refunds_cents),
    net_amount: centsToDollarNumber(row.sales_cents - row.refunds_cents),
  };
}

/** What the daily close gets from the service: the minute of the day batches close at. */
export function batchCloseDepsOf(service: Pick<Service, 'db' | 'clock' | 'config'>): Deps & { closeMinuteOfDay: number } {
  return { db: service.db, clock: service.clock, closeMinuteOfDay: service.config.batchCloseMinuteOfDay };
}

/** The worker's daily close: every batch opened before the last scheduled close time is closed. Returns how many. */
export async function closeDueBatches(deps: Deps & { closeMinuteOfDay: number }, limit = BATCH_CLOSE_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const cutoffMs = lastCloseAtOrBeforeMs(nowMs, deps.closeMinuteOfDay);
  const due = await dueBatches(deps.db, { openedBeforeMs: cutoffMs, limit });
  let closed = 0;
  for (const id of due) if (await closeDueBatch(deps.db, { id, nowMs, batchJson })) closed += 1;
  return closed;
}

/** Closes the open batch of one merchant (or of every merchant) now: the sandbox call and `payrail batch close`. */
export async function closeOpenBatches(deps: Deps, merchantId: string | null): Promise<BatchView[]> {
  const closed: BatchView[] = [];
  for (let round = 0; round < CLOSE_ROUNDS_MAX; round++) {
    const ids = await openBatches(deps.db, { merchantId, limit: BATCH_CLOSE_MAX });
    for (const id of ids) {
      const view = await closeBatchNow(deps.db, { id, clock: deps.clock, batchJson });
      if (view !== null) closed.push(renderBatch(view));
    }
    // A close can open a successor for captures that landed meanwhile; those wait for the next close.
    if (ids.length < BATCH_CLOSE_MAX) return closed;
  }
  return closed;
}

/** A batch.closed event's data (docs/api-decisions.md section 11): the batch as the API shows it. */
const batchJson = (batch: BatchRow): string => JSON.stringify(renderBatch(batch));

export async function batchList(deps: Deps, merchantId: string, page: { limit: number; offset: number }): Promise<BatchView[]> {
  return (await batchPage(deps.db, { merchantId, page })).map(renderBatch);
}

export type { BatchRow };

/** The operator's view: every merchant's batches, newest first, in cents. */
export async function allBatches(deps: Deps, page: { limit: number; offset: number }): Promise<BatchRow[]> {
  return batchPage(deps.db, { merchantId: null, page });
}

export async function batchOf(deps: Deps, merchantId: string, id: number): Promise<BatchView> {
  const row = await batchOfMerchant(deps.db, { merchantId, id });
  if (row === undefined) fail('not_found', `batch ${id} not found`);
  return renderBatch(row);
}

/** The transactions of a batch of the merchant, as GET /api/v2/transactions/:id shows each. */
export async function batchTransactions(deps: Deps, merchantId: string, id: number, page: { limit: number; offset: number }): Promise<string> {
  const rows = await batchTransactionPage(deps.db, { merchantId, id, page });
  if (rows === undefined) fail('not_found', `batch ${id} not found`);
  return `[${rows.map((row) => JSON.stringify(renderCharge(row))).join(',')}]`;
}
