// The charge operation (spec 4 op 1, behaviour.md s.8). Two write
// transactions with the processor call between them, never inside one:
//
//   1. reserve the Idempotency-Key (if any), consume the nonce (erasing its
//      security code) and insert the charge as `pending`, awaiting an answer;
//   2. call the processor (outside any transaction);
//   3. record the answer: status, the ledger credit of an approval, and the
//      Idempotency-Key's reply, in one transaction.
//
// A crash or timeout between 1 and 3 leaves a pending charge with no
// processor reference. The worker (charge-recovery.ts) asks the processor
// again after CHARGE_RECOVERY_AFTER_MS with the same reference; connectors
// are idempotent on it, so the customer is charged at most once and the
// merchant is credited exactly when the processor approved. Until then the
// charge reads as pending, and a retry with the same Idempotency-Key waits.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { CardCipher } from '../crypto/card-cipher.ts';
import type { Clock } from '../domain/clock.ts';
import { checkExpiry, type CardType } from '../domain/cards.ts';
import { parseDollarNumber, parseDollarString } from '../domain/money.ts';
import { hashNonce, NONCE_PATTERN } from '../domain/nonce.ts';
import { fail } from '../errors.ts';
import { PROCESSOR_CALL_TIMEOUT_MS, type AuthorizationResult, type CardProcessor } from '../providers/card-processor.ts';
import { getCharge, insertPendingCharge, type ChargeRow } from '../store/charges.ts';
import type { Db } from '../store/db.ts';
import { getKey, IN_PROGRESS, reserveKey } from '../store/idempotency.ts';
import { consumeNonce, getNonce, type NonceRow } from '../store/nonces.ts';
import { recordChargeOutcome } from './charge-outcome.ts';
import { renderCharge, type StoredChargeRequest } from './charge-response.ts';

/** Charge amount bounds in cents (behaviour.md s.3 leaves them to us): 0.50 to 100,000.00 USD. */
export const CHARGE_AMOUNT_CENTS_MIN = 50;
export const CHARGE_AMOUNT_CENTS_MAX = 10_000_000;
/** Idempotency keys are kept 24 hours. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;
/** When the worker asks about a charge whose request never recorded an answer: after the request surely gave up. */
export const CHARGE_RECOVERY_AFTER_MS = 2 * PROCESSOR_CALL_TIMEOUT_MS;
/** How long a retry waits for a same-key charge running in another process, and how often it looks. */
const IDEMPOTENCY_WAIT_MS_MAX = PROCESSOR_CALL_TIMEOUT_MS + 5_000;
const IDEMPOTENCY_POLL_MS = 50;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface ChargeDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  readonly cipher: CardCipher;
}

type Text = string | undefined;

