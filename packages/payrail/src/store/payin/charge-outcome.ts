// Step 3 of a charge (and the worker's recording of a late or reviewed
// answer): one write transaction with the guarded status change, the charge's
// event, the reply its Idempotency-Key keeps and the ledger credit of an
// approval.
import { merchantAccount } from '../../domain/ledger.ts';
import { issueCardTokenOf } from '../card-tokens.ts';
import { type ChargeRow, type Outcome, recordOutcome, rescheduleCharge } from '../charges.ts';
import type { Db, Tx } from '../db.ts';
import { type EventViews, draftTransactionEventOf } from '../event-outbox.ts';
import { completeKey } from '../idempotency.ts';
import { post } from '../ledger.ts';
import { recordMethodNetworkTransactionId } from '../payment-methods.ts';

export interface ChargeOutcomeInput {
  /** The pending charge as reserved (or claimed by the worker). */
  readonly charge: ChargeRow;
  /** Which pending the charge must still be: no answer yet, or answered pending and polled. */
  readonly awaiting: 'answer' | 'review';
  readonly outcome: Outcome;
  readonly nowMs: number;
  readonly views: EventViews;
  /** The charge as its reply shows it when no event rendered it already. */
  readonly replyJson: (row: ChargeRow) => string;
  /** Whether the reply is the event's data (the same view of the same row), so that it need not be rendered twice. */
  readonly replyIsEventData: boolean;
}

/** The charge as recorded and its reply, or null when another process recorded an outcome first (then nothing changed). */
export function recordChargeAnswer(db: Db, input: ChargeOutcomeInput): Promise<{ charge: ChargeRow; replyJson: string } | null> {
  const { charge, awaiting, outcome, nowMs } = input;
  return db.write(async (tx) => {
    // An authorization only (capture: false) is credited when it is captured (flows/payin/capture-void.ts).
    const credited = outcome.status === 'approved' && charge.auto_capture === 1;
    // Before the outcome erases the charge's sealed card, which the token copies (a no-op once recorded).
    if (outcome.status === 'approved' && charge.save_card_ref !== null)
      await issueCardTokenOf(tx, 'charges', charge.pk, nowMs, outcome.network_transaction_id ?? null);
    // The charge as recorded, its stage and batch included: the reply shows it, as the event does when there is one.
    const updated = await recordOutcome(tx, charge.pk, awaiting, outcome, nowMs, credited);
    if (updated === undefined) return null;
    // The first approved charge of a saved card whose network transaction id is unknown makes it known (later charges name it).
    const networkId = outcome.status === 'approved' ? (outcome.network_transaction_id ?? null) : null;
    if (networkId !== null && updated.payment_method_pk !== null) await recordMethodNetworkTransactionId(tx, updated.payment_method_pk, networkId);
    // docs/api-decisions.md section 11; a pending charge polled again is no news.
    const withEvent = outcome.status !== 'pending' || awaiting === 'answer';
    const draft = withEvent ? await draftTransactionEventOf(tx, input.views, `charge.${outcome.status}`, updated, nowMs) : undefined;
    const replyJson = (input.replyIsEventData ? draft?.plainJson : undefined) ?? input.replyJson(updated);
    // Statements that do not wait on each other's results are sent together,
    // in this order (PostgreSQL runs them so, in one round trip).
    await Promise.all([
      draft?.insert(),
      // The first answer of a charge is the reply its Idempotency-Key keeps; a
      // later review result does not replace it (completeKey only fills a key
      // whose charge had no answer yet, so the statement is skipped when it cannot apply).
      charge.idem_key !== null && awaiting === 'answer' ? completeKey(tx, charge.source_id, charge.idem_key, 200, replyJson) : undefined,
      // Last: the merchant's balance rows are locked from here to COMMIT (HOT_ROWS_LAST in flows/payin/operation-outcome.ts).
      // The charge as recorded: a partial approval credits only what was authorized.
      credited ? creditApproval(tx, updated, nowMs) : undefined,
    ]);
    return { charge: updated, replyJson };
  });
}

/** The approved amount to the merchant's available balance (card_payins has no floor, so it is never refused). */
async function creditApproval(tx: Tx, charge: ChargeRow, nowMs: number): Promise<void> {
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

/**
 * Leaves a pending charge, refund or credit alone until `nextRunAtMs`: one
 * whose request Payrail may no longer send again (providers/card-processor.ts
 * mayResend). A no-op once it is final.
 */
export function deferPendingCharge(db: Db, input: { readonly pk: number; readonly nextRunAtMs: number }): Promise<void> {
  return db.write((tx) => rescheduleCharge(tx, input.pk, input.nextRunAtMs));
}
