// The charge operation (docs/interface-spec.md section 4 op 1, docs/api-decisions.md section 8). Two write
// transactions with the processor call between them, never inside one:
//
//   1. reserve the Idempotency-Key (if any), take the card of the source
//      (consume a nonce, erasing its security code; or read a saved card,
//      `pm-`, or an earlier charge's, `ref-`: card-source.ts, docs/api-decisions.md
//      section 15) and insert the charge as `pending`, awaiting an answer;
//   2. call the processor (outside any transaction);
//   3. record the answer: status, the ledger credit of an approval, and the
//      Idempotency-Key's reply, in one transaction.
//
// A crash or timeout between 1 and 3 leaves a pending charge with no
// processor reference. Step 2 is bounded by the processor's deadline
// (CARD_PROCESSOR_TIMEOUT_MS) even when a connector hangs; a call that
// times out or fails is an unknown outcome, never a guessed one: the request
// answers the charge as pending and marks its Idempotency-Key so. The worker
// (charge-recovery.ts) asks the processor again after CHARGE_RECOVERY_AFTER_MS
// with the same reference; connectors are idempotent on it, so the customer
// is charged at most once and the merchant is credited exactly when the
// processor approved. Until then the charge reads as pending, and a retry
// with the same Idempotency-Key answers that at once; it waits (bounded) only
// while the first request may still be waiting for the processor.
import { parseReferenceNumber } from '../../domain/references.ts';
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import type { Clock } from '../../domain/clock.ts';
import { checkExpiry, type CardType } from '../../domain/cards.ts';
import { parseDollarNumber, parseDollarString } from '../../domain/money.ts';
import { parsePaymentSource, type PaymentSource } from '../../domain/payment-source.ts';
import { fail } from '../../errors.ts';
import {
  authorizeWithDeadline,
  CARD_PROCESSOR_TIMEOUT_MS,
  processorTimeoutMs,
  type AuthorizationResult,
  type CardProcessor,
} from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import { getCharge, getChargeHoldingKey, insertPendingCharge, type NewCharge, pendingChargeRow, type ChargeRow } from '../../store/charges.ts';
import { markKeyOutcomeUnknown, reserveKey } from '../../store/idempotency.ts';
import type { Txn } from '../../store/db.ts';
import { takeCardSource, type ChargeCard } from './card-source.ts';
import { getTransaction } from '../../store/transactions.ts';
import { fundedTransfers } from '../../store/transfers.ts';
import { recordChargeOutcome } from './charge-outcome.ts';
import {
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_WAIT_MARGIN_MS,
  type KeyedRequest,
  keyedRequest,
  replayKey,
  RunningRequests,
} from '../common/idempotency-replay.ts';
import { renderCharge, type StoredChargeRequest } from './charge-answers.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';

/** Charge amount bounds in cents (docs/api-decisions.md section 3 leaves them to us): 0.50 to 100,000.00 USD. */
export const CHARGE_AMOUNT_CENTS_MIN = 50;
export const CHARGE_AMOUNT_CENTS_MAX = 10_000_000;
/** Idempotency keys are kept 24 hours. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;
/** When the worker asks about a charge whose request never recorded an answer: after the request surely gave up. */
export const CHARGE_RECOVERY_AFTER_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;

export interface ChargeDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  readonly cipher: CardCipher;
}

type Text = string | undefined;

export interface ChargeRequest {
  readonly amount: number;
  readonly source: string;
  /** false authorizes only (docs/api-decisions.md section 10); absent or true captures at once. */
  readonly capture?: boolean | undefined;
  /** Required with a nonce; with a `pm-` or `ref-` source taken from the stored card when absent (docs/api-decisions.md section 15). */
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
  readonly billing_info?:
    | {
        readonly first_name: string;
        readonly last_name: string;
        readonly street: string;
        readonly street2?: Text;
        readonly city: string;
        readonly state: string;
        readonly zip: string;
        readonly country: string;
        readonly phone?: Text;
      }
    | undefined;
  readonly transaction_details?:
    | {
        readonly description?: Text;
        readonly clerk?: Text;
        readonly terminal?: Text;
        readonly client_ip?: Text;
        readonly signature?: Text;
        readonly invoice_number?: Text;
        readonly po_number?: Text;
        readonly order_number?: Text;
      }
    | undefined;
}

