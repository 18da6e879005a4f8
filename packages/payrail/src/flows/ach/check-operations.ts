// What the payin API's operations do with a check (behaviour.md section 17;
// reference A: refund, void, reversal, credit of an ACH transaction):
//
// - refund: a settled check charge, from five business days after it was
//   processed; a credit entry to the same account, its amount held from the
//   merchant's available balance while it is under way (holdAchCredit);
// - void: before origination only; the void is written ('voiding') before
//   the network is asked, then finished, or undone when the network had
//   originated it already; an unanswered void stays 'voiding' for the worker;
// - reversal: a void while pending, a refund once settled; an amount on an
//   unsettled check is refused (ACH cannot be adjusted);
// - capture, adjust, adjust-capture and queue: refused (a check is never
//   authorized only, and its amount never changes).
//
// Replies are the spec dialect's (shape A), as for card operations: the
// route translates them for an accept.blue caller.
import { achRefundProblem, achVoidProblem, type AchState } from '../../domain/ach.ts';
import { refundableCents } from '../../domain/card-lifecycle.ts';
import { formatCents } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import type { AchNetwork } from '../../providers/ach-network.ts';
import { type CheckReservation, readCheckTransaction, readSealedCheckAccount, reserveCheck } from '../../store/ach/check-reservation.ts';
import { readAchEntry } from '../../store/ach/entries.ts';
import { beginAchVoid, finishAchVoid, undoAchVoid } from '../../store/ach/transitions.ts';
import { completeOperationKey, releaseOperationKey, reserveOperationKey } from '../../store/ach/check-keys.ts';
import { refundHoldingKey } from '../../store/payin/refund.ts';
import { readIdempotencyKey } from '../../store/payin/charge-reads.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import { errorSummary } from '../common/error-summary.ts';
import { IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENCY_WAIT_MARGIN_MS, type KeyedRequest, replayKey, type Reply } from '../common/idempotency-replay.ts';
import { chargeReference } from '../common/provider-references.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { type AdjustDetails, applyAdjustDetails } from '../payin/adjust.ts';
import { achCallTimeoutMs } from '../../providers/ach-network.ts';
import type { CheckAccount } from './check-account.ts';
import { type CheckDeps, checkRetryAfterMs } from './check-charge.ts';
import { achNowMs } from './check-clock.ts';
import { submitCheckEntry, withDeadline } from './check-submit.ts';

type Checks = CheckDeps & { readonly network: AchNetwork };

/** Who asks, as the card operations name it. */
interface Caller {
  readonly merchantId: string;
  readonly sourceId: string;
}

/** An operation's reply: the spec dialect's, as card operations keep theirs. */
export const operationReplyJson = (row: TransactionRow): string => JSON.stringify(renderCharge(row));

const ref = (pk: number) => `reference_number ${pk}`;

/** The operations a check refuses outright, with why. */
export function refuseCheckOperation(operation: 'capture' | 'adjust' | 'adjust-capture' | 'queue', pk: number): never {
  switch (operation) {
    case 'capture':
      return fail('invalid_request', `${ref(pk)} is a check: a check is collected when it is charged, there is nothing to capture`);
    case 'queue':
      return fail('invalid_state', `${ref(pk)} is a check: only a card authorization can be queued`);
    default:
      return fail('invalid_request', `${ref(pk)} is a check: ACH transactions cannot be adjusted; void it while pending, or refund it once settled`);
  }
}

/** The check's entry facts, or a programmer error: callers dispatch on payment_type. */
function checkFactsOf(row: TransactionRow) {
  if (row.check === null || row.check === undefined) throw new Error(`transaction ${row.pk} is not a check`);
  return row.check;
}

