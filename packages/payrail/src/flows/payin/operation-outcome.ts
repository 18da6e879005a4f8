// Recording what the processor answered to a capture, void or refund, shared
// by the request that asked and the worker that asks again after a crash or
// timeout. One write transaction each: the guarded change (only the first
// recorder wins, and then nothing else changes), its ledger posting, the
// batch a captured transaction joins, and the reply its Idempotency-Key
// keeps. Returns null when the answer had already been recorded.
import { CHARGE_DECLINES, type ChargeDeclineCode } from '../../domain/card-results.ts';
import { merchantAccount, type PostingKind } from '../../domain/ledger.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { EventType } from '../../domain/webhooks.ts';
import type { OperationResult } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import { joinOpenBatch } from '../../store/batches.ts';
import { recordCaptured, recordOperationRefused, recordVoided } from '../../store/charge-operations.ts';
import type { ChargeRow } from '../../store/charges.ts';
import type { Txn } from '../../store/db.ts';
import { completeKey } from '../../store/idempotency.ts';
import { post } from '../../store/ledger.ts';
import { recordRefundApproved, recordRefundRefused } from '../../store/refunds.ts';
import { renderCharge } from './charge-answers.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { draftTransactionEventOf } from '../../store/event-outbox.ts';

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

/**
 * Moves money between the merchant's available balance and its card payins
 * for transaction `charge`: to the merchant (a capture, a release) can never
 * be refused (card_payins has no floor); from the merchant (a void or refund
 * hold) is refused below the available balance's floor (minus the overdraft).
 */
/**
 * HOT_ROWS_LAST: every card operation of a merchant moves money on the same
 * balance rows, and on PostgreSQL a transaction holds their locks from its
 * posting until COMMIT while its other statements make their round trips.
 * So an operation posts as its last statement (nothing it writes or answers
 * depends on a balance), and other operations wait for those rows as little
 * as possible.
 */
export async function moveCardMoney(
  tx: Txn,
  charge: Pick<ChargeRow, 'pk' | 'merchant_id'>,
  kind: PostingKind,
  toMerchant: boolean,
  amountCents: number,
  nowMs: number,
): Promise<'posted' | 'below_floor'> {
  const available = merchantAccount(charge.merchant_id, 'available');
  const cardPayins = merchantAccount(charge.merchant_id, 'card_payins');
  return post(tx, {
    kind,
    debitAccountId: toMerchant ? cardPayins : available,
    creditAccountId: toMerchant ? available : cardPayins,
    amountCents,
    merchantId: charge.merchant_id,
    refId: String(charge.pk),
    nowMs,
  });
}

/** A movement to the merchant, which nothing can refuse. */
async function postCard(tx: Txn, charge: ChargeRow, kind: PostingKind, toMerchant: true, amountCents: number, nowMs: number): Promise<void> {
  const posted = await moveCardMoney(tx, charge, kind, toMerchant, amountCents, nowMs);
  if (posted !== 'posted') throw new Error(`${kind} of ${charge.pk}: posting refused (${posted})`);
}

type ReplyKey = { sourceId: string | null; idemKey: string | null };

/** Keeps `json` as the reply of the Idempotency-Key, when the operation has one still waiting. */
async function keepReply(tx: Txn, key: ReplyKey, json: string): Promise<void> {
  if (key.sourceId !== null && key.idemKey !== null) await completeKey(tx, key.sourceId, key.idemKey, 200, json);
}

/** A refusal's reply (shape B): kept in the key; the transaction itself did not change. */
async function replyRefused(tx: Txn, key: ReplyKey, json: string): Promise<string> {
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
  tx: Txn,
  changed: ChargeRow,
  step: { type: EventType; key: ReplyKey; post: (() => Promise<void>) | null; nowMs: number },
): Promise<string> {
  const draft = await draftTransactionEventOf(tx, EVENT_VIEWS, step.type, changed, step.nowMs);
  const json = draft.plainJson ?? JSON.stringify(renderCharge(changed));
  await Promise.all([draft.insert(), keepReply(tx, step.key, json), step.post?.()]);
  return json;
}

/** `charge` as reserved (op 'capture', op_cents the amount to capture). */
export async function recordCaptureAnswer(deps: Deps, charge: ChargeRow, result: OperationResult): Promise<string | null> {
  const amountCents = charge.op_cents!;
  return deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    const key = { sourceId: charge.op_source_id, idemKey: charge.op_idem_key };
    if (result.outcome !== 'approved') {
      if (!(await recordOperationRefused(tx, charge.pk, 'capture', nowMs))) return null;
      return replyRefused(tx, key, JSON.stringify(renderOperationRefused(charge, amountCents, result)));
    }
    const captured = await recordCaptured(tx, charge.pk, amountCents, nowMs);
    if (captured === undefined) return null;
    const post = () => postCard(tx, charge, 'charge.capture', true, amountCents, nowMs);
    return finishAnswer(tx, captured, { type: 'charge.captured', key, post, nowMs });
  });
}

/** `charge` as reserved (op 'void', op_cents what the void held: the captured amount, or 0 for an authorization). */
export async function recordVoidAnswer(deps: Deps, charge: ChargeRow, result: OperationResult): Promise<string | null> {
  const heldCents = charge.op_cents ?? 0;
  return deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    const key = { sourceId: charge.op_source_id, idemKey: charge.op_idem_key };
    if (result.outcome === 'approved') {
      const voided = await recordVoided(tx, charge.pk, nowMs);
      if (voided === undefined) return null;
      return finishAnswer(tx, voided, { type: 'charge.voided', key, post: null, nowMs });
    }
    if (!(await recordOperationRefused(tx, charge.pk, 'void', nowMs))) return null;
    // Captured again, so it settles with the open batch.
    if (heldCents > 0) await joinOpenBatch(tx, charge.merchant_id, charge.pk, nowMs);
    const reply = await replyRefused(tx, key, JSON.stringify(renderOperationRefused(charge, heldCents, result)));
    // Last: see HOT_ROWS_LAST.
    if (heldCents > 0) await postCard(tx, charge, 'charge.void_release', true, heldCents, nowMs);
    return reply;
  });
}

/** `refund` is the pending refund row (its amount held from the merchant since its reservation). */
export async function recordRefundAnswer(deps: Deps, refund: ChargeRow, result: OperationResult): Promise<string | null> {
  if (result.processorRef === '') throw new Error('card processor answered a refund without a processor reference');
  return deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    const key = { sourceId: refund.source_id, idemKey: refund.idem_key };
    if (result.outcome === 'approved') {
      const approved = await recordRefundApproved(tx, refund.pk, { authCode: result.authCode, processorRef: result.processorRef, nowMs });
      if (approved === undefined) return null;
      return finishAnswer(tx, approved, { type: 'refund.succeeded', key, post: null, nowMs });
    }
    const code = declineOf(result);
    const refused = await recordRefundRefused(
      tx,
      { pk: refund.pk, parentPk: refund.parent_pk!, amountCents: refund.amount_cents },
      { status: result.outcome, errorCode: code, errorMessage: CHARGE_DECLINES[code], processorRef: result.processorRef, nowMs },
    );
    if (refused === undefined) return null;
    const post = () => postCard(tx, refund, 'refund.release', true, refund.amount_cents, nowMs);
    return finishAnswer(tx, refused, { type: 'refund.declined', key, post, nowMs });
  });
}
