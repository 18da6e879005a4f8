// Writing card and schedule events in the transaction of their change, so an
// event exists exactly when its change committed (a transactional outbox,
// docs/api-decisions.md section 11). The event's `data` is the object as its
// GET endpoint shows it at that moment; how an object is shown is the flows'
// business, so commands are handed the rendering as pure functions
// (EventViews) and the store only reads the row back and inserts the event.
import type { EventType } from '../domain/webhooks.ts';
import type { Tx } from './db.ts';
import { insertEvent } from './events.ts';
import { getSchedule, type ScheduleRow } from './schedules.ts';
import { getTransaction, type TransactionRow } from './transactions.ts';
import { type FundedTransferRow, fundedTransfers } from './transfers.ts';

/** How events show what they are about: pure functions, the same as the GET endpoints'. */
export interface EventViews {
  /** A card transaction as GET /api/v2/transactions/:id shows it, with the transfers it funds. */
  transactionJson(row: TransactionRow, funded: readonly FundedTransferRow[]): string;
  /** A recurring schedule as GET /api/v2/recurring-schedules/:id shows it. */
  scheduleJson(row: ScheduleRow): string;
  /** At most this many funded transfers are shown with a transaction. */
  readonly fundedTransfersShownMax: number;
}

/** A card transaction's event: it is read back in the transaction, so `data` shows it as just written. */
export async function emitTransactionEvent(tx: Tx, views: EventViews, type: EventType, merchantId: string, pk: number, nowMs: number): Promise<TransactionRow> {
  const draft = await draftTransactionEvent(tx, views, type, merchantId, pk, nowMs);
  await draft.insert();
  return draft.row;
}

/** A card transaction's event read but not yet written: see draftTransactionEvent. */
export interface TransactionEventDraft {
  /** The transaction as the event shows it; the caller's reply shows the same row (one read serves both). */
  readonly row: TransactionRow;
  /**
   * The event's data when the transaction funds no transfer (then it is
   * exactly the transaction's own view); null otherwise. A reply of the same
   * row reuses it instead of rendering the row again.
   */
  readonly plainJson: string | null;
  /** Writes the event. */
  insert(): Promise<void>;
}

/**
 * emitTransactionEvent in its two steps, so that a caller can send other
 * statements along with each (PostgreSQL runs statements sent together in
 * the order they were issued, in one round trip): the read, which must come
 * after every change the event shows, and the insert.
 */
export async function draftTransactionEvent(
  tx: Tx,
  views: EventViews,
  type: EventType,
  merchantId: string,
  pk: number,
  nowMs: number,
): Promise<TransactionEventDraft> {
  const row = await getTransaction(tx, pk, merchantId);
  if (row === undefined) throw new Error(`transaction ${pk} vanished before its ${type} event`);
  return draftTransactionEventOf(tx, views, type, row, nowMs);
}

/** draftTransactionEvent for a row the caller already has as just written (an UPDATE ... RETURNING): no read of it. */
export async function draftTransactionEventOf(tx: Tx, views: EventViews, type: EventType, row: TransactionRow, nowMs: number): Promise<TransactionEventDraft> {
  const funded = row.linked_cents > 0 ? await fundedTransfers(tx, row.pk, views.fundedTransfersShownMax) : [];
  const dataJson = views.transactionJson(row, funded);
  return {
    row,
    plainJson: funded.length === 0 ? dataJson : null,
    insert: () => insertEvent(tx, { merchantId: row.merchant_id, type, dataJson, nowMs }),
  };
}

/** A recurring schedule's event (docs/api-decisions.md section 15): `data` is the schedule as its GET shows it after the change. */
export async function emitScheduleEvent(tx: Tx, views: EventViews, type: EventType, merchantId: string, schedulePk: number, nowMs: number): Promise<void> {
  const row = await getSchedule(tx, merchantId, schedulePk);
  if (row === undefined) throw new Error(`schedule ${schedulePk} vanished before its ${type} event`);
  await insertEvent(tx, { merchantId, type, dataJson: views.scheduleJson(row), nowMs });
}
