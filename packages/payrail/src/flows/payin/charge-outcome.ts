// Recording what the processor answered, shared by the charge request and
// the worker (pending review, and charges whose request never recorded an
// answer): the answer as an outcome, recorded by one store command
// (store/payin/charge-outcome.ts) with the ledger credit of an approval and
// the reply of the charge's Idempotency-Key.
import { CHARGE_DECLINES, type ChargeDeclineCode } from '../../domain/card-results.ts';
import { networkTransactionIdOf } from '../../domain/stored-credential.ts';
import type { AuthorizationResult } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ChargeRow, Outcome } from '../../store/charges.ts';
import { recordChargeAnswer } from '../../store/payin/charge-outcome.ts';
import { dialectOf, renderCharge } from './charge-answers.ts';
import { EVENT_VIEWS } from '../events/emit.ts';

/** Longest wait between two polls of a pending authorization, whatever a connector asks for. */
const POLL_INTERVAL_MS_MAX = 60 * 60_000;

export function outcomeOf(result: AuthorizationResult, nowMs: number): Outcome {
  if (result.processorRef === '') throw new Error('card processor answered without a processor reference');
  const base = {
    auth_code: result.authCode,
    avs_result_code: result.avsResultCode,
    cvv_result_code: result.cvvResultCode,
    processor_ref: result.processorRef,
  };
  switch (result.outcome) {
    case 'approved':
      return {
        ...base,
        status: 'approved',
        error_code: null,
        error_message: null,
        next_run_at_ms: null,
        authorized_cents: result.authorizedCents ?? null,
        network_transaction_id: networkTransactionIdOf(result.networkTransactionId),
      };
    case 'pending': {
      const waitMs = Math.min(POLL_INTERVAL_MS_MAX, Math.max(0, result.retryAfterMs));
      return { ...base, auth_code: '', status: 'pending', error_code: null, error_message: null, next_run_at_ms: nowMs + waitMs };
    }
    case 'declined':
    case 'failed': {
      const code: ChargeDeclineCode = result.decline ?? (result.outcome === 'declined' ? 'card_declined' : 'processor_error');
      return { ...base, auth_code: '', status: result.outcome, error_code: code, error_message: CHARGE_DECLINES[code], next_run_at_ms: null };
    }
  }
}

/**
 * Records `result` for a pending charge. Returns the updated charge and its
 * reply, or null when another process recorded an outcome first (then
 * nothing changed).
 */
export function recordChargeOutcome(
  deps: Pick<Service, 'db' | 'clock'>,
  charge: ChargeRow,
  awaiting: 'answer' | 'review',
  result: AuthorizationResult,
): Promise<{ charge: ChargeRow; replyJson: string } | null> {
  const nowMs = deps.clock.nowMs();
  const outcome = outcomeOf(result, nowMs);
  // The event's data is the spec dialect's answer; an accept.blue caller's reply is rendered on its own.
  const replyIsEventData = dialectOf(charge) === 'spec';
  return recordChargeAnswer(deps.db, { charge, awaiting, outcome, nowMs, views: EVENT_VIEWS, replyJson: replyJsonOf, replyIsEventData });
}

// In the dialect the charge was asked in: the worker records the reply a replay answers.
const replyJsonOf = (row: ChargeRow): string => JSON.stringify(renderCharge(row, [], dialectOf(row)));
