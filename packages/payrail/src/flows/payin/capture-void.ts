// Capture and void of a charge (docs/api-decisions.md sections 10 and 14). As
// for a charge, two write transactions with the processor call between them:
//
//   1. reserve the Idempotency-Key, check the transaction, and write the
//      operation on it (a void of a captured charge also holds the captured
//      amount back from the merchant, refused below balance + overdraft);
//   2. ask the processor (outside any transaction, bounded by its deadline);
//   3. record the answer (operation-outcome.ts) with its posting and reply.
//
// Capturing what is captured, or voiding what is voided, answers the same
// result again. A second request for the same operation while the first
// awaits the processor waits for it (bounded); a different operation is
// refused until the first is answered, so a capture and a void of one
// charge can never both happen.
import { fail } from '../../errors.ts';
import { captureWithDeadline, type OperationResult, voidWithDeadline } from '../../providers/card-processor.ts';
import { type OperationReservation, reserveCapture, reserveVoid } from '../../store/charge-operations.ts';
import { type ChargeRow, getCharge } from '../../store/charges.ts';
import type { Txn } from '../../store/db.ts';
import { completeKey, reserveKey } from '../../store/idempotency.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';
import { renderCharge } from './charge-answers.ts';
import {
  afterOperation,
  answerUnknownOutcome,
  authorizationCreatedAfterMs,
  type Caller,
  chargeOrNotFound,
  OPERATION_RECOVERY_AFTER_MS,
  type OperationDeps,
  refuseAmountAbove,
  refuseBusy,
  refuseUnlessApprovedCharge,
} from './operation-common.ts';
import { moveCardMoney, recordCaptureAnswer, recordVoidAnswer } from './operation-outcome.ts';
import { formatCents } from '../../domain/money.ts';
import type { KeyedRequest, Reply } from '../common/idempotency-replay.ts';

export type Operation = 'capture' | 'void';
export type Idem = KeyedRequest | null;

/** The same operation is under way (or the transaction changed under this request): wait, then answer what it is. */
class Busy extends Error {}

type Step = { kind: 'taken' } | { kind: 'done'; json: string } | { kind: 'reserved'; row: ChargeRow };

const render = (row: ChargeRow): string => JSON.stringify(renderCharge(row));

/** Reserves the key; a taken one means a request with this key was made before (replay it). */
async function keyFree(tx: Txn, caller: Caller, idem: Idem, nowMs: number): Promise<boolean> {
  if (idem === null) return true;
  return reserveKey(tx, {
    sourceId: caller.sourceId,
    idemKey: idem.key,
    requestHash: idem.requestHash,
    nowMs,
    staleAtOrBeforeMs: nowMs - IDEMPOTENCY_KEY_TTL_MS,
  });
}

/** Answers the transaction as it is, and keeps that answer in the key. */
async function answerAsIs(tx: Txn, caller: Caller, idem: Idem, row: ChargeRow): Promise<Step> {
  const json = render(row);
  if (idem !== null) await completeKey(tx, caller.sourceId, idem.key, 200, json);
  return { kind: 'done', json };
}

function reservedRow(row: ChargeRow, op: Operation, opCents: number, caller: Caller, idem: Idem): ChargeRow {
  return {
    ...row,
    op,
    op_cents: opCents,
    op_source_id: caller.sourceId,
    op_idem_key: idem?.key ?? null,
    voided_cents: op === 'void' ? opCents : row.voided_cents,
  };
}

/**
 * What a capture and a void both check first, after reserving the key: an
 * approved charge of the caller with no other operation under way (the same
 * one under way is Busy). Null when the key is taken.
 */
async function operableCharge(tx: Txn, op: Operation, caller: Caller, pk: number, idem: Idem, nowMs: number): Promise<ChargeRow | null> {
  if (!(await keyFree(tx, caller, idem, nowMs))) return null;
  return operableAfterKey(tx, op, caller, pk);
}

/** operableCharge once the key is reserved. */
async function operableAfterKey(tx: Txn, op: Operation, caller: Caller, pk: number): Promise<ChargeRow> {
  const row = await chargeOrNotFound(tx, pk, caller.merchantId);
  refuseUnlessApprovedCharge(row, op === 'capture' ? 'captured' : 'voided');
  if (row.op === op) throw new Busy();
  if (row.op !== null) refuseBusy(row);
  return row;
}

/** Who reserves the operation, and when the worker asks the processor should this request not. */
function reservationOf(caller: Caller, pk: number, idem: Idem, nowMs: number): OperationReservation {
  return {
    pk,
    merchantId: caller.merchantId,
    sourceId: caller.sourceId,
    idemKey: idem?.key ?? null,
    recoverAtMs: nowMs + OPERATION_RECOVERY_AFTER_MS,
    nowMs,
  };
}

