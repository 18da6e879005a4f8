// Events' data (docs/api-decisions.md section 11), written in the
// transaction of the change (store/event-outbox.ts for card and schedule events), so an event exists exactly when its change
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
import type { EventViews } from '../../store/event-outbox.ts';
import type { TransferStatusRow } from '../../store/transfers.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { renderSchedule } from '../vault/schedule-view.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';
import { statusViewOf } from '../transfers/status.ts';

/** How events show card transactions and schedules: the same views as their GET endpoints. */
export const EVENT_VIEWS: EventViews = {
  transactionJson: (row, funded) => JSON.stringify(renderCharge(row, funded)),
  scheduleJson: (row) => JSON.stringify(renderSchedule(row)),
  fundedTransfersShownMax: FUNDED_TRANSFERS_SHOWN_MAX,
};

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
