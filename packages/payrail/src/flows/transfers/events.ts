// A transfer's events' data (docs/api-decisions.md section 11): the status
// `result` exactly as GET /api/status/:id shows it at the event's time,
// rendered here and written by the store in the transaction of the change
// (a transactional outbox). Card and schedule events: flows/events/emit.ts.
import { isoTime } from '../../domain/iso-time.ts';
import { STATE, SUBSTATE } from '../../domain/transfer-states.ts';
import type { EventType } from '../../domain/webhooks.ts';
import type { Service } from '../../service.ts';
import type { TransferStatusRow } from '../../store/transfers.ts';
import { statusViewOf } from './status.ts';

/**
 * A transfer event's `data` (the status view at `nowMs`), from the values
 * just written (no read: execute's is on the hot path). The status view's
 * server_time is the event's time.
 */
export function transferEventData(
  service: Pick<Service, 'providers' | 'corridors'>,
  transfer: { id: string; status: TransferStatusRow },
  nowMs: number,
): string {
  return transferEventDataAt(service, transfer, isoTime(nowMs));
}

/** transferEventData with the event's time already written out (one for a whole batch). */
export function transferEventDataAt(
  service: Pick<Service, 'providers' | 'corridors'>,
  transfer: { id: string; status: TransferStatusRow },
  serverTime: string,
): string {
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
