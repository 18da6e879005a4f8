// Recording what the processor answered, shared by the charge request and
// the worker (pending review, and charges whose request never recorded an
// answer). One write transaction: the guarded status change, the ledger
// credit of an approval, and the reply of the charge's Idempotency-Key.
import { CHARGE_DECLINES, type ChargeDeclineCode } from '../../domain/card-results.ts';
import { merchantAccount } from '../../domain/ledger.ts';
import type { AuthorizationResult } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ChargeRow, Outcome } from '../../store/charges.ts';
import { recordOutcome } from '../../store/charges.ts';
import type { Txn } from '../../store/db.ts';
import { completeKey } from '../../store/idempotency.ts';
import { post } from '../../store/ledger.ts';
import { renderCharge } from './charge-answers.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { draftTransactionEventOf } from '../../store/event-outbox.ts';

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
      return { ...base, status: 'approved', error_code: null, error_message: null, next_run_at_ms: null };
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
export async function recordChargeOutcome(
  deps: Pick<Service, 'db' | 'clock'>,
  charge: ChargeRow,
  awaiting: 'answer' | 'review',
  result: AuthorizationResult,
): Promise<{ charge: ChargeRow; replyJson: string } | null> {
  const nowMs = deps.clock.nowMs();
  const outcome = outcomeOf(result, nowMs);
  const recorded = await deps.db.write(async (tx) => {
    // An authorization only (capture: false) is credited when it is captured (flows/payin/capture-void.ts).
    const credited = outcome.status === 'approved' && charge.auto_capture === 1;
    // The charge as recorded, its stage and batch included: the reply shows it, as the event does when there is one.
    const updated = await recordOutcome(tx, charge.pk, awaiting, outcome, nowMs, credited);
    if (updated === undefined) return null;
    // docs/api-decisions.md section 11; a pending charge polled again is no news.
    const withEvent = outcome.status !== 'pending' || awaiting === 'answer';
    const draft = withEvent ? await draftTransactionEventOf(tx, EVENT_VIEWS, `charge.${outcome.status}`, updated, nowMs) : undefined;
    const replyJson = draft?.plainJson ?? JSON.stringify(renderCharge(updated));
    // Statements that do not wait on each other's results are sent together,
    // in this order (PostgreSQL runs them so, in one round trip).
    await Promise.all([
      draft?.insert(),
      // The first answer of a charge is the reply its Idempotency-Key keeps; a
      // later review result does not replace it (completeKey only fills a key
      // whose charge had no answer yet, so the statement is skipped when it cannot apply).
      charge.idem_key !== null && awaiting === 'answer' ? completeKey(tx, charge.source_id, charge.idem_key, 200, replyJson) : undefined,
      // Last: the merchant's balance rows are locked from here to COMMIT (HOT_ROWS_LAST in operation-outcome.ts).
      credited ? creditApproval(tx, charge, nowMs) : undefined,
    ]);
    return { charge: updated, replyJson };
  });
  return recorded;
}

/** The approved amount to the merchant's available balance (card_payins has no floor, so it is never refused). */
async function creditApproval(tx: Txn, charge: ChargeRow, nowMs: number): Promise<void> {
  const posted = await post(tx, {
    kind: 'charge.approve',
    debitAccountId: merchantAccount(charge.merchant_id, 'card_payins'),
    creditAccountId: merchantAccount(charge.merchant_id, 'available'),
    amountCents: charge.amount_cents,
    merchantId: charge.merchant_id,
    refId: String(charge.pk),
    nowMs,
  });
  if (posted !== 'posted') throw new Error(`charge ${charge.pk}: approval posting refused (${posted})`);
}