export interface ChargeInput {
  readonly request: ChargeRequest;
  /** The amount exactly as written in the JSON body, when the caller has it (exponents and extra decimals are refused). */
  readonly amountText: string | null;
  readonly idempotencyKey: string | null;
}

/** A reply ready to send: HTTP status and the JSON text (stored as is for idempotent replays). */
export interface ChargeReply {
  readonly statusCode: number;
  readonly json: string;
  /** The stored reply of an earlier request with the same Idempotency-Key (answered with `Idempotent-Replayed: true`). */
  readonly replayed?: boolean;
}

const asReplay = (reply: ChargeReply): ChargeReply => ({ ...reply, replayed: true });

export interface Payer {
  readonly merchantId: string;
  readonly sourceId: string;
}

export interface ChargeFlow {
  charge(payer: Payer, input: ChargeInput): Promise<ChargeReply>;
  read(merchantId: string, id: string): Promise<ChargeReply>;
}

export function createChargeFlow(deps: ChargeDeps): ChargeFlow {
  // Same-key requests running in this process share one charge; across
  // processes the database reservation decides and the loser waits.
  const running = new RunningRequests<ChargeReply>();

  async function charge(payer: Payer, input: ChargeInput): Promise<ChargeReply> {
    const amountCents = validate(input, deps.clock.nowMs());
    if (input.idempotencyKey === null) return chargeOnce(deps, payer, input.request, amountCents, null);
    const idem = chargeKeyedRequest(input.idempotencyKey, input.request);
    return running.run(`${payer.sourceId}\n${idem.key}`, idem.requestHash, () => chargeOnce(deps, payer, input.request, amountCents, idem));
  }

  async function read(merchantId: string, id: string): Promise<ChargeReply> {
    const pk = parseReferenceNumber(id);
    const found =
      pk === null
        ? undefined
        : await deps.db.read(async (tx) => {
            // Any transaction: a charge, a refund or a verification (docs/api-decisions.md section 10).
            const row = await getTransaction(tx, pk, merchantId);
            return row === undefined ? undefined : { row, funded: await fundedTransfers(tx, pk, FUNDED_TRANSFERS_SHOWN_MAX) };
          });
    if (found === undefined) fail('not_found', `transaction ${id.slice(0, 40)} not found`);
    return { statusCode: 200, json: JSON.stringify(renderCharge(found.row, found.funded)) };
  }

  return { charge, read };
}

