// Refund of a settled charge (docs/api-decisions.md sections 10 and 14): a
// transaction of its own, in full or in part, several partials allowed. As
// for a charge, two write transactions with the processor call between them:
//
//   1. reserve the Idempotency-Key, reserve the amount on the charge (one
//      conditional UPDATE: captured - refunded - linked must cover it, so two
//      concurrent refunds can never take more), insert the refund as pending
//      and hold its amount from the merchant (balance + overdraft must cover
//      it, else insufficient_funds and nothing changes):
//      store/payin/refund.ts, which decides and answers;
//   2. ask the processor (outside any transaction, bounded by its deadline);
//   3. record the answer (operation-outcome.ts): approved, or declined/failed
//      with the amount given back to merchant and charge.
import { type OperationResult, refundWithDeadline } from '../../providers/card-processor.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { type RefundStep, startRefund } from '../../store/payin/refund.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';
import { renderCharge } from './charge-answers.ts';
import { answerUnknownOutcome, type Caller, failOperation, OPERATION_RECOVERY_AFTER_MS, type OperationDeps } from './operation-common.ts';
import { recordRefundAnswer } from './operation-outcome.ts';
import type { Idem } from './capture-void.ts';
import type { Reply } from '../common/idempotency-replay.ts';
import { chargeReference } from '../common/provider-references.ts';
import { type AdjustDetails, applyAdjustDetails } from './adjust.ts';

const render = (row: ChargeRow): string => JSON.stringify(renderCharge(row));

/** Step 1: the store reserves the refund, or answers why not (a refusal fails here, as the error catalogue words it). */
async function reserveRefund(
  deps: OperationDeps,
  caller: Caller,
  parentPk: number,
  amountCents: number | null,
  idem: Idem,
  details: AdjustDetails = {},
): Promise<Exclude<RefundStep, { kind: 'refused' }>> {
  const step = await startRefund(deps.db, {
    // The refund keeps the charge's request with the customer, details and custom fields sent with it.
    ...(Object.keys(details).length === 0 ? {} : { requestOf: (parentJson: string) => applyAdjustDetails(parentJson, details) }),
    caller,
    parentPk,
    amountCents,
    idem,
    clock: deps.clock,
    keyTtlMs: IDEMPOTENCY_KEY_TTL_MS,
    recoverAfterMs: OPERATION_RECOVERY_AFTER_MS,
  });
  if (step.kind === 'refused') return failOperation(step.refusal, parentPk, 'refunded');
  return step;
}

/** One refund request of `amountCents` (null: all that is refundable) of charge `parentPk`. */
export async function refundOnce(
  deps: OperationDeps,
  request: { caller: Caller; parentPk: number; amountCents: number | null; idem: Idem; replay: () => Promise<Reply>; details?: AdjustDetails },
): Promise<Reply> {
  const { caller, idem } = request;
  const step = await reserveRefund(deps, caller, request.parentPk, request.amountCents, idem, request.details);
  if (step.kind === 'taken') return request.replay();
  const { refund, parent } = step;
  let result: OperationResult;
  try {
    result = await refundWithDeadline(deps.processor, {
      reference: chargeReference(deps.providerKeys, refund.pk),
      chargeReference: chargeReference(deps.providerKeys, parent.pk),
      chargeProcessorRef: parent.processor_ref!,
      amountCents: refund.amount_cents,
      currency: parent.currency,
      cardLastFour: parent.last4,
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
  const current = await chargeOfMerchant(deps.db, { pk: refund.pk, merchantId: caller.merchantId });
  return { statusCode: 200, json: render(current!) };
}

/** Step 1 alone: one write transaction reserving the refund. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveRefundOnly(deps: OperationDeps, caller: Caller, parentPk: number, amountCents: number | null, idem: Idem): Promise<ChargeRow> {
  const step = await reserveRefund(deps, caller, parentPk, amountCents, idem);
  if (step.kind !== 'reserved') throw new Error(`refund of ${parentPk} was not reserved (${step.kind})`);
  return step.refund;
}
