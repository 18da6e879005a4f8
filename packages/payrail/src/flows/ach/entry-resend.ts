// Entries whose request wrote them and then never recorded the network's
// answer (it crashed or timed out): a submission sent again with the same
// reference, a void asked again. Both wait until the first call must have
// ended (its deadline plus a margin), and a submission is sent again only
// within the network's resend window (network-calls.ts mayResendAch), as
// card charges are (flows/payin/charge-recovery.ts). The account number is
// unsealed only for the call and never logged.
import { ACH_REFUSAL_CODES, ACH_REFUSAL_TEXTS, type AchState, accountTypeOf } from '../../domain/ach.ts';
import { ACH_STUCK_RECHECK_MS, ACH_SUBMIT_MARGIN_MS, achRetryDelayMs } from '../../domain/ach-schedule.ts';
import { ACH_NETWORK_TIMEOUT_MS, type AchSubmitResult, type AchVoidResult } from '../../providers/ach-network.ts';
import type { AchEntryRow } from '../../store/ach/entries.ts';
import { readAchResubmission } from '../../store/ach/lifecycle-reads.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import { dialectOf, renderCharge } from '../payin/charge-answers.ts';
import { acceptAchEntry, finishAchVoid, refuseAchEntry, undoAchVoid } from '../../store/ach/transitions.ts';
import { chargeReference } from '../common/provider-references.ts';
import { nextCheck } from './entry-status.ts';
import { entryQuery, errorText, lastWaitMs, moveBase, reschedule, type EntryStep } from './lifecycle-context.ts';
import { mayResendAch, submitWithDeadline, voidWithDeadline } from './network-calls.ts';

/** When a call begun at `startedAtMs` must have ended, whatever became of it. */
function callSettledByMs(startedAtMs: number): number {
  return startedAtMs + ACH_NETWORK_TIMEOUT_MS + ACH_SUBMIT_MARGIN_MS;
}

/** A submitting entry: submitted again with the same reference once its first call is over, and the answer recorded. */
export async function resubmitEntry(step: EntryStep): Promise<AchState | null> {
  const { entry, deps, network } = step;
  const settledBy = callSettledByMs(entry.submitted_at_ms);
  if (step.nowMs < settledBy) {
    await reschedule(step, settledBy);
    return null;
  }
  if (!mayResendAch(network, entry.submitted_at_ms, step.nowMs)) {
    deps.log.error(
      { check: entry.charge_pk, network: network.name, firstSentAtMs: entry.submitted_at_ms, resendWindowMs: network.resendWindowMs },
      "ACH entry's outcome unknown past the network's resend window: not sent again (it could be debited twice); check it at the network",
    );
    await reschedule(step, step.nowMs + ACH_STUCK_RECHECK_MS);
    return null;
  }
  const facts = await readAchResubmission(deps.db, entry.charge_pk);
  const accountType = accountTypeOf(entry.account_type);
  if (facts === undefined || facts.account_enc.length === 0 || accountType === null) {
    deps.log.error({ check: entry.charge_pk }, 'ACH entry cannot be sent again: its account is not on record');
    await reschedule(step, step.nowMs + ACH_STUCK_RECHECK_MS);
    return null;
  }
  if (facts.parent_pk !== null && facts.parent_state !== 'settled') {
    // The refunded check was returned since the refund was reserved: nothing of it may be refunded, so the refund is not sent.
    deps.log.warn(
      { check: entry.charge_pk, refunds: facts.parent_pk, parentState: facts.parent_state },
      'ACH refund of a check no longer settled: not sent again',
    );
    const moved = await refuseAchEntry(deps.db, {
      ...moveBase(step, null),
      outcome: 'failed',
      errorCode: ACH_REFUSAL_CODES.failed,
      message: `the refunded check is ${facts.parent_state ?? 'gone'}, no longer settled; the refund was not sent again`,
    });
    return moved.kind === 'moved' ? 'failed' : null;
  }
  const refunds =
    facts.parent_pk !== null && facts.parent_network_ref !== null
      ? { refunds: { reference: chargeReference(deps.providerKeys, facts.parent_pk), networkRef: facts.parent_network_ref } }
      : {};
  let result: AchSubmitResult;
  try {
    result = await submitWithDeadline(network, {
      reference: chargeReference(deps.providerKeys, entry.charge_pk),
      merchantId: entry.merchant_id,
      direction: entry.direction,
      amountCents: entry.amount_cents,
      currency: 'USD',
      account: {
        name: entry.account_name,
        routingNumber: entry.routing_number,
        accountNumber: deps.cipher().open(facts.account_enc, 'card_number', facts.source_id),
        accountType,
      },
      secCode: entry.sec_code,
      ...refunds,
    });
    if (result.outcome === 'accepted' && result.networkRef === '') throw new Error('the network accepted the entry without naming it');
  } catch (error) {
    deps.log.warn({ check: entry.charge_pk, network: network.name, err: errorText(error) }, 'ACH network did not answer a submission; will send it again');
    await reschedule(step, step.nowMs + achRetryDelayMs(lastWaitMs(step)));
    return null;
  }
  if (result.outcome === 'accepted') {
    const next = nextCheck(step, { ...entry, state: 'pending' });
    const moved = await acceptAchEntry(deps.db, { ...moveBase(step, next), networkRef: result.networkRef, ...replyOf(entry) });
    return moved.kind === 'moved' ? 'pending' : null;
  }
  const moved = await refuseAchEntry(deps.db, {
    ...moveBase(step, null),
    outcome: result.outcome,
    errorCode: ACH_REFUSAL_CODES[result.outcome],
    message: result.declineMessage ?? ACH_REFUSAL_TEXTS[result.outcome],
    ...replyOf(entry),
  });
  return moved.kind === 'moved' ? result.outcome : null;
}