async function captureStep(deps: OperationDeps, tx: Txn, caller: Caller, pk: number, amountCents: number | null, idem: Idem): Promise<Step> {
  const nowMs = deps.clock.nowMs();
  if (!(await keyFree(tx, caller, idem, nowMs))) return { kind: 'taken' };
  const createdAfterMs = authorizationCreatedAfterMs(nowMs);
  // The common case (an authorization that can take this capture) in one
  // statement, one round trip on PostgreSQL; anything else is read and
  // decided below, exactly as if this had not been tried (it changed nothing).
  const reserved = await reserveCapture(tx, { ...reservationOf(caller, pk, idem, nowMs), amountCents, createdAfterMs });
  if (reserved !== undefined) return { kind: 'reserved', row: reserved };
  const row = await operableAfterKey(tx, 'capture', caller, pk);
  if (row.stage === 'captured' || row.stage === 'settled') {
    // Captured once: asked again without an amount, or for the amount captured, it answers as it stands; another amount is refused.
    if (amountCents !== null && amountCents !== row.captured_cents) {
      fail('invalid_request', `reference_number ${pk} is already captured (${formatCents(row.captured_cents)}); a transaction is captured once`);
    }
    return answerAsIs(tx, caller, idem, row);
  }
  if (row.stage !== 'authorized') fail('invalid_request', `reference_number ${pk} is ${row.stage}; it can no longer be captured`);
  const cents = amountCents ?? row.amount_cents;
  if (cents > row.amount_cents) refuseAmountAbove('authorized amount', row.amount_cents);
  if (row.created_at_ms <= createdAfterMs) fail('invalid_request', `reference_number ${pk}: the authorization expired 7 days after it was made`);
  const reservedNow = await reserveCapture(tx, { ...reservationOf(caller, pk, idem, nowMs), amountCents: cents, createdAfterMs });
  if (reservedNow === undefined) throw new Busy();
  return { kind: 'reserved', row: reservedNow };
}

async function voidStep(deps: OperationDeps, tx: Txn, caller: Caller, pk: number, amountCents: number | null, idem: Idem): Promise<Step> {
  const nowMs = deps.clock.nowMs();
  const row = await operableCharge(tx, 'void', caller, pk, idem, nowMs);
  if (row === null) return { kind: 'taken' };
  if (row.stage === 'voided') return answerAsIs(tx, caller, idem, row);
  const ref = `reference_number ${pk}`;
  if (row.stage === 'settled') fail('invalid_request', `${ref} is settled; refund it instead`);
  if (row.stage === 'expired') fail('invalid_request', `${ref} has expired; there is nothing to void`);
  if (row.void_refused === 1) fail('invalid_request', `the card processor refused to void ${ref}; refund it once it is settled`);
  if (row.linked_cents > 0) fail('invalid_request', `${ref} funds transfers (${formatCents(row.linked_cents)} linked); it cannot be voided`);
  const wholeCents = row.stage === 'captured' ? row.captured_cents : row.amount_cents;
  if (amountCents !== null && amountCents !== wholeCents)
    fail('invalid_amount', `a void cancels the whole amount ${formatCents(wholeCents)}; refund part of it once settled`);
  const heldCents = await reserveVoid(tx, reservationOf(caller, pk, idem, nowMs));
  if (heldCents === null) throw new Busy();
  if (heldCents > 0 && (await moveCardMoney(tx, row, 'charge.void', false, heldCents, nowMs)) === 'below_floor') {
    fail('insufficient_funds', `balance + overdraft does not cover giving back the captured ${formatCents(heldCents)} of ${ref}`);
  }
  return { kind: 'reserved', row: reservedRow(row, 'void', heldCents, caller, idem) };
}

/** Asks the processor about a reserved operation and records its answer. */
async function askProcessor(deps: OperationDeps, op: Operation, row: ChargeRow, caller: Caller, idem: Idem): Promise<Reply> {
  let result: OperationResult;
  try {
    const target = { reference: String(row.pk), processorRef: row.processor_ref! };
    result =
      op === 'capture' ? await captureWithDeadline(deps.processor, { ...target, amountCents: row.op_cents! }) : await voidWithDeadline(deps.processor, target);
  } catch (error) {
    return answerUnknownOutcome(deps, { pk: row.pk, operation: op, sourceId: caller.sourceId, idemKey: idem?.key ?? null, pendingJson: render(row) }, error);
  }
  const json = op === 'capture' ? await recordCaptureAnswer(deps, row, result) : await recordVoidAnswer(deps, row, result);
  if (json !== null) return { statusCode: 200, json };
  // The worker recorded this operation's answer first; reply with what it recorded.
  const current = await deps.db.read((tx) => getCharge(tx, row.pk, row.merchant_id));
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
  const step = op === 'capture' ? captureStep : voidStep;
  for (let attempt = 1; ; attempt++) {
    let result: Step;
    try {
      result = await deps.db.write((tx) => step(deps, tx, caller, pk, request.amountCents, request.idem));
    } catch (error) {
      if (!(error instanceof Busy)) throw error;
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
  const step = await deps.db.write((tx) => (op === 'capture' ? captureStep : voidStep)(deps, tx, caller, pk, amountCents, idem));
  if (step.kind !== 'reserved') throw new Error(`${op} of ${pk} was not reserved (${step.kind})`);
  return step.row;
}
