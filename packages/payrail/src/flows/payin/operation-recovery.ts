// The worker's side of captures, voids, refunds and unmatched credits whose request never
// recorded the processor's answer (a crash, a timeout): they are claimed in
// bounded batches and asked about again with the same reference, which
// connectors treat idempotently, so money moves at most once and the answer
// is recorded exactly once (operation-outcome.ts). A call that times out again
// leaves the operation pending; the claim's lease brings it back.
import { CARD_PROCESSOR_TIMEOUT_MS, captureWithDeadline, type OperationResult, refundWithDeadline, voidWithDeadline } from '../../providers/card-processor.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { claimDueCaptureVoids, claimDuePendingRefunds } from '../../store/payin/operation-recovery.ts';
import type { CreditDeps, OperationDeps } from './operation-common.ts';
import { resolvePendingCredit } from './credit.ts';
import { recordCaptureAnswer, recordRefundAnswer, recordVoidAnswer } from './operation-outcome.ts';
import { errorSummary } from './charge.ts';
import { chargeReference } from '../common/provider-references.ts';
import { mayAskAgain } from './charge-recovery.ts';

/** Operations handled per batch; their processor calls run concurrently. */
export const OPERATION_BATCH_MAX = 50;
/** A claimed operation is not claimed again before this, so a crashed worker's batch is picked up later. */
const CLAIM_LEASE_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;

/**
 * Resolves one batch of due captures and voids, then one of due refunds and
 * unmatched credits (a credit's card needs the cipher: the worker passes
 * creditDepsOf); returns how many were claimed.
 */
export async function resolveDueOperations(deps: OperationDeps | CreditDeps, limit = OPERATION_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const claim = { nowMs, leaseUntilMs: nowMs + CLAIM_LEASE_MS, limit };
  const operations = await claimDueCaptureVoids(deps.db, claim);
  const refunds = await claimDuePendingRefunds(deps.db, claim);
  await Promise.all([...operations.map((row) => resolveOperation(deps, row)), ...refunds.map((row) => resolveRefund(deps, row))]);
  return operations.length + refunds.length;
}

async function ask(deps: OperationDeps, row: ChargeRow, what: string, call: () => Promise<OperationResult>): Promise<OperationResult | null> {
  try {
    return await call();
  } catch (error) {
    deps.log.warn(
      { transaction: row.pk, operation: what, processor: deps.processor.name, err: errorSummary(error) },
      'card processor did not answer; will ask again',
    );
    return null;
  }
}

async function resolveOperation(deps: OperationDeps, row: ChargeRow): Promise<void> {
  const target = { reference: chargeReference(deps.providerKeys, row.pk), processorRef: row.processor_ref! };
  const result = await ask(deps, row, row.op!, () =>
    row.op === 'capture' ? captureWithDeadline(deps.processor, { ...target, amountCents: row.op_cents! }) : voidWithDeadline(deps.processor, target),
  );
  if (result === null) return;
  const recorded = row.op === 'capture' ? await recordCaptureAnswer(deps, row, result) : await recordVoidAnswer(deps, row, result);
  if (recorded !== null) deps.log.info({ transaction: row.pk, operation: row.op, outcome: result.outcome }, 'pending operation resolved');
}

async function resolveRefund(deps: OperationDeps | CreditDeps, refund: ChargeRow): Promise<void> {
  // A refund or credit moves money on every send the processor takes for new: never past its resend window.
  if (!(await mayAskAgain(deps, refund.pk, refund.parent_pk === null ? 'credit' : 'refund', refund.created_at_ms))) return;
  if (refund.parent_pk === null) {
    if (!('cipher' in deps)) throw new Error(`credit ${refund.pk}: its recovery needs the card-data cipher (creditDepsOf)`);
    if (await resolvePendingCredit(deps, refund)) deps.log.info({ transaction: refund.pk, operation: 'credit' }, 'pending operation resolved');
    return;
  }
  const parent = await chargeOfMerchant(deps.db, { pk: refund.parent_pk!, merchantId: refund.merchant_id });
  if (parent === undefined) throw new Error(`refund ${refund.pk}: refunded charge ${refund.parent_pk} not found`);
  const result = await ask(deps, refund, 'refund', () =>
    refundWithDeadline(deps.processor, {
      reference: chargeReference(deps.providerKeys, refund.pk),
      chargeReference: chargeReference(deps.providerKeys, parent.pk),
      chargeProcessorRef: parent.processor_ref!,
      amountCents: refund.amount_cents,
      currency: parent.currency,
      cardLastFour: parent.last4,
    }),
  );
  if (result === null) return;
  if ((await recordRefundAnswer(deps, refund, result)) !== null) {
    deps.log.info({ transaction: refund.pk, operation: 'refund', outcome: result.outcome }, 'pending operation resolved');
  }
}