/**
 * A check charge's Idempotency-Key keeps the reply its request would have
 * sent, written by whoever records the answer (as the card worker does for
 * a charge: flows/payin/charge-recovery.ts); a refund's or credit's reply is
 * its request's to write.
 */
function replyOf(entry: AchEntryRow): { replyJson?: (row: TransactionRow) => string } {
  return entry.direction === 'debit' ? { replyJson: (row) => JSON.stringify(renderCharge(row, [], dialectOf(row))) } : {};
}

/** A voiding entry: the void asked again once its first call is over; voided, or back to pending when the network had originated it. */
export async function retryVoid(step: EntryStep): Promise<AchState | null> {
  const { entry, deps, network } = step;
  // From when the void was first written (beginAchVoid), which no reschedule moves; an entry from before it was recorded: from now on.
  const settledBy = callSettledByMs(entry.void_asked_at_ms ?? entry.updated_at_ms);
  if (step.nowMs < settledBy) {
    await reschedule(step, settledBy);
    return null;
  }
  if (entry.network_ref === null) {
    deps.log.error({ check: entry.charge_pk }, 'voiding ACH entry has no network reference: it cannot be asked about');
    await reschedule(step, step.nowMs + ACH_STUCK_RECHECK_MS);
    return null;
  }
  let result: AchVoidResult;
  try {
    const firstAsked = entry.void_asked_ach_ms === null ? {} : { firstAskedAtMs: entry.void_asked_ach_ms };
    result = await voidWithDeadline(network, { ...entryQuery(step, entry.network_ref), ...firstAsked });
  } catch (error) {
    deps.log.warn({ check: entry.charge_pk, network: network.name, err: errorText(error) }, 'ACH network did not answer a void; will ask again');
    await reschedule(step, step.nowMs + achRetryDelayMs(lastWaitMs(step)));
    return null;
  }
  if (result.outcome === 'voided') {
    const moved = await finishAchVoid(deps.db, moveBase(step, null));
    return moved.kind === 'moved' ? 'voided' : null;
  }
  // Originated already: back to pending and asked about at once, so the next look moves it on.
  const moved = await undoAchVoid(deps.db, moveBase(step, step.nowMs));
  return moved.kind === 'moved' ? 'pending' : null;
}
