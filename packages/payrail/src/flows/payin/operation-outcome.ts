// Recording what the processor answered to a capture, void or refund, shared
// by the request that asked and the worker that asks again after a crash or
// timeout. One write transaction each (store/payin/operation-outcome.ts):
// the guarded change (only the first recorder wins, and then nothing else
// changes), its ledger posting, the batch a captured transaction joins, and
// the reply its Idempotency-Key keeps. Returns null when the answer had
// already been recorded.
import { CHARGE_DECLINES, type ChargeDeclineCode } from '../../domain/card-results.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { OperationResult } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ChargeRow } from '../../store/charges.ts';
import * as outcome from '../../store/payin/operation-outcome.ts';
import { renderCharge } from './charge-answers.ts';
import { EVENT_VIEWS } from '../events/emit.ts';

type Deps = Pick<Service, 'db' | 'clock'>;

/** Shape B of an operation the processor declined or failed: the transaction it acted on keeps its state. */
export function renderOperationRefused(charge: ChargeRow, amountCents: number, result: OperationResult): Record<string, unknown> {
  const code = declineOf(result);
  return {
    id: String(charge.pk),
    status: result.outcome === 'failed' ? 'failed' : 'declined',
    amount: centsToDollarNumber(amountCents),
    currency: charge.currency,
    error: { code, message: CHARGE_DECLINES[code] },
    card: { last_four: charge.last4, card_type: charge.card_type },
    created_at: new Date(charge.created_at_ms).toISOString(),
  };
}

function declineOf(result: OperationResult): ChargeDeclineCode {
  return result.decline ?? (result.outcome === 'failed' ? 'processor_error' : 'card_declined');
}

function viewsOf(deps: Deps): outcome.AnswerViews {
  return { events: EVENT_VIEWS, render: (row) => JSON.stringify(renderCharge(row)), clock: deps.clock };
}

/** A capture's or void's answer as the store records it; a refusal's reply is rendered here (it shows `amountCents`). */
function answerOf(charge: ChargeRow, amountCents: number, result: OperationResult): outcome.OperationAnswer {
  if (result.outcome === 'approved') return { approved: true };
  return { approved: false, refusedJson: JSON.stringify(renderOperationRefused(charge, amountCents, result)) };
}

/** `charge` as reserved (op 'capture', op_cents the amount to capture). */
export async function recordCaptureAnswer(deps: Deps, charge: ChargeRow, result: OperationResult): Promise<string | null> {
  return outcome.recordCaptureAnswer(deps.db, { charge, answer: answerOf(charge, charge.op_cents!, result), views: viewsOf(deps) });
}

/** `charge` as reserved (op 'void', op_cents what the void held: the captured amount, or 0 for an authorization). */
export async function recordVoidAnswer(deps: Deps, charge: ChargeRow, result: OperationResult): Promise<string | null> {
  return outcome.recordVoidAnswer(deps.db, { charge, answer: answerOf(charge, charge.op_cents ?? 0, result), views: viewsOf(deps) });
}

/** `refund` is the pending refund row (its amount held from the merchant since its reservation). */
export async function recordRefundAnswer(deps: Deps, refund: ChargeRow, result: OperationResult): Promise<string | null> {
  if (result.processorRef === '') throw new Error('card processor answered a refund without a processor reference');
  let answer: outcome.RefundAnswer;
  if (result.outcome === 'approved') {
    answer = { approved: true, authCode: result.authCode, processorRef: result.processorRef };
  } else {
    const code = declineOf(result);
    answer = { approved: false, status: result.outcome, errorCode: code, errorMessage: CHARGE_DECLINES[code], processorRef: result.processorRef };
  }
  return outcome.recordRefundAnswer(deps.db, { refund, answer, views: viewsOf(deps) });
}
