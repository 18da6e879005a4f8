// Settlement batches (docs/api-decisions.md section 10): the daily close the
// worker runs at the configured time (PAYRAIL_BATCH_CLOSE_UTC, on the
// service clock), the immediate close of the sandbox call and of `payrail
// batch close`, and the batches as the payin API and the panel show them.
// Every close is one write transaction per batch (store/batches.ts).
import { lastCloseAtOrBeforeMs } from '../../domain/card-lifecycle.ts';
import { DAY_MS } from '../../domain/clock.ts';
import { isoTime } from '../../domain/iso-time.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import type { BatchFilters, BatchRow } from '../../store/batches.ts';
import { batchOfMerchant, batchPage, closeBatchNow, closeDueBatch, dueBatches, openBatches } from '../../store/payin/batches.ts';
import { oneOf, orderOf, page, refuseParameter, timeBound } from './list-query.ts';
import type { TransactionReader } from './transactions.ts';

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

/** A batch as accept.blue shows it (its Batch schema; docs/acceptblue-compatibility.md). */
export interface AcceptBlueBatchView {
  readonly id: number;
  readonly opened_at: string;
  /** When the daily close will close it; null once closed. */
  readonly auto_close_date: string | null;
  readonly closed_at: string | null;
  /** accept.blue names the processor platform (north, nashville, amex); Payrail's batches have none. */
  readonly platform: null;
  readonly charges_sum: number;
  readonly charges_count: number;
  readonly credits_sum: number;
  readonly credits_count: number;
  readonly transactions_count: number;
}

/** The first scheduled close after a batch opened: the worker closes a batch opened before a close time at that time. */
export function autoCloseAtMs(openedAtMs: number, closeMinuteOfDay: number): number {
  return lastCloseAtOrBeforeMs(openedAtMs, closeMinuteOfDay) + DAY_MS;
}

export function renderAcceptBlueBatch(row: BatchRow, closeMinuteOfDay: number): AcceptBlueBatchView {
  return {
    id: row.id,
    opened_at: isoTime(row.opened_at_ms),
    auto_close_date: row.closed_at_ms === null ? isoTime(autoCloseAtMs(row.opened_at_ms, closeMinuteOfDay)) : null,
    closed_at: row.closed_at_ms === null ? null : isoTime(row.closed_at_ms),
    platform: null,
    charges_sum: centsToDollarNumber(row.sales_cents),
    charges_count: row.sales_count,
    credits_sum: centsToDollarNumber(row.refunds_cents),
    credits_count: row.refunds_count,
    transactions_count: row.sales_count + row.refunds_count,
  };
}

/** What the batch reads get from the service: the store and the daily close time (accept.blue's auto_close_date). */
type ReadDeps = Pick<Service, 'db' | 'config'>;

/** A batch in the reader's dialect. */
function batchIn(deps: ReadDeps, dialect: WireDialect, row: BatchRow): BatchView | AcceptBlueBatchView {
  return dialect === 'acceptblue' ? renderAcceptBlueBatch(row, deps.config.batchCloseMinuteOfDay) : renderBatch(row);
}

/** The query string of the batch list, as received (every value text). */
export interface BatchListQuery {
  readonly order?: string | undefined;
  readonly status?: string | undefined;
  readonly date_from?: string | undefined;
  readonly date_to?: string | undefined;
  readonly limit?: string | undefined;
  readonly offset?: string | undefined;
}

const BATCH_STATUSES = ['open', 'closed'] as const;

/** The batch list's filters, read in `dialect` (list-query.ts); the time bounds are on when a batch opened. */
export function parseBatchListQuery(query: BatchListQuery, dialect: WireDialect): { filters: BatchFilters; page: { limit: number; offset: number } } {
  const status = oneOf('status', query.status, BATCH_STATUSES);
  const openedFromMs = timeBound('date_from', query.date_from, false, dialect);
  const openedBeforeMs = timeBound('date_to', query.date_to, true, dialect);
  if (openedFromMs !== null && openedBeforeMs !== null && openedFromMs >= openedBeforeMs) {
    refuseParameter('date_to', 'the date range ends before it starts: date_from must not be after date_to');
  }
  return {
    filters: { open: status === null ? null : status === 'open', openedFromMs, openedBeforeMs, order: orderOf(query.order, dialect) },
    page: page(query),
  };
}

export async function batchList(deps: ReadDeps, reader: TransactionReader, query: BatchListQuery): Promise<Array<BatchView | AcceptBlueBatchView>> {
  const { filters, page } = parseBatchListQuery(query, reader.wireDialect);
  return (await batchPage(deps.db, { merchantId: reader.merchantId, page, filters })).map((row) => batchIn(deps, reader.wireDialect, row));
}

export type { BatchRow };

/** The operator's view: every merchant's batches, newest first, in cents. */
export async function allBatches(deps: Deps, page: { limit: number; offset: number }): Promise<BatchRow[]> {
  return batchPage(deps.db, { merchantId: null, page });
}

export async function batchOf(deps: ReadDeps, reader: TransactionReader, id: number): Promise<BatchView | AcceptBlueBatchView> {
  const row = await batchOfMerchant(deps.db, { merchantId: reader.merchantId, id });
  if (row === undefined) fail('not_found', `batch ${id} not found`);
  return batchIn(deps, reader.wireDialect, row);
}
