// The body of a delivery to an accept.blue endpoint (behaviour section 16,
// reference A.8): {event, type, subType, id, timestamp, data}, where `data`
// is the processing response in the accept.blue dialect (with
// reference_number and transaction) for a transaction event, and the batch
// for batch.closed.
//
// Rendered when the delivery is made, not when the event is written: an
// event is written on the path of every charge, for every merchant, and only
// merchants with an accept.blue endpoint need this form. So the hot path is
// unchanged, and the cost (one read of the transaction) is the delivery
// worker's, for these deliveries alone. The transaction is read as it stands
// when the delivery is sent: a delivery sent at once shows the change its
// event is about; a retry of a transaction changed since (voided, settled)
// shows it so changed, under the event's own type and subType.
import { acceptBlueDeliveryId, acceptBlueKindOf, type AcceptBlueEventKind } from '../../domain/acceptblue-webhooks.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { isEventType } from '../../domain/webhooks.ts';
import type { Db } from '../../store/db.ts';
import { readFundedTransaction } from '../../store/payin/transactions.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';

/** The event a delivery carries, as stored. */
export interface DeliveredEvent {
  readonly pk: number;
  readonly merchantId: string;
  readonly type: string;
  /** The event's own data (Payrail's view: the charge answer, or the batch). */
  readonly dataJson: string;
  readonly createdAtMs: number;
}

/** accept.blue's batch object (reference A.8) from the batch as the batch.closed event shows it. */
function acceptBlueBatch(batch: { id: number; opened_at: string; closed_at: string | null }): Record<string, unknown> {
  return {
    id: batch.id,
    opened_at: batch.opened_at,
    // accept.blue's auto_close_date is null once the batch is closed, and a batch.closed event's batch is.
    auto_close_date: null,
    closed_at: batch.closed_at,
    // accept.blue's processor platform (north, nashville, amex): Payrail's batches belong to no such platform.
    platform: null,
    // Payrail numbers batches once, across merchants: the batch's id is its sequence number.
    sequence_number: batch.id,
  };
}

/** The transaction a charge or refund event is about: approved answers name it reference_number, refused ones id. */
function transactionPkOf(data: { reference_number?: unknown; id?: unknown }): number | null {
  const pk = typeof data.reference_number === 'number' ? data.reference_number : Number(data.id);
  return Number.isSafeInteger(pk) && pk > 0 ? pk : null;
}

function envelope(kind: AcceptBlueEventKind, event: DeliveredEvent, data: unknown): string {
  return JSON.stringify({
    event: kind.event,
    type: kind.type,
    subType: kind.subType,
    id: acceptBlueDeliveryId(event.pk),
    timestamp: isoTime(event.createdAtMs),
    data,
  });
}

/** The exact body to send (and sign), or null when the event has no accept.blue form or its transaction is gone. */
export async function acceptBlueDeliveryBody(db: Db, event: DeliveredEvent): Promise<string | null> {
  if (!isEventType(event.type)) return null;
  const data = JSON.parse(event.dataJson) as Record<string, unknown>;
  if (event.type === 'batch.closed') {
    const kind = acceptBlueKindOf(event.type, null);
    return kind === null ? null : envelope(kind, event, acceptBlueBatch(data as { id: number; opened_at: string; closed_at: string | null }));
  }
  const pk = transactionPkOf(data);
  if (pk === null) return null;
  const read = await readFundedTransaction(db, { pk, merchantId: event.merchantId, fundedMax: FUNDED_TRANSFERS_SHOWN_MAX });
  if (read === undefined) return null;
  // A refund of nothing is an unmatched credit (flows/payin/credit.ts), which accept.blue names as such.
  const rowKind = read.row.kind === 'refund' && read.row.parent_pk === null ? 'credit' : read.row.kind;
  const kind = acceptBlueKindOf(event.type, { kind: rowKind, status: read.row.status });
  return kind === null ? null : envelope(kind, event, renderCharge(read.row, read.funded, 'acceptblue'));
}
