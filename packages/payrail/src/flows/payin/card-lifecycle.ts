// The payin API's lifecycle operations behind one object (docs/api-decisions.md
// sections 10 and 14): capture, void, refund and reversal (void when
// unsettled, refund when settled; with an amount below an authorization's,
// an adjust down by that amount), and accept.blue's adjust, adjust-capture
// and queue (docs/acceptblue-compatibility.md). It checks what the schema cannot (the
// amount's exact form, the Idempotency-Key), and gives every operation the
// charge's Idempotency-Key behaviour: same-key requests in this process share
// one run, and a key used before replays its stored reply.
import { ApiError } from '../../errors.ts';
import { processorTimeoutMs } from '../../providers/card-processor.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { refundHoldingKey } from '../../store/payin/refund.ts';
import { renderCharge } from './charge-answers.ts';
import {
  type Caller,
  checkIdempotencyKey,
  chargeOrNotFound,
  failOperation,
  type OperationDeps,
  type OperationInput,
  optionalAmountCents,
} from './operation-common.ts';
import { captureOrVoid, type Idem, type Operation } from './capture-void.ts';
import { IDEMPOTENCY_WAIT_MARGIN_MS, keyedRequest, type Reply, replayKey, RunningRequests } from '../common/idempotency-replay.ts';
import { refundOnce } from './refund.ts';
import { type AdjustDetails, adjustOnce } from './adjust.ts';
import { queueAuthorization } from '../../store/payin/queue.ts';
import { readCheckTransaction } from '../../store/ach/check-reservation.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import { type CheckDeps, requireChecks } from '../ach/check-charge.ts';
import { refundCheck, refuseCheckOperation, reverseCheck, voidCheck } from '../ach/check-operations.ts';

export type { Caller, OperationDeps, OperationInput };

/** An adjust's body: the amount is the new total, and the details it changes. */
export interface AdjustInput extends OperationInput {
  readonly details: AdjustDetails;
}

export interface CardLifecycleFlow {
  capture(caller: Caller, input: OperationInput): Promise<Reply>;
  voidCharge(caller: Caller, input: OperationInput): Promise<Reply>;
  /** `details`: the customer, transaction details and custom fields the refund keeps. */
  refund(caller: Caller, input: OperationInput & { details?: AdjustDetails }): Promise<Reply>;
  reversal(caller: Caller, input: OperationInput & { details?: AdjustDetails }): Promise<Reply>;
  adjust(caller: Caller, input: AdjustInput): Promise<Reply>;
  adjustCapture(caller: Caller, input: AdjustInput): Promise<Reply>;
  /** Answers when the transaction is an approved, uncaptured authorization (it then is queued already: store/payin/queue.ts). */
  queue(caller: Caller, referenceNumber: number): Promise<void>;
}

type Name = Operation | 'refund' | 'reversal' | 'adjust' | 'adjust-capture';

const NO_DETAILS: AdjustDetails = {};

