// Refund of a settled charge (docs/api-decisions.md sections 10 and 14): a
// transaction of its own, in full or in part, several partials allowed. As
// for a charge, two write transactions with the processor call between them:
//
//   1. reserve the Idempotency-Key, reserve the amount on the charge (one
//      conditional UPDATE: captured - refunded - linked must cover it, so two
//      concurrent refunds can never take more), insert the refund as pending
//      and hold its amount from the merchant (balance + overdraft must cover
//      it, else insufficient_funds and nothing changes);
//   2. ask the processor (outside any transaction, bounded by its deadline);
//   3. record the answer (operation-outcome.ts): approved, or declined/failed
//      with the amount given back to merchant and charge.
import { refundableCents } from '../../domain/card-lifecycle.ts';
import { formatCents } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import { type OperationResult, refundWithDeadline } from '../../providers/card-processor.ts';
import { type ChargeRow, getCharge } from '../../store/charges.ts';
import type { Txn } from '../../store/db.ts';
import { reserveKey } from '../../store/idempotency.ts';
import { insertRefund, reserveRefundCents } from '../../store/refunds.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';
import { renderCharge } from './charge-answers.ts';
import {
  answerUnknownOutcome,
  type Caller,
  chargeOrNotFound,
  OPERATION_RECOVERY_AFTER_MS,
  type OperationDeps,
  refuseUnlessApprovedCharge,
} from './operation-common.ts';
import { moveCardMoney, recordRefundAnswer } from './operation-outcome.ts';
import type { Idem } from './capture-void.ts';
import type { Reply } from '../common/idempotency-replay.ts';

type Step = { kind: 'taken' } | { kind: 'reserved'; refund: ChargeRow; parent: ChargeRow };

const render = (row: ChargeRow): string => JSON.stringify(renderCharge(row));

/** Refuses a refund of `parent` now, naming why; returns the refundable amount otherwise. */
function refundableOrRefuse(parent: ChargeRow): number {
  refuseUnlessApprovedCharge(parent, 'refunded');
  const ref = `reference_number ${parent.pk}`;
  if (parent.stage !== 'settled') {
    const why =
      parent.stage === 'captured' || parent.stage === 'authorized' ? 'not settled yet; void it instead' : `${parent.stage}; there is nothing to refund`;
    fail('invalid_request', `${ref} is ${why}`);
  }
  return refundableCents(parent);
}

function refuseAbove(parent: ChargeRow, refundable: number): never {
  const linked = parent.linked_cents > 0 ? ` (${formatCents(parent.linked_cents)} of it funds transfers)` : '';
  return fail('invalid_amount', `amount exceeds the refundable ${formatCents(refundable)} of reference_number ${parent.pk}${linked}`);
}

async function reserveRefund(deps: OperationDeps, tx: Txn, caller: Caller, parentPk: number, amountCents: number | null, idem: Idem): Promise<Step> {
  const nowMs = deps.clock.nowMs();
  if (idem !== null) {
    const key = { sourceId: caller.sourceId, idemKey: idem.key, requestHash: idem.requestHash, nowMs, staleAtOrBeforeMs: nowMs - IDEMPOTENCY_KEY_TTL_MS };
    if (!(await reserveKey(tx, key))) return { kind: 'taken' };
  }
  const parent = await chargeOrNotFound(tx, parentPk, caller.merchantId);
  const refundable = refundableOrRefuse(parent);
  const cents = amountCents ?? refundable;
  if (cents === 0) refuseAbove(parent, refundable);
  if (cents > refundable) refuseAbove(parent, refundable);
  // The read above chose the amount; this statement decides, whatever ran meanwhile.
  if (!(await reserveRefundCents(tx, parentPk, caller.merchantId, cents, nowMs))) {
    const now = await chargeOrNotFound(tx, parentPk, caller.merchantId);
    refuseAbove(now, refundableOrRefuse(now));
  }
  const pk = await insertRefund(tx, {
    parent,
    sourceId: caller.sourceId,
    amountCents: cents,
    idemKey: idem?.key ?? null,
    recoverAtMs: nowMs + OPERATION_RECOVERY_AFTER_MS,
    nowMs,
  });
  // Sent together, in this order (one round trip on PostgreSQL): the read of
  // the new row, and last (HOT_ROWS_LAST in operation-outcome.ts) the hold,
  // whose refusal rolls back everything above.
  const [refund, held] = await Promise.all([
    getCharge(tx, pk, caller.merchantId),
    moveCardMoney(tx, { pk, merchant_id: caller.merchantId }, 'refund.debit', false, cents, nowMs),
  ]);
  if (held === 'below_floor') fail('insufficient_funds', `balance + overdraft does not cover the refund of ${formatCents(cents)}`);
  if (refund === undefined) throw new Error(`refund ${pk} vanished`);
  return { kind: 'reserved', refund, parent };
}

/** One refund request of `amountCents` (null: all that is refundable) of charge `parentPk`. */
export async function refundOnce(
  deps: OperationDeps,
  request: { caller: Caller; parentPk: number; amountCents: number | null; idem: Idem; replay: () => Promise<Reply> },
): Promise<Reply> {
  const { caller, idem } = request;
  const step = await deps.db.write((tx) => reserveRefund(deps, tx, caller, request.parentPk, request.amountCents, idem));
  if (step.kind === 'taken') return request.replay();
  const { refund, parent } = step;
  let result: OperationResult;
  try {
    result = await refundWithDeadline(deps.processor, {
      reference: String(refund.pk),
      chargeReference: String(parent.pk),
      chargeProcessorRef: parent.processor_ref!,
      amountCents: refund.amount_cents,
    });
  } catch (error) {
    return answerUnknownOutcome(
      deps,
      { pk: refund.pk, operation: 'refund', sourceId: caller.sourceId, idemKey: idem?.key ?? null, pendingJson: render(refund) },
      error,
    );
  }
  const json = await recordRefundAnswer(deps, refund, result);
  if (json !== null) return { statusCode: 200, json };
  const current = await deps.db.read((tx) => getCharge(tx, refund.pk, caller.merchantId));
  return { statusCode: 200, json: render(current!) };
}

/** Step 1 alone: one write transaction reserving the refund. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveRefundOnly(deps: OperationDeps, caller: Caller, parentPk: number, amountCents: number | null, idem: Idem): Promise<ChargeRow> {
  const step = await deps.db.write((tx) => reserveRefund(deps, tx, caller, parentPk, amountCents, idem));
  if (step.kind !== 'reserved') throw new Error(`refund of ${parentPk} was not reserved (${step.kind})`);
  return step.refund;
}