/** Refund of check charge `parent`: `amountCents` (null: all that is refundable) back to the account it was taken from. */
export async function refundCheck(
  deps: Checks,
  caller: Caller,
  input: { parent: TransactionRow; amountCents: number | null; idem: KeyedRequest | null; details?: AdjustDetails | undefined },
): Promise<Reply> {
  const { parent } = input;
  const check = checkFactsOf(parent);
  // A retry of a refund made already replays it, whatever the check's state now.
  if (await keyTaken(deps, caller, input.idem)) return replayCredit(deps, caller, input.idem!);
  if (parent.kind !== 'charge') fail('invalid_request', `${ref(parent.pk)} is a refund; only charges can be refunded`);
  // The wait is counted on the merchant's ACH clock from the check's submission on that clock, never against the service clock.
  const entry = await readAchEntry(deps.db, parent.pk, caller.merchantId);
  const processedAtAchMs = entry?.submitted_ach_ms ?? parent.created_at_ms;
  const problem = achRefundProblem(check.state, processedAtAchMs, await achNowMs(deps, caller.merchantId));
  if (problem !== null) fail('invalid_request', `${ref(parent.pk)}: ${problem}`);
  const refundable = refundableCents(parent);
  const amountCents = input.amountCents ?? refundable;
  if (amountCents <= 0 || amountCents > refundable) fail('invalid_amount', `amount exceeds the refundable ${formatCents(refundable)} of ${ref(parent.pk)}`);
  // The refund pays the account the charge took the money from: its own copy of the number, sealed for the caller's source.
  const sealed = await readSealedCheckAccount(deps.db, parent.pk, caller.merchantId);
  if (sealed === undefined || sealed.card_number_enc.length === 0) {
    fail('invalid_request', `${ref(parent.pk)}: the account number is no longer kept; the check cannot be refunded through Payrail`);
  }
  const accountNumber = deps.cipher.open(sealed.card_number_enc, 'card_number', sealed.source_id);
  const account: CheckAccount = {
    name: check.account_name,
    routingNumber: check.routing_number,
    accountNumber,
    accountTypeAsSent: check.account_type,
    accountType: check.account_type.toLowerCase() === 'savings' ? 'savings' : 'checking',
    secCode: check.sec_code,
    last4: parent.last4,
    method: null,
  };
  const details = input.details ?? {};
  const reservation = await reserveCheck(deps.db, {
    clock: deps.clock,
    key: keyClaimOf(caller, input.idem),
    row: {
      merchantId: caller.merchantId,
      sourceId: caller.sourceId,
      kind: 'refund',
      parentPk: parent.pk,
      amountCents,
      accountSealed: deps.cipher.seal(accountNumber, 'card_number', caller.sourceId),
      last4: parent.last4,
      requestJson: Object.keys(details).length === 0 ? parent.request_json : applyAdjustDetails(parent.request_json, details),
      customerPk: parent.customer_pk,
      paymentMethodPk: null,
      accountName: check.account_name,
      routingNumber: check.routing_number,
      accountType: check.account_type,
      secCode: check.sec_code,
      network: deps.network.name,
      retryAfterMs: checkRetryAfterMs(deps.network),
    },
  });
  if (reservation.kind === 'taken') return replayCredit(deps, caller, input.idem!);
  if (reservation.kind === 'refused') return failReservation(reservation, parent.pk, amountCents, 'refund');
  const refunds = parent.processor_ref === null ? undefined : { reference: chargeReference(deps.providerKeys, parent.pk), networkRef: parent.processor_ref };
  const outcome = await submitCheckEntry(deps, { row: reservation.row, direction: 'credit', account, refunds, replyJson: operationReplyJson });
  return { statusCode: 200, json: operationReplyJson(outcome.row) };
}

/** Whether a live reservation of the request's Idempotency-Key exists (a replay, or a request under way). */
export async function keyTaken(deps: Pick<Checks, 'db' | 'clock'>, caller: Caller, idem: KeyedRequest | null): Promise<boolean> {
  if (idem === null) return false;
  const row = await readIdempotencyKey(deps.db, { sourceId: caller.sourceId, idemKey: idem.key });
  return row !== undefined && row.created_at_ms > deps.clock.nowMs() - IDEMPOTENCY_KEY_TTL_MS;
}

/** The Idempotency-Key claim of a keyed request. */
export function keyClaimOf(caller: Caller, idem: KeyedRequest | null) {
  return idem === null ? null : { sourceId: caller.sourceId, idemKey: idem.key, requestHash: idem.requestHash, ttlMs: IDEMPOTENCY_KEY_TTL_MS };
}

/** A refusal of a check refund's or credit's reservation, as the card refund and credit word theirs. */
export function failReservation(
  reservation: Extract<CheckReservation, { kind: 'refused' }>,
  pk: number,
  amountCents: number,
  what: 'refund' | 'credit',
): never {
  switch (reservation.reason) {
    case 'below_floor':
      return fail('insufficient_funds', `balance + overdraft does not cover the ${what} of ${formatCents(amountCents)}`);
    case 'exceeds_refundable':
      return fail('invalid_amount', `amount exceeds what is refundable of ${ref(pk)}`);
    case 'not_settled':
      return fail('invalid_request', `${ref(pk)} is no longer settled; it cannot be refunded`);
    case 'method_not_found':
      return fail('not_found', `the payment method of this ${what} no longer exists`);
  }
}

/** A same-key refund or credit made elsewhere: its reply, or its current state. */
export function replayCredit(deps: Checks, caller: Caller, idem: KeyedRequest): Promise<Reply> {
  const waitMs = achCallTimeoutMs(deps.network) + IDEMPOTENCY_WAIT_MARGIN_MS;
  return replayKey(deps, caller.sourceId, idem, waitMs, async (reservedAtMs) => {
    const held = await refundHoldingKey(deps.db, { merchantId: caller.merchantId, sourceId: caller.sourceId, idemKey: idem.key, reservedAtMs });
    const row = held === undefined ? undefined : await readCheckTransaction(deps.db, held.pk, caller.merchantId);
    if (row === undefined) fail('internal_server_error', 'the transaction holding this Idempotency-Key could not be read; retry');
    return { statusCode: 200, json: operationReplyJson(row) };
  });
}

/**
 * Void of a check before origination: written first, then the network
 * asked, then finished or undone. With an Idempotency-Key, a retry replays
 * the first void's reply. A void the network did not answer leaves its key
 * in progress, as a card charge whose key could not be marked does: the
 * worker that later finishes or undoes the void does not know the key, so a
 * stored pending reply would go stale; a retry instead waits out the void's
 * request time and then answers the check as it is now.
 */
