// Step 1 of a refund of a settled charge (docs/api-decisions.md sections 10
// and 14): one write transaction that reserves the Idempotency-Key, reserves
// the amount on the charge (one conditional UPDATE: captured - refunded -
// linked must cover it, so two concurrent refunds can never take more),
// inserts the refund as pending and holds its amount from the merchant
// (balance + overdraft must cover it, else the refusal rolls back
// everything). The processor is asked afterwards, outside it.
import { refundableCents } from '../../domain/card-lifecycle.ts';
import type { ChargeRow } from '../charges.ts';
import { getCharge } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import type { Db } from '../db.ts';
import type { HeldKey } from '../idempotency.ts';
import { getRefundHoldingKey, insertRefund, reserveRefundCents } from '../refunds.ts';
import { moveCardMoney } from './card-money.ts';
import { findNamed, keyFree, type OperationCaller, type OperationKey, type OperationRefusal, type Refused, unapprovedRefusal } from './operation-common.ts';

export type RefundStep = { readonly kind: 'taken' } | { readonly kind: 'reserved'; readonly refund: ChargeRow; readonly parent: ChargeRow } | Refused;

export interface RefundRequest {
  readonly caller: OperationCaller;
  readonly parentPk: number;
  /** The amount asked for; null: all that is refundable. */
  readonly amountCents: number | null;
  readonly idem: OperationKey;
  /** Read in the transaction, as the decision's "now". */
  readonly clock: { nowMs(): number };
  /** A completed key older than this is reserved anew. */
  readonly keyTtlMs: number;
  /** When, after the reservation, the worker asks the processor should the request not record an answer. */
  readonly recoverAfterMs: number;
  /** What the refund keeps of its request, from the refunded charge's (pure); absent: the charge's as it is. */
  readonly requestOf?: (parentRequestJson: string) => string;
}

const refuse = (refusal: OperationRefusal): never => {
  throw new Refusal<RefundStep>({ kind: 'refused', refusal });
};

/** Refuses a refund of `parent` now, naming why; returns the refundable amount otherwise. */
function refundableOrRefuse(parent: ChargeRow): number {
  const unapproved = unapprovedRefusal(parent);
  if (unapproved !== null) refuse(unapproved);
  if (parent.stage !== 'settled') refuse({ reason: 'not_settled', stage: parent.stage });
  return refundableCents(parent);
}

function refuseAbove(parent: ChargeRow, refundable: number): never {
  return refuse({ reason: 'above_refundable', refundableCents: refundable, linkedCents: parent.linked_cents });
}

/** Reserves a refund of `amountCents` (null: all that is refundable) of charge `parentPk`. */
export async function startRefund(db: Db, r: RefundRequest): Promise<RefundStep> {
  return command(db, async (tx) => {
    const nowMs = r.clock.nowMs();
    const { caller } = r;
    if (!(await keyFree(tx, caller, r.idem, nowMs, r.keyTtlMs))) return { kind: 'taken' };
    const named = await findNamed(tx, r.parentPk, caller.merchantId);
    if (named.kind === 'refused') return refuse(named.refusal);
    const parent = named.row;
    const refundable = refundableOrRefuse(parent);
    const cents = r.amountCents ?? refundable;
    if (cents === 0) refuseAbove(parent, refundable);
    if (cents > refundable) refuseAbove(parent, refundable);
    // The read above chose the amount; this statement decides, whatever ran meanwhile.
    if (!(await reserveRefundCents(tx, r.parentPk, caller.merchantId, cents, nowMs))) {
      const now = await findNamed(tx, r.parentPk, caller.merchantId);
      if (now.kind === 'refused') return refuse(now.refusal);
      refuseAbove(now.row, refundableOrRefuse(now.row));
    }
    const pk = await insertRefund(tx, {
      parent,
      sourceId: caller.sourceId,
      amountCents: cents,
      idemKey: r.idem?.key ?? null,
      recoverAtMs: nowMs + r.recoverAfterMs,
      nowMs,
      ...(r.requestOf === undefined ? {} : { requestJson: r.requestOf(parent.request_json) }),
    });
    // Sent together, in this order (one round trip on PostgreSQL): the read of
    // the new row, and last (HOT_ROWS_LAST in card-money.ts) the hold,
    // whose refusal rolls back everything above.
    const [refund, held] = await Promise.all([
      getCharge(tx, pk, caller.merchantId),
      moveCardMoney(tx, { pk, merchant_id: caller.merchantId }, 'refund.debit', false, cents, nowMs),
    ]);
    if (held === 'below_floor') refuse({ reason: 'refund_below_floor', amountCents: cents });
    if (refund === undefined) throw new Error(`refund ${pk} vanished`);
    return { kind: 'reserved', refund, parent };
  });
}

/** The refund made with an Idempotency-Key of this source at or after the key's reservation. */
export async function refundHoldingKey(db: Db, key: HeldKey): Promise<ChargeRow | undefined> {
  return db.read((tx) => getRefundHoldingKey(tx, key));
}
