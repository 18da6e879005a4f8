// Recording what the processor answered to a capture, void or refund, for
// the request that asked and for the worker that asks again after a crash
// or timeout. One write transaction each: the guarded change (only the
// first recorder wins, and then nothing else changes), its event, the batch
// a captured transaction joins, the reply its Idempotency-Key keeps and,
// last (HOT_ROWS_LAST, card-money.ts), its ledger posting. Each answers
// null when the answer had already been recorded.
import type { EventType } from '../../domain/webhooks.ts';
import { joinOpenBatch } from '../batches.ts';
import { recordCaptured, recordOperationRefused, recordVoided } from '../charge-operations.ts';
import type { ChargeRow } from '../charges.ts';
import type { Db, Tx } from '../db.ts';
import { draftTransactionEventOf, type EventViews } from '../event-outbox.ts';
import { completeKey, markKeyOutcomeUnknown } from '../idempotency.ts';
import { recordRefundApproved, recordRefundRefused } from '../refunds.ts';
import { postToMerchant } from './card-money.ts';

/** The processor's answer to a capture or void: approved, or refused with the reply (shape B) its key keeps. */
export type OperationAnswer = { readonly approved: true } | { readonly approved: false; readonly refusedJson: string };

/** The processor's answer to a refund, as the refund row records it. */
export type RefundAnswer =
  | { readonly approved: true; readonly authCode: string; readonly processorRef: string }
  | {
      readonly approved: false;
      readonly status: 'declined' | 'failed';
      readonly errorCode: string;
      readonly errorMessage: string;
      readonly processorRef: string;
    };

/** How the recorded transaction is shown: its event's views, and its reply when the event's data cannot serve as one. */
export interface AnswerViews {
  readonly events: EventViews;
  readonly render: (row: ChargeRow) => string;
  /** Read in the transaction, as the record's "now". */
  readonly clock: { nowMs(): number };
}

type ReplyKey = { sourceId: string | null; idemKey: string | null };

/** Keeps `json` as the reply of the Idempotency-Key, when the operation has one still waiting. */
async function keepReply(tx: Tx, key: ReplyKey, json: string): Promise<void> {
  if (key.sourceId !== null && key.idemKey !== null) await completeKey(tx, key.sourceId, key.idemKey, 200, json);
}

/** A refusal's reply (shape B): kept in the key; the transaction itself did not change. */
async function replyRefused(tx: Tx, key: ReplyKey, json: string): Promise<string> {
  await keepReply(tx, key, json);
  return json;
}

/**
 * What follows a recorded answer that changed the transaction (`changed`,
 * the row as the change left it, open batch included: see
 * store/charges.ts changeCharge): writing its event, keeping the reply in
 * the key and, last (HOT_ROWS_LAST), the posting. They do not wait on each
 * other's results, so they are sent together, in this order (PostgreSQL
 * runs them so, in one round trip).
 */
async function finishAnswer(
  tx: Tx,
  views: AnswerViews,
  changed: ChargeRow,
  step: { type: EventType; key: ReplyKey; post: (() => Promise<void>) | null; nowMs: number },
): Promise<string> {
  const draft = await draftTransactionEventOf(tx, views.events, step.type, changed, step.nowMs);
  const json = draft.plainJson ?? views.render(changed);
  await Promise.all([draft.insert(), keepReply(tx, step.key, json), step.post?.()]);
  return json;
}

/** Records the answer to `charge` as reserved (op 'capture', op_cents the amount to capture); returns its reply. */
export async function recordCaptureAnswer(db: Db, input: { charge: ChargeRow; answer: OperationAnswer; views: AnswerViews }): Promise<string | null> {
  const { charge, answer, views } = input;
  const amountCents = charge.op_cents!;
  return db.write(async (tx) => {
    const nowMs = views.clock.nowMs();
    const key = { sourceId: charge.op_source_id, idemKey: charge.op_idem_key };
    if (!answer.approved) {
      if (!(await recordOperationRefused(tx, charge.pk, 'capture', nowMs))) return null;
      return replyRefused(tx, key, answer.refusedJson);
    }
    const captured = await recordCaptured(tx, charge.pk, amountCents, nowMs);
    if (captured === undefined) return null;
    const post = () => postToMerchant(tx, charge, 'charge.capture', amountCents, nowMs);
    return finishAnswer(tx, views, captured, { type: 'charge.captured', key, post, nowMs });
  });
}

/** Records the answer to `charge` as reserved (op 'void', op_cents what the void held: the captured amount, or 0 for an authorization). */
export async function recordVoidAnswer(db: Db, input: { charge: ChargeRow; answer: OperationAnswer; views: AnswerViews }): Promise<string | null> {
  const { charge, answer, views } = input;
  const heldCents = charge.op_cents ?? 0;
  return db.write(async (tx) => {
    const nowMs = views.clock.nowMs();
    const key = { sourceId: charge.op_source_id, idemKey: charge.op_idem_key };
    if (answer.approved) {
      const voided = await recordVoided(tx, charge.pk, nowMs);
      if (voided === undefined) return null;
      return finishAnswer(tx, views, voided, { type: 'charge.voided', key, post: null, nowMs });
    }
    if (!(await recordOperationRefused(tx, charge.pk, 'void', nowMs))) return null;
    // Captured again, so it settles with the open batch.
    if (heldCents > 0) await joinOpenBatch(tx, charge.merchant_id, charge.pk, nowMs);
    const reply = await replyRefused(tx, key, answer.refusedJson);
    // Last: see HOT_ROWS_LAST.
    if (heldCents > 0) await postToMerchant(tx, charge, 'charge.void_release', heldCents, nowMs);
    return reply;
  });
}

/** Records the answer to `refund`, the pending refund row (its amount held from the merchant since its reservation). */
export async function recordRefundAnswer(db: Db, input: { refund: ChargeRow; answer: RefundAnswer; views: AnswerViews }): Promise<string | null> {
  const { refund, answer, views } = input;
  return db.write(async (tx) => {
    const nowMs = views.clock.nowMs();
    const key = { sourceId: refund.source_id, idemKey: refund.idem_key };
    if (answer.approved) {
      const approved = await recordRefundApproved(tx, refund.pk, { authCode: answer.authCode, processorRef: answer.processorRef, nowMs });
      if (approved === undefined) return null;
      return finishAnswer(tx, views, approved, { type: 'refund.succeeded', key, post: null, nowMs });
    }
    const refused = await recordRefundRefused(
      tx,
      { pk: refund.pk, parentPk: refund.parent_pk!, amountCents: refund.amount_cents },
      { status: answer.status, errorCode: answer.errorCode, errorMessage: answer.errorMessage, processorRef: answer.processorRef, nowMs },
    );
    if (refused === undefined) return null;
    const post = () => postToMerchant(tx, refund, 'refund.release', refund.amount_cents, nowMs);
    return finishAnswer(tx, views, refused, { type: 'refund.declined', key, post, nowMs });
  });
}

/** Keeps `pendingJson` as the reply of an Idempotency-Key whose operation got no answer from the processor (the worker will ask). */
export async function markOutcomeUnknown(db: Db, input: { sourceId: string; idemKey: string; pendingJson: string }): Promise<void> {
  await db.write((tx) => markKeyOutcomeUnknown(tx, input.sourceId, input.idemKey, input.pendingJson));
}