/** Checks what the schema cannot: the amount's exact form and bounds, the expiry date, the key's form. */
function validate(input: ChargeInput, nowMs: number): number {
  if (!(input.request.amount > 0)) fail('invalid_amount', 'amount must be greater than zero');
  const parsed = input.amountText !== null ? parseDollarString(input.amountText) : parseDollarNumber(input.request.amount);
  if (!parsed.ok) fail('invalid_amount', `amount ${parsed.reason}`);
  if (parsed.cents < CHARGE_AMOUNT_CENTS_MIN) fail('invalid_amount', 'amount must be at least 0.50');
  if (parsed.cents > CHARGE_AMOUNT_CENTS_MAX) fail('invalid_amount', 'amount must be at most 100000.00');
  const request = input.request;
  const source = parsePaymentSource(request.source);
  if (source === null) {
    if (/^(pm|ref)-/.test(request.source)) fail('not_found', `source ${request.source.slice(0, 40)} names no payment method or reference`);
    fail('invalid_nonce', 'source is not a nonce from tokenization');
  }
  if (source.kind === 'nonce') {
    // Only a stored card knows its own expiry and billing (docs/api-decisions.md section 15).
    for (const field of ['expiry_month', 'expiry_year', 'billing_info'] as const) {
      if (request[field] === undefined) fail('invalid_request', `${field} is required`);
    }
  }
  if ((request.expiry_month === undefined) !== (request.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  if (request.expiry_month !== undefined && request.expiry_year !== undefined) {
    const expiryProblem = checkExpiry(request.expiry_month, request.expiry_year, nowMs);
    if (expiryProblem !== null) fail('invalid_card', expiryProblem);
  }
  if (input.idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(input.idempotencyKey)) {
    fail('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  return parsed.cents;
}

/** The source of a request validate() accepted. */
function sourceOf(request: ChargeRequest): PaymentSource {
  const source = parsePaymentSource(request.source);
  if (source === null) throw new Error('charge source was not validated');
  return source;
}

/** What an Idempotency-Key remembers of a charge (exported for tests that reserve a charge themselves). */
export function chargeKeyedRequest(key: string, request: ChargeRequest): KeyedRequest {
  return keyedRequest(key, 'charge', request, 'body-only');
}

/** What a charge keeps of its request; verify (verify.ts) keeps the same. */
export function storedRequest(request: Omit<ChargeRequest, 'amount'>, billingOfCard?: StoredChargeRequest['billing_info']): StoredChargeRequest {
  const billing = request.billing_info ?? billingOfCard;
  if (billing === undefined) throw new Error('a charge request without billing_info and no stored card to take it from');
  const details = request.transaction_details ?? {};
  return {
    billing_info: {
      first_name: billing.first_name,
      last_name: billing.last_name,
      street: billing.street,
      street2: billing.street2 ?? '',
      city: billing.city,
      state: billing.state,
      zip: billing.zip,
      country: billing.country,
      phone: billing.phone ?? '',
    },
    transaction_details: {
      description: details.description ?? null,
      clerk: details.clerk ?? null,
      terminal: details.terminal ?? null,
      client_ip: details.client_ip ?? null,
      invoice_number: details.invoice_number ?? null,
      po_number: details.po_number ?? null,
      order_number: details.order_number ?? null,
    },
  };
}

type Reservation = { kind: 'taken' } | { kind: 'reserved'; charge: ChargeRow; card: ChargeCard };

async function chargeOnce(deps: ChargeDeps, payer: Payer, request: ChargeRequest, amountCents: number, idem: KeyedRequest | null): Promise<ChargeReply> {
  const reservation = await reserveCharge(deps, payer, request, amountCents, idem);
  if (reservation.kind === 'taken') return asReplay(await replayStoredReply(deps, payer, idem!));
  const { charge, card } = reservation;

  let result: AuthorizationResult;
  try {
    result = await authorizeWithDeadline(deps.processor, {
      reference: String(charge.pk),
      amountCents,
      currency: 'USD',
      card: {
        number: card.number,
        cvv: card.cvv,
        expiryMonth: card.expiryMonth,
        expiryYear: card.expiryYear,
        cardType: charge.card_type as CardType,
      },
      billing: { street: card.billing.street, zip: card.billing.zip, country: card.billing.country },
    });
  } catch (error) {
    // The outcome is unknown (no answer by the deadline, or the connector
    // failed): the charge stays pending and the worker asks again.
    deps.log.warn(
      { charge: charge.pk, processor: deps.processor.name, err: errorSummary(error) },
      'card processor did not answer; charge left pending for recovery',
    );
    const pendingJson = JSON.stringify(renderCharge(charge));
    if (idem !== null) await markOutcomeUnknown(deps, payer, idem.key, charge.pk, pendingJson);
    return { statusCode: 200, json: pendingJson };
  }

  const recorded = await recordChargeOutcome(deps, charge, 'answer', result);
  if (recorded !== null) return { statusCode: 200, json: recorded.replyJson };
  // The worker recorded this charge's answer first; reply with what it recorded.
  const current = await deps.db.read((tx) => getCharge(tx, charge.pk, payer.merchantId));
  if (current === undefined) throw new Error(`charge ${charge.pk} vanished`);
  return { statusCode: 200, json: JSON.stringify(renderCharge(current)) };
}

/**
 * Lets same-key retries answer the pending reply at once instead of waiting
 * for a request that has given up. Best effort: the reply is already known,
 * and should this write fail, a retry finds the key in progress and answers
 * the charge's current state once the request's time is up.
 */
async function markOutcomeUnknown(deps: ChargeDeps, payer: Payer, idemKey: string, pk: number, pendingJson: string): Promise<void> {
  try {
    await deps.db.write((tx) => markKeyOutcomeUnknown(tx, payer.sourceId, idemKey, pendingJson));
  } catch (error) {
    deps.log.error(
      { charge: pk, err: errorSummary(error) },
      'could not mark the Idempotency-Key of an unanswered charge; retries will wait for its request time',
    );
  }
}

/** Step 1: one write transaction. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveCharge(
  deps: Pick<ChargeDeps, 'db' | 'clock' | 'cipher'>,
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  idem: KeyedRequest | null,
): Promise<Reservation> {
  return deps.db.write(async (tx): Promise<Reservation> => {
    const nowMs = deps.clock.nowMs();
    if (idem !== null) {
      const reserved = await reserveKey(tx, {
        sourceId: payer.sourceId,
        idemKey: idem.key,
        requestHash: idem.requestHash,
        nowMs,
        staleAtOrBeforeMs: nowMs - IDEMPOTENCY_KEY_TTL_MS,
      });
      if (!reserved) return { kind: 'taken' };
    }
    return { kind: 'reserved', ...(await reserveChargeIn(tx, deps, payer, request, amountCents, { idemKey: idem?.key ?? null, schedulePk: null, nowMs })) };
  });
}

/**
 * Takes the card of the request's source and inserts the charge as pending,
 * inside the caller's transaction (a schedule's run reserves its charge in
 * the transaction that records the run: flows/schedule-runs.ts).
 */
export async function reserveChargeIn(
  tx: Txn,
  deps: Pick<ChargeDeps, 'cipher'>,
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  options: { idemKey: string | null; schedulePk: number | null; nowMs: number },
): Promise<{ charge: ChargeRow; card: ChargeCard }> {
  const { nowMs, idemKey } = options;
  const card = await takeCardSource(
    tx,
    deps.cipher,
    payer,
    { source: sourceOf(request), sourceText: request.source, expiryMonth: request.expiry_month, expiryYear: request.expiry_year, billing: billingOf(request) },
    nowMs,
  );
  // The charge's own copy of the card number, for recovery should this
  // request die before the processor answers: sealed under the card-data key
  // and erased once the charge is final.
  const sealedNumber = deps.cipher.seal(card.number, 'card_number', payer.sourceId);
  const pending: NewCharge = {
    merchant_id: payer.merchantId,
    source_id: payer.sourceId,
    amount_cents: amountCents,
    card_type: card.cardType,
    last4: card.last4,
    bin: card.bin,
    expiry_month: card.expiryMonth,
    expiry_year: card.expiryYear,
    card_number_enc: sealedNumber,
    request_json: JSON.stringify(storedRequest(request, card.billing)),
    idem_key: idemKey,
    recover_at_ms: nowMs + CHARGE_RECOVERY_AFTER_MS,
    created_at_ms: nowMs,
    auto_capture: request.capture === false ? 0 : 1,
    customer_pk: card.customerPk,
    payment_method_pk: card.methodPk,
    schedule_pk: options.schedulePk,
    // A nonce's card is kept (sealed) for later `ref-` charges while the
    // charge stays approved; a saved card is reached through its method,
    // so deleting the method leaves no copy behind (docs/api-decisions.md section 15).
    // The same sealed bytes as the recovery copy: one seal, and each column is
    // erased on its own schedule (an identical value tells nothing more).
    ref_card_enc: card.keepForReference ? sealedNumber : null,
  };
  const charge = pendingChargeRow(await insertPendingCharge(tx, pending), pending);
  return { charge, card };
}

/** The billing address as stored (optional fields as ""), when the request has one. */
function billingOf(request: ChargeRequest): StoredChargeRequest['billing_info'] | undefined {
  return request.billing_info === undefined ? undefined : storedRequest(request).billing_info;
}

/**
 * A same-key charge is (or was) made elsewhere: refuse another body; replay
 * its reply; answer at once while its outcome is unknown (its request gave up
 * on the processor, or died); wait only while its request may still be
 * waiting for the processor.
 */
async function replayStoredReply(deps: ChargeDeps, payer: Payer, idem: KeyedRequest): Promise<ChargeReply> {
  const waitMs = processorTimeoutMs(deps.processor) + IDEMPOTENCY_WAIT_MARGIN_MS;
  return replayKey(deps, payer.sourceId, idem, waitMs, (reservedAtMs) => currentReply(deps, payer, idem.key, reservedAtMs));
}

/** The current state of the charge holding a key whose request died before recording anything: pending. */
async function currentReply(deps: ChargeDeps, payer: Payer, idemKey: string, reservedAtMs: number): Promise<ChargeReply> {
  const charge = await deps.db.read((tx) => getChargeHoldingKey(tx, { merchantId: payer.merchantId, sourceId: payer.sourceId, idemKey, reservedAtMs }));
  if (charge === undefined) fail('internal_server_error', 'the charge holding this Idempotency-Key could not be read; retry');
  return { statusCode: 200, json: JSON.stringify(renderCharge(charge)) };
}

import { errorSummary } from '../common/error-summary.ts';
export { errorSummary };