/** `checks`: what the operations of a check need (behaviour section 17); absent, an operation on a check is refused as unavailable. */
export function createCardLifecycleFlow(deps: OperationDeps, checks?: CheckDeps): CardLifecycleFlow {
  const running = new RunningRequests();
  const inFlight = new Map<number, Promise<Reply>>();
  const waitMs = processorTimeoutMs(deps.processor) + IDEMPOTENCY_WAIT_MARGIN_MS;

  /** The transaction's current reply, for a replay whose first request died before recording one. */
  const currentOf = (caller: Caller, pk: number) => async (): Promise<Reply> => {
    const row = await chargeOrNotFound(deps, pk, caller.merchantId);
    return { statusCode: 200, json: JSON.stringify(renderCharge(row)) };
  };
  /** A refund's key names the refund it made, not the refunded charge. */
  const currentRefundOf =
    (caller: Caller, idem: NonNullable<Idem>, parentPk: number) =>
    async (reservedAtMs: number): Promise<Reply> => {
      const refund = await refundHoldingKey(deps.db, { merchantId: caller.merchantId, sourceId: caller.sourceId, idemKey: idem.key, reservedAtMs });
      return refund === undefined ? currentOf(caller, parentPk)() : { statusCode: 200, json: JSON.stringify(renderCharge(refund)) };
    };

  function replayOf(caller: Caller, idem: Idem, current: (reservedAtMs: number) => Promise<Reply>): () => Promise<Reply> {
    return () => replayKey(deps, caller.sourceId, idem!, waitMs, current);
  }

  async function run(name: Name, caller: Caller, input: OperationInput, idem: Idem, amountCents: number | null, details = NO_DETAILS): Promise<Reply> {
    const pk = input.referenceNumber;
    if (name === 'adjust') return adjustOnce(deps, { caller, pk, amountCents, details, idem, replay: replayOf(caller, idem, currentOf(caller, pk)) });
    if (name === 'adjust-capture') {
      // The adjust takes no key: asked again, the same adjust answers as it stands, so the capture (which keeps the key) decides a retry.
      await adjustOnce(deps, { caller, pk, amountCents, details, idem: null, replay: currentOf(caller, pk) });
      return run('capture', caller, input, idem, null);
    }
    if (name === 'refund') {
      const replay = replayOf(caller, idem, idem === null ? currentOf(caller, pk) : currentRefundOf(caller, idem, pk));
      return refundOnce(deps, { caller, parentPk: pk, amountCents, idem, replay, details });
    }
    if (name === 'reversal') return reverse(caller, input, idem, amountCents, details);
    return captureOrVoid(deps, inFlight, name, { caller, pk, amountCents, idem, replay: replayOf(caller, idem, currentOf(caller, pk)) });
  }

  /** Void when unsettled, refund when settled; a void that finds the charge settled meanwhile becomes a refund. */
  async function reverse(caller: Caller, input: OperationInput, idem: Idem, amountCents: number | null, details: AdjustDetails): Promise<Reply> {
    const pk = input.referenceNumber;
    const row = await chargeOfMerchant(deps.db, { pk, merchantId: caller.merchantId });
    // accept.blue reduces an unsettled transaction by a smaller amount: an authorization's amount can go down (adjust.ts).
    if (row?.stage === 'authorized' && row.op === null && amountCents !== null && amountCents < row.amount_cents) {
      return run('adjust', caller, input, idem, row.amount_cents - amountCents);
    }
    if (row?.stage !== 'settled') {
      try {
        return await run('void', caller, input, idem, amountCents);
      } catch (error) {
        if (!(error instanceof ApiError && / is settled; refund it instead$/.test(error.message))) throw error;
      }
    }
    return run('refund', caller, input, idem, amountCents, details);
  }

  /** A check's operation (flows/ach/check-operations.ts): void, refund and reversal; the others are refused. */
  function runCheck(
    name: Name,
    caller: Caller,
    row: TransactionRow,
    idem: Idem,
    amountCents: number | null,
    details: AdjustDetails | undefined,
  ): Promise<Reply> {
    if (name === 'capture' || name === 'adjust' || name === 'adjust-capture') return refuseCheckOperation(name, row.pk);
    const ach = requireChecks(checks);
    if (name === 'void') return voidCheck(ach, caller, { row, amountCents, idem });
    if (name === 'refund') return refundCheck(ach, caller, { parent: row, amountCents, idem, details });
    return reverseCheck(ach, caller, { row, amountCents, idem, details });
  }

  function operation(name: Name) {
    return async (caller: Caller, input: OperationInput | AdjustInput): Promise<Reply> => {
      checkIdempotencyKey(input.idempotencyKey);
      const amountCents = optionalAmountCents(input);
      // Details are part of what a key remembers only when sent, so the keys of bodies without them hash as they always did.
      const sent = 'details' in input ? input.details : undefined;
      const details = sent !== undefined && Object.keys(sent).length > 0 ? sent : undefined;
      // A check goes its own way (behaviour section 17); card operations never see one.
      const found = await readCheckTransaction(deps.db, input.referenceNumber, caller.merchantId);
      const check = found?.payment_type === 'check' ? found : null;
      const start = (idem: Idem) =>
        check === null ? run(name, caller, input, idem, amountCents, details) : runCheck(name, caller, check, idem, amountCents, details);
      if (input.idempotencyKey === null) return start(null);
      const body = { reference_number: input.referenceNumber, amount: input.amountText ?? input.amount ?? null, ...(details === undefined ? {} : { details }) };
      const idem = keyedRequest(input.idempotencyKey, name, body);
      return running.run(`${caller.sourceId}\n${idem.key}`, idem.requestHash, () => start(idem));
    };
  }

  async function queue(caller: Caller, referenceNumber: number): Promise<void> {
    const found = await readCheckTransaction(deps.db, referenceNumber, caller.merchantId);
    if (found?.payment_type === 'check') refuseCheckOperation('queue', referenceNumber);
    const answer = await queueAuthorization(deps.db, { pk: referenceNumber, merchantId: caller.merchantId });
    if (answer.kind === 'refused') failOperation(answer.refusal, referenceNumber, 'captured');
  }

  return {
    capture: operation('capture'),
    voidCharge: operation('void'),
    refund: operation('refund'),
    reversal: operation('reversal'),
    adjust: operation('adjust'),
    adjustCapture: operation('adjust-capture'),
    queue,
  };
}
