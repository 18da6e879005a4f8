// Writing events (docs/api-decisions.md section 11), always in the
// transaction of the change, so an event exists exactly when its change
// committed (a transactional outbox). `data` is the object exactly as its GET
// endpoint shows it at that moment: a card transaction as
// GET /api/v2/transactions/:id, a transfer as the status `result`, a batch as
// GET /api/v2/batches/:id (written by flows/payin/batches.ts), a schedule as
// GET /api/v2/recurring-schedules/:id. `livemode` is not stored: one deployment serves
// one environment, so it is added when the event is shown or sent.
import { isoTime } from '../../domain/iso-time.ts';
import { STATE, SUBSTATE } from '../../domain/transfer-states.ts';
import type { EventType } from '../../domain/webhooks.ts';
import type { Service } from '../../service.ts';
import type { Txn } from '../../store/db.ts';
import { insertEvent } from '../../store/events.ts';
import { getSchedule } from '../../store/schedules.ts';
import { getTransaction, type TransactionRow } from '../../store/transactions.ts';
import { fundedTransfers, type TransferStatusRow } from '../../store/transfers.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { renderSchedule } from '../vault/schedule-view.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';
import { statusViewOf } from '../transfers/status.ts';

/** A card transaction's event: it is read back in the transaction, so `data` shows it as just written. */
export async function emitTransactionEvent(tx: Txn, type: EventType, merchantId: string, pk: number, nowMs: number): Promise<TransactionRow> {
  const draft = await draftTransactionEvent(tx, type, merchantId, pk, nowMs);
  await draft.insert();
  return draft.row;
}

/** A card transaction's event read but not yet written: see draftTransactionEvent. */
export interface TransactionEventDraft {
  /** The transaction as the event shows it; the caller's reply shows the same row (one read serves both). */
  readonly row: TransactionRow;
  /**
   * JSON.stringify(renderCharge(row)), which the event's data is when the
   * transaction funds no transfer; null otherwise. A reply of the same row
   * reuses it instead of rendering the row again.
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
export async function draftTransactionEvent(tx: Txn, type: EventType, merchantId: string, pk: number, nowMs: number): Promise<TransactionEventDraft> {
  const row = await getTransaction(tx, pk, merchantId);
  if (row === undefined) throw new Error(`transaction ${pk} vanished before its ${type} event`);
  return draftTransactionEventOf(tx, type, row, nowMs);
}

/** draftTransactionEvent for a row the caller already has as just written (an UPDATE ... RETURNING): no read of it. */
export async function draftTransactionEventOf(tx: Txn, type: EventType, row: TransactionRow, nowMs: number): Promise<TransactionEventDraft> {
  const funded = row.linked_cents > 0 ? await fundedTransfers(tx, row.pk, FUNDED_TRANSFERS_SHOWN_MAX) : [];
  const dataJson = JSON.stringify(renderCharge(row, funded));
  return {
    row,
    plainJson: funded.length === 0 ? dataJson : null,
    insert: () => insertEvent(tx, { merchantId: row.merchant_id, type, dataJson, nowMs }),
  };
}

/** A recurring schedule's event (docs/api-decisions.md section 15): `data` is the schedule as GET /api/v2/recurring-schedules/:id shows it after the change. */
export async function emitScheduleEvent(tx: Txn, type: EventType, merchantId: string, schedulePk: number, nowMs: number): Promise<void> {
  const row = await getSchedule(tx, merchantId, schedulePk);
  if (row === undefined) throw new Error(`schedule ${schedulePk} vanished before its ${type} event`);
  await insertEvent(tx, { merchantId, type, dataJson: JSON.stringify(renderSchedule(row)), nowMs });
}

/**
 * A transfer's event, from the values just written (no read: this is on the
 * execute hot path). The status view's server_time is the event's time.
 */
export async function emitTransferEvent(
  tx: Txn,
  service: Pick<Service, 'providers'>,
  type: EventType,
  transfer: { merchantId: string; id: string; status: TransferStatusRow },
  nowMs: number,
): Promise<void> {
  await insertEvent(tx, { merchantId: transfer.merchantId, type, dataJson: transferEventData(service, transfer, nowMs), nowMs });
}

/**
 * A transfer event's `data` (the status view at `nowMs`), as stored: for
 * execute, whose store function writes its events in the statement that
 * creates the transfer.
 */
export function transferEventData(service: Pick<Service, 'providers'>, transfer: { id: string; status: TransferStatusRow }, nowMs: number): string {
  return transferEventDataAt(service, transfer, isoTime(nowMs));
}

/** transferEventData with the event's time already written out (one for a whole batch). */
export function transferEventDataAt(service: Pick<Service, 'providers'>, transfer: { id: string; status: TransferStatusRow }, serverTime: string): string {
  return JSON.stringify(statusViewOf(service, transfer.id, transfer.status, serverTime));
}

/** The event a transfer state change makes, or null (a move within processing, a release from waiting). */
export function transferEventType(from: { state: number }, to: { state: number; substate: number }): EventType | null {
  if (to.state === STATE.succeeded) return 'transfer.succeeded';
  if (to.state === STATE.failed) return 'transfer.failed';
  if (to.state === STATE.processing) return from.state === STATE.processing ? null : 'transfer.processing';
  if (to.state === STATE.new && to.substate === SUBSTATE.waiting) return 'transfer.waiting';
  return null;
}