export async function voidCheck(
  deps: Checks,
  caller: Caller,
  input: { row: TransactionRow; amountCents: number | null; idem?: KeyedRequest | null },
): Promise<Reply> {
  const { row } = input;
  const idem = input.idem ?? null;
  if (await keyTaken(deps, caller, idem)) return replayVoid(deps, caller, idem!, row.pk);
  const refused = (state: AchState): never => fail('invalid_request', `${ref(row.pk)}: ${achVoidProblem(state) ?? 'it cannot be voided now'}`);
  if (achVoidProblem(checkFactsOf(row).state) !== null) refused(checkFactsOf(row).state);
  if (input.amountCents !== null && input.amountCents !== row.amount_cents) {
    fail('invalid_amount', `a void cancels the whole amount ${formatCents(row.amount_cents)}`);
  }
  const key = keyClaimOf(caller, idem);
  if (key !== null && !(await reserveOperationKey(deps.db, key, deps.clock.nowMs()))) return replayVoid(deps, caller, idem!, row.pk);
  try {
    const reply = await voidOnce(deps, caller, row, refused);
    if (key !== null && reply.answered) await completeOperationKey(deps.db, key, reply.json);
    return { statusCode: 200, json: reply.json };
  } catch (error) {
    if (key !== null) await releaseOperationKey(deps.db, key);
    throw error;
  }
}

async function voidOnce(deps: Checks, caller: Caller, row: TransactionRow, refused: (state: AchState) => never): Promise<{ json: string; answered: boolean }> {
  const base = { chargePk: row.pk, merchantId: caller.merchantId, views: EVENT_VIEWS };
  const voidAskedAchMs = await achNowMs(deps, caller.merchantId);
  const begun = await beginAchVoid(deps.db, {
    ...base,
    nowMs: deps.clock.nowMs(),
    nextCheckAtMs: deps.clock.nowMs() + checkRetryAfterMs(deps.network),
    voidAskedAchMs,
  });
  if (begun.kind === 'stale') return refused(begun.state ?? 'failed');
  let outcome: 'voided' | 'too_late';
  try {
    const answer = await withDeadline(deps.network, (signal) =>
      deps.network.voidEntry({
        reference: chargeReference(deps.providerKeys, row.pk),
        networkRef: begun.entry.network_ref ?? '',
        merchantId: caller.merchantId,
        direction: begun.entry.direction,
        accountLast4: row.last4,
        firstAskedAtMs: begun.entry.void_asked_ach_ms ?? voidAskedAchMs,
        signal,
      }),
    );
    outcome = answer.outcome;
  } catch (error) {
    deps.log.warn(
      { check: row.pk, network: deps.network.name, err: errorSummary(error) },
      'ACH network did not answer a void; check left voiding for the worker',
    );
    return { json: operationReplyJson(begun.row), answered: false };
  }
  const nowMs = deps.clock.nowMs();
  if (outcome === 'too_late') {
    await undoAchVoid(deps.db, { ...base, nowMs, nextCheckAtMs: nowMs });
    fail('invalid_request', `${ref(row.pk)} was already originated by the ACH network; it can no longer be voided: refund it once it is settled`);
  }
  const finished = await finishAchVoid(deps.db, { ...base, nowMs, nextCheckAtMs: null });
  const current = finished.kind === 'moved' ? finished.row : await readCheckTransaction(deps.db, row.pk, caller.merchantId);
  if (current === undefined) throw new Error(`check ${row.pk} vanished`);
  return { json: operationReplyJson(current), answered: true };
}

/** A same-key void made elsewhere: its reply, or the check as it is now. */
function replayVoid(deps: Checks, caller: Caller, idem: KeyedRequest, pk: number): Promise<Reply> {
  const waitMs = achCallTimeoutMs(deps.network) + IDEMPOTENCY_WAIT_MARGIN_MS;
  return replayKey(deps, caller.sourceId, idem, waitMs, async () => {
    const row = await readCheckTransaction(deps.db, pk, caller.merchantId);
    if (row === undefined) fail('not_found', `${ref(pk)} not found`);
    return { statusCode: 200, json: operationReplyJson(row) };
  });
}

/** Reversal of a check: a void while it is pending, a refund once settled; an amount on an unsettled check is refused (ACH cannot be adjusted). */
export async function reverseCheck(
  deps: Checks,
  caller: Caller,
  input: { row: TransactionRow; amountCents: number | null; idem: KeyedRequest | null; details?: AdjustDetails | undefined },
): Promise<Reply> {
  const state = checkFactsOf(input.row).state;
  if (state === 'settled') return refundCheck(deps, caller, { parent: input.row, amountCents: input.amountCents, idem: input.idem, details: input.details });
  if (input.amountCents !== null) {
    fail('invalid_request', `${ref(input.row.pk)} is an unsettled check: ACH transactions cannot be adjusted; reverse it without an amount to void it`);
  }
  return voidCheck(deps, caller, { row: input.row, amountCents: null, idem: input.idem });
}