export interface ChargeRequest {
  readonly amount: number;
  readonly source: string;
  readonly expiry_month: number;
  readonly expiry_year: number;
  readonly billing_info: {
    readonly first_name: string;
    readonly last_name: string;
    readonly street: string;
    readonly street2?: Text;
    readonly city: string;
    readonly state: string;
    readonly zip: string;
    readonly country: string;
    readonly phone?: Text;
  };
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
}

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
  const running = new Map<string, { requestHash: string; reply: Promise<ChargeReply> }>();

  async function charge(payer: Payer, input: ChargeInput): Promise<ChargeReply> {
    const amountCents = validate(input, deps.clock.nowMs());
    if (input.idempotencyKey === null) return chargeOnce(deps, payer, input.request, amountCents, null);
    const idem = { key: input.idempotencyKey, requestHash: hashRequest(input.request) };
    const slot = `${payer.sourceId}\n${idem.key}`;
    const current = running.get(slot);
    if (current !== undefined) {
      if (current.requestHash !== idem.requestHash) fail('idempotency_key_reused');
      return current.reply;
    }
    const reply = chargeOnce(deps, payer, input.request, amountCents, idem).finally(() => running.delete(slot));
    running.set(slot, { requestHash: idem.requestHash, reply });
    return reply;
  }

  async function read(merchantId: string, id: string): Promise<ChargeReply> {
    const pk = /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : null;
    const row = pk === null ? undefined : await deps.db.read((tx) => getCharge(tx, pk, merchantId));
    if (row === undefined) fail('not_found', `transaction ${id.slice(0, 40)} not found`);
    return { statusCode: 200, json: JSON.stringify(renderCharge(row)) };
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
  const expiryProblem = checkExpiry(input.request.expiry_month, input.request.expiry_year, nowMs);
  if (expiryProblem !== null) fail('invalid_card', expiryProblem);
  if (input.idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(input.idempotencyKey)) {
    fail('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  if (!NONCE_PATTERN.test(input.request.source)) fail('invalid_nonce', 'source is not a nonce from tokenization');
  return parsed.cents;
}

function hashRequest(request: ChargeRequest): string {
  return crypto.createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

function storedRequest(request: ChargeRequest): StoredChargeRequest {
  const billing = request.billing_info;
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

type Reservation = { kind: 'taken' } | { kind: 'reserved'; charge: ChargeRow; nonce: NonceRow };

async function chargeOnce(
  deps: ChargeDeps,
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  idem: { key: string; requestHash: string } | null,
): Promise<ChargeReply> {
  const reservation = await reserveCharge(deps, payer, request, amountCents, idem);
  if (reservation.kind === 'taken') return awaitStoredReply(deps, payer.sourceId, idem!);
  const { charge, nonce } = reservation;

  let result: AuthorizationResult;
  try {
    result = await deps.processor.authorize({
      reference: String(charge.pk),
      amountCents,
      currency: 'USD',
      card: {
        number: deps.cipher.open(nonce.card_number_enc, 'card_number', payer.sourceId),
        cvv: nonce.cvv_enc === null ? null : deps.cipher.open(nonce.cvv_enc, 'cvv', payer.sourceId),
        expiryMonth: request.expiry_month,
        expiryYear: request.expiry_year,
        cardType: charge.card_type as CardType,
      },
      billing: { street: request.billing_info.street, zip: request.billing_info.zip, country: request.billing_info.country },
      signal: AbortSignal.timeout(PROCESSOR_CALL_TIMEOUT_MS),
    });
  } catch (error) {
    // The outcome is unknown: the charge stays pending and the worker asks again.
    deps.log.warn({ charge: charge.pk, processor: deps.processor.name, err: errorSummary(error) }, 'card processor did not answer; charge left pending for recovery');
    return { statusCode: 200, json: JSON.stringify(renderCharge(charge)) };
  }

  const json = await deps.db.write(async (tx) => {
    const recorded = await recordChargeOutcome(tx, charge, 'answer', result, deps.clock.nowMs());
    if (recorded !== null) return recorded.replyJson;
    // The worker recorded this charge's answer first; reply with what it recorded.
    const current = await getCharge(tx, charge.pk, payer.merchantId);
    if (current === undefined) throw new Error(`charge ${charge.pk} vanished`);
    return JSON.stringify(renderCharge(current));
  });
  return { statusCode: 200, json };
}

/** Step 1: one write transaction. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveCharge(
  deps: Pick<ChargeDeps, 'db' | 'clock'>,
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  idem: { key: string; requestHash: string } | null,
): Promise<Reservation> {
  const nonceHash = hashNonce(request.source);
  const requestJson = JSON.stringify(storedRequest(request));
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
    const nonce = await getNonce(tx, nonceHash);
    // Another source's nonce reads exactly like an unknown one.
    if (nonce === undefined || nonce.source_id !== payer.sourceId) fail('invalid_nonce', 'source is not a valid nonce of this payin source');
    if (nonce.used_at_ms !== null) fail('invalid_nonce', 'source nonce has already been used; tokenize the card again');
    if (nonce.expires_at_ms <= nowMs) fail('invalid_nonce', 'source nonce has expired; tokenize the card again');
    // Checked before the nonce is consumed, so a corrected request can still use it.
    if (nonce.expiry_month !== request.expiry_month || nonce.expiry_year !== request.expiry_year) {
      fail('invalid_card', 'expiry_month/expiry_year do not match the expiry the card was tokenized with');
    }
    if (!(await consumeNonce(tx, nonceHash, payer.sourceId, nowMs))) {
      fail('invalid_nonce', 'source nonce has already been used; tokenize the card again');
    }
    const pk = await insertPendingCharge(tx, {
      merchant_id: payer.merchantId,
      source_id: payer.sourceId,
      amount_cents: amountCents,
      card_type: nonce.card_type,
      last4: nonce.last4,
      bin: nonce.bin,
      expiry_month: request.expiry_month,
      expiry_year: request.expiry_year,
      card_number_enc: nonce.card_number_enc,
      request_json: requestJson,
      idem_key: idem?.key ?? null,
      recover_at_ms: nowMs + CHARGE_RECOVERY_AFTER_MS,
      created_at_ms: nowMs,
    });
    const charge: ChargeRow = {
      pk,
      merchant_id: payer.merchantId,
      source_id: payer.sourceId,
      status: 'pending',
      amount_cents: amountCents,
      currency: 'USD',
      card_type: nonce.card_type,
      last4: nonce.last4,
      bin: nonce.bin,
      expiry_month: request.expiry_month,
      expiry_year: request.expiry_year,
      auth_code: null,
      avs_result_code: null,
      cvv_result_code: null,
      error_code: null,
      error_message: null,
      processor_ref: null,
      request_json: requestJson,
      idem_key: idem?.key ?? null,
      created_at_ms: nowMs,
    };
    return { kind: 'reserved', charge, nonce };
  });
}

/** A same-key charge is (or was) made elsewhere: replay its reply, refuse another body, or wait a bounded time. */
async function awaitStoredReply(deps: ChargeDeps, sourceId: string, idem: { key: string; requestHash: string }): Promise<ChargeReply> {
  const deadlineMs = Date.now() + IDEMPOTENCY_WAIT_MS_MAX;
  for (;;) {
    const row = await deps.db.read((tx) => getKey(tx, sourceId, idem.key));
    if (row === undefined) fail('internal_server_error', 'the charge holding this Idempotency-Key could not be read; retry');
    if (row.request_hash !== idem.requestHash) fail('idempotency_key_reused');
    if (row.status_code !== IN_PROGRESS) return { statusCode: row.status_code, json: row.response_json };
    if (Date.now() >= deadlineMs) fail('internal_server_error', 'a charge with this Idempotency-Key is still being processed; retry shortly');
    await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
  }
}

/** What is logged of a connector's error: its name and message, never its properties (which might hold request data). */
export function errorSummary(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message.slice(0, 300) };
  return { name: typeof error, message: 'non-Error thrown' };
}
