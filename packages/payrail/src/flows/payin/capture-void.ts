// Capture and void of a charge (docs/api-decisions.md sections 10 and 14). As
// for a charge, two write transactions with the processor call between them:
//
//   1. reserve the Idempotency-Key, check the transaction, and write the
//      operation on it (a void of a captured charge also holds the captured
//      amount back from the merchant, refused below balance + overdraft):
//      store/payin/capture-void.ts, which decides and answers;
//   2. ask the processor (outside any transaction, bounded by its deadline);
//   3. record the answer (operation-outcome.ts) with its posting and reply.
//
// Capturing what is captured, or voiding what is voided, answers the same
// result again. A second request for the same operation while the first
// awaits the processor waits for it (bounded); a different operation is
// refused until the first is answered, so a capture and a void of one
// charge can never both happen.
import { captureWithDeadline, type OperationResult, voidWithDeadline } from '../../providers/card-processor.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { type OperationRequest, type OperationStep, startCapture, startVoid } from '../../store/payin/capture-void.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';
import { renderCharge } from './charge-answers.ts';
import { afterOperation, answerUnknownOutcome, type Caller, failOperation, OPERATION_RECOVERY_AFTER_MS, type OperationDeps } from './operation-common.ts';
import { recordCaptureAnswer, recordVoidAnswer } from './operation-outcome.ts';
import type { KeyedRequest, Reply } from '../common/idempotency-replay.ts';
import { chargeReference } from '../common/provider-references.ts';

export type Operation = 'capture' | 'void';
export type Idem = KeyedRequest | null;

const render = (row: ChargeRow): string => JSON.stringify(renderCharge(row));

/** Step 1: the store reserves the operation, or answers why not (a refusal fails here, as the error catalogue words it). */
async function reserveStep(
  deps: OperationDeps,
  op: Operation,
  caller: Caller,
  pk: number,
  amountCents: number | null,
  idem: Idem,
): Promise<Exclude<OperationStep, { kind: 'refused' }>> {
  const request: OperationRequest = {
    caller,
    pk,
    amountCents,
    idem,
    clock: deps.clock,
    keyTtlMs: IDEMPOTENCY_KEY_TTL_MS,
    recoverAfterMs: OPERATION_RECOVERY_AFTER_MS,
    render,
  };
  const step = op === 'capture' ? await startCapture(deps.db, request) : await startVoid(deps.db, request);
  if (step.kind === 'refused') return failOperation(step.refusal, pk, op === 'capture' ? 'captured' : 'voided');
  return step;
}

/** Asks the processor about a reserved operation and records its answer. */
async function askProcessor(deps: OperationDeps, op: Operation, row: ChargeRow, caller: Caller, idem: Idem): Promise<Reply> {
  let result: OperationResult;
  try {
    const target = { reference: chargeReference(deps.providerKeys, row.pk), processorRef: row.processor_ref! };
    result =
      op === 'capture' ? await captureWithDeadline(deps.processor, { ...target, amountCents: row.op_cents! }) : await voidWithDeadline(deps.processor, target);
  } catch (error) {
    return answerUnknownOutcome(deps, { pk: row.pk, operation: op, sourceId: caller.sourceId, idemKey: idem?.key ?? null, pendingJson: render(row) }, error);
  }
  const json = op === 'capture' ? await recordCaptureAnswer(deps, row, result) : await recordVoidAnswer(deps, row, result);
  if (json !== null) return { statusCode: 200, json };
  // The worker recorded this operation's answer first; reply with what it recorded.
  const current = await chargeOfMerchant(deps.db, { pk: row.pk, merchantId: row.merchant_id });
  return { statusCode: 200, json: render(current!) };
}

/**
 * One capture or void request. `inFlight` holds this process's operations
 * awaiting the processor, by reference number, so a same-process duplicate
 * waits for the answer instead of polling the store.
 */
export async function captureOrVoid(
  deps: OperationDeps,
  inFlight: Map<number, Promise<Reply>>,
  op: Operation,
  request: { caller: Caller; pk: number; amountCents: number | null; idem: Idem; replay: () => Promise<Reply> },
): Promise<Reply> {
  const { caller, pk } = request;
  for (let attempt = 1; ; attempt++) {
    const result = await reserveStep(deps, op, caller, pk, request.amountCents, request.idem);
    if (result.kind === 'busy') {
      // The same operation is under way (or the transaction changed under this request): wait, then answer what it is.
      await inFlight.get(pk)?.catch(() => undefined);
      const after = await afterOperation(deps, caller.merchantId, pk);
      // Once the other operation is answered, this request is decided like any other (at most once more).
      if (after.op === null && attempt < 2) continue;
      return { statusCode: 200, json: render(after) };
    }
    if (result.kind === 'taken') return request.replay();
    if (result.kind === 'done') return { statusCode: 200, json: result.json };
    const reply = askProcessor(deps, op, result.row, caller, request.idem).finally(() => inFlight.delete(pk));
    inFlight.set(pk, reply);
    return reply;
  }
}

/** Step 1 alone: one write transaction reserving the operation. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveOperation(
  deps: OperationDeps,
  op: Operation,
  caller: Caller,
  pk: number,
  amountCents: number | null,
  idem: Idem,
): Promise<ChargeRow> {
  const step = await reserveStep(deps, op, caller, pk, amountCents, idem);
  if (step.kind !== 'reserved') throw new Error(`${op} of ${pk} was not reserved (${step.kind})`);
  return step.row;
}
