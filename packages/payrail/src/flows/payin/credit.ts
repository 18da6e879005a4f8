// Unmatched credit (accept.blue's /transactions/credit;
// docs/acceptblue-compatibility.md): money to the card of a source (a
// nonce, a saved card `pm-`, an earlier transaction's card `ref-`, and
// `tkn-` wherever the charge's source resolution takes it), debited from the
// merchant like a refund and refused like one when balance + overdraft does
// not cover it. As for a refund, two write transactions with the processor
// call between them:
//
//   1. reserve the Idempotency-Key, take the card as a charge takes it,
//      insert the credit as pending and hold its amount
//      (store/payin/credit.ts, which decides and answers);
//   2. ask the processor (outside any transaction, bounded by its deadline);
//   3. record the answer: approved, or declined/failed with the amount given
//      back to the merchant. A call without an answer leaves the credit
//      pending for the worker (resolvePendingCredit), which asks again with
//      the same reference.
import { CHARGE_DECLINES } from '../../domain/card-results.ts';
import type { CardType } from '../../domain/cards.ts';
import { formatCents, parseDollarNumber, parseDollarString } from '../../domain/money.ts';
import { parsePaymentSource } from '../../domain/payment-source.ts';
import { hashNonce } from '../../domain/nonce.ts';
import type { Secret } from '../../domain/secret.ts';
import { ApiError, fail } from '../../errors.ts';
import { creditWithDeadline, type OperationResult } from '../../providers/card-processor.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { type CreditAnswer, recordCreditAnswer, sealedCreditNumber, startCredit } from '../../store/payin/credit.ts';
import { chargeOfMerchant } from '../../store/payin/operation-common.ts';
import { refundHoldingKey } from '../../store/payin/refund.ts';
import { type KeyedRequest, keyedRequest, type Reply, replayKey } from '../common/idempotency-replay.ts';
import { chargeReference } from '../common/provider-references.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { failCardSource } from './card-source.ts';
import { renderCharge } from './charge-answers.ts';
import { CHARGE_AMOUNT_CENTS_MAX, CHARGE_AMOUNT_CENTS_MIN, IDEMPOTENCY_KEY_TTL_MS } from './charge.ts';
import { applyAdjustDetails, type AdjustDetails } from './adjust.ts';
import {
  answerUnknownOutcome,
  type Caller,
  checkIdempotencyKey,
  type CreditDeps,
  OPERATION_RECOVERY_AFTER_MS,
  type OperationDeps,
} from './operation-common.ts';
import { processorTimeoutMs } from '../../providers/card-processor.ts';
import { IDEMPOTENCY_WAIT_MARGIN_MS } from '../common/idempotency-replay.ts';
import { checkCardOrSource, keyedBodyOf, withCardAsNonce } from './raw-card.ts';
import { type CheckFieldsRequest, keyedCheckBodyOf, sendsBankAccount } from '../ach/check-account.ts';
import { type CheckDeps, checkAccountOfRequest, requireChecks } from '../ach/check-charge.ts';
import { creditCheck } from '../ach/check-credit.ts';

/** A credit's body as received (accept.blue's SourceCredit and CreditCardCredit). */
export interface CreditBody extends CheckFieldsRequest {
  readonly amount: number;
  readonly source?: string | undefined;
  readonly card?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
  readonly name?: string | undefined;
  readonly avs_address?: string | undefined;
  readonly avs_zip?: string | undefined;
  readonly customer?: Readonly<Record<string, unknown>> | undefined;
  readonly transaction_details?: Readonly<Record<string, unknown>> | undefined;
  readonly custom_fields?: Readonly<Record<string, unknown>> | undefined;
}

export interface CreditInput {
  readonly body: CreditBody;
  /** The amount exactly as written in the JSON body, when the caller has it. */
  readonly amountText: string | null;
  readonly idempotencyKey: string | null;
}

/** A credit keeps what a charge keeps of its request: the billing of its card and its details, under accept.blue's names. */
const NO_BILLING = { first_name: '', last_name: '', street: '', street2: '', city: '', state: '', zip: '', country: '', phone: '' };

const render = (row: ChargeRow): string => JSON.stringify(renderCharge(row));

/** The amount in cents, checked as a charge's is (exact form, the same bounds). */
function creditCents(input: CreditInput): number {
  if (!(input.body.amount > 0)) fail('invalid_amount', 'amount must be greater than zero');
  const parsed = input.amountText !== null ? parseDollarString(input.amountText) : parseDollarNumber(input.body.amount);
  if (!parsed.ok) fail('invalid_amount', `amount ${parsed.reason}`);
  if (parsed.cents < CHARGE_AMOUNT_CENTS_MIN) fail('invalid_amount', 'amount must be at least 0.50');
  if (parsed.cents > CHARGE_AMOUNT_CENTS_MAX) fail('invalid_amount', 'amount must be at most 100000.00');
  return parsed.cents;
}

/** The source of the credit's card, as a charge reads it. */
function sourceOfCredit(body: CreditBody) {
  // A card sent as such was turned into a nonce before (credit()).
  if (body.source === undefined) throw new ApiError('invalid_request', 'source is required', undefined, 'source');
  const source = parsePaymentSource(body.source);
  if (source === null) {
    if (/^(pm|ref|tkn)-/.test(body.source)) fail('not_found', `source ${body.source.slice(0, 40)} names no payment method or reference`);
    fail('invalid_nonce', 'source is not a nonce from tokenization');
  }
  const expiry = expiryOf(body);
  if ((expiry.month === undefined) !== (expiry.year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  if (source.kind === 'nonce' && expiry.month === undefined) fail('invalid_request', 'expiry_month and expiry_year are required with a nonce');
  return source;
}

/** The expiry sent; 0 reads as absent (futureecom's Omnipay driver sends 0 with a saved card when it has no expiry). */
function expiryOf(body: CreditBody): { month: number | undefined; year: number | undefined } {
  return { month: body.expiry_month === 0 ? undefined : body.expiry_month, year: body.expiry_year === 0 ? undefined : body.expiry_year };
}

/** What the credit keeps of its request: its card's billing with what was sent, and its details. */
function storedCreditRequest(body: CreditBody, billing: typeof NO_BILLING): string {
  const [firstName, ...rest] = (body.name ?? '').split(' ');
  const sent = {
    ...billing,
    ...(body.name === undefined ? {} : { first_name: firstName ?? '', last_name: rest.join(' ') }),
    ...(body.avs_address === undefined ? {} : { street: body.avs_address }),
    ...(body.avs_zip === undefined ? {} : { zip: body.avs_zip }),
  };
  const details: AdjustDetails = {
    ...(body.customer === undefined ? {} : { customer: body.customer }),
    ...(body.custom_fields === undefined ? {} : { custom_fields: body.custom_fields }),
  };
  const stored = {
    billing_info: sent,
    transaction_details: {
      description: null,
      clerk: null,
      terminal: null,
      client_ip: null,
      invoice_number: null,
      po_number: null,
      order_number: null,
      ...body.transaction_details,
    },
  };
  return applyAdjustDetails(JSON.stringify(stored), details);
}

async function askAndRecord(deps: OperationDeps, credit: ChargeRow, number: Secret<string>, caller: Caller | null): Promise<Reply | null> {
  let result: OperationResult;
  try {
    result = await creditWithDeadline(deps.processor, {
      reference: chargeReference(deps.providerKeys, credit.pk),
      amountCents: credit.amount_cents,
      currency: 'USD',
      card: { number, expiryMonth: credit.expiry_month, expiryYear: credit.expiry_year, cardType: credit.card_type as CardType },
    });
  } catch (error) {
    if (caller === null) {
      deps.log.warn({ transaction: credit.pk, operation: 'credit', processor: deps.processor.name }, 'card processor did not answer; will ask again');
      return null;
    }
    const what = { pk: credit.pk, operation: 'credit', sourceId: caller.sourceId, idemKey: credit.idem_key, pendingJson: render(credit) };
    return answerUnknownOutcome(deps, what, error);
  }
  if (result.processorRef === '') throw new Error('card processor answered a credit without a processor reference');
  let answer: CreditAnswer;
  if (result.outcome === 'approved') {
    answer = { approved: true, authCode: result.authCode, processorRef: result.processorRef };
  } else {
    const code = result.decline ?? (result.outcome === 'failed' ? 'processor_error' : 'card_declined');
    answer = { approved: false, status: result.outcome, errorCode: code, errorMessage: CHARGE_DECLINES[code], processorRef: result.processorRef };
  }
  const json = await recordCreditAnswer(deps.db, { credit, answer, views: { events: EVENT_VIEWS, render, clock: deps.clock } });
  if (json !== null) return { statusCode: 200, json };
  // The worker recorded the answer first.
  const current = await chargeOfMerchant(deps.db, { pk: credit.pk, merchantId: credit.merchant_id });
  return { statusCode: 200, json: render(current!) };
}

/** Step 1: one write transaction reserving the credit, or the refusal as the API words it. */
async function reserveCredit(deps: CreditDeps, caller: Caller, body: CreditBody, amountCents: number, idem: KeyedRequest | null) {
  const source = sourceOfCredit(body);
  const cipher = deps.cipher();
  const expiry = expiryOf(body);
  const step = await startCredit(deps.db, {
    caller,
    key: idem,
    source: {
      source,
      nonceHash: source.kind === 'nonce' ? hashNonce(source.nonce) : null,
      expiryMonth: expiry.month,
      expiryYear: expiry.year,
      billing: source.kind === 'nonce' ? NO_BILLING : undefined,
    },
    keys: cipher,
    creditOf: (card, nowMs) => ({
      amountCents,
      // The credit's own copy of the card number, for recovery; erased once the credit is final.
      sealedNumber: cipher.seal(card.number, 'card_number', caller.sourceId),
      requestJson: storedCreditRequest(body, card.billing),
      recoverAtMs: nowMs + OPERATION_RECOVERY_AFTER_MS,
    }),
    clock: deps.clock,
    keyTtlMs: IDEMPOTENCY_KEY_TTL_MS,
  });
  if (step.kind === 'below_floor') return fail('insufficient_funds', `balance + overdraft does not cover the credit of ${formatCents(step.amountCents)}`);
  if (step.kind === 'refused') return failCardSource(step);
  return step;
}

async function creditOnce(deps: CreditDeps, caller: Caller, body: CreditBody, amountCents: number, idem: KeyedRequest | null): Promise<Reply> {
  const step = await reserveCredit(deps, caller, body, amountCents, idem);
  if (step.kind === 'taken') {
    const waitMs = processorTimeoutMs(deps.processor) + IDEMPOTENCY_WAIT_MARGIN_MS;
    return replayKey(deps, caller.sourceId, idem!, waitMs, async (reservedAtMs) => {
      const credit = await refundHoldingKey(deps.db, { merchantId: caller.merchantId, sourceId: caller.sourceId, idemKey: idem!.key, reservedAtMs });
      if (credit === undefined) fail('internal_server_error', 'the credit holding this Idempotency-Key could not be read; retry');
      return { statusCode: 200, json: render(credit) };
    });
  }
  return (await askAndRecord(deps, step.credit, step.card.number, caller))!;
}

/** Step 1 alone: one write transaction reserving the credit. Exported for the crash-recovery tests, which stop right after it. */
export async function reserveCreditOnly(deps: CreditDeps, caller: Caller, body: CreditBody, amountCents: number): Promise<ChargeRow> {
  const step = await reserveCredit(deps, caller, body, amountCents, null);
  if (step.kind !== 'reserved') throw new Error(`credit was not reserved (${step.kind})`);
  return step.credit;
}

/** One credit request; `checks`: what a check credit needs (behaviour section 17), absent: check credits are refused as unavailable. */
export async function credit(deps: CreditDeps, caller: Caller, input: CreditInput, checks?: CheckDeps): Promise<Reply> {
  checkIdempotencyKey(input.idempotencyKey);
  const amountCents = creditCents(input);
  if (sendsBankAccount(input.body) && (input.body.card !== undefined || input.body.source !== undefined)) {
    fail('invalid_request', 'send exactly one of card, source or a bank account (routing_number, account_number, name), not several');
  }
  // A bank account, or a saved check method: a check credit (flows/ach/check-credit.ts).
  const account = await checkAccountOfRequest(checks, deps.db, caller.merchantId, input.body);
  if (account !== null) {
    const ach = requireChecks(checks);
    const keyed = keyedCheckBodyOf(ach.cipher, caller.merchantId, input.body);
    const idem =
      input.idempotencyKey === null ? null : keyedRequest(input.idempotencyKey, 'credit', { ...keyed, amount: input.amountText ?? input.body.amount });
    const customerId = input.body.customer?.customer_id;
    return creditCheck(ach, caller, {
      account,
      amountCents,
      requestJson: storedCreditRequest(input.body, NO_BILLING),
      customerPk: typeof customerId === 'number' ? customerId : null,
      idem,
    });
  }
  // A key never remembers card data, not even hashed (a plain hash of a card number can be brute-forced).
  checkCardOrSource(input.body);
  const cipher = deps.cipher();
  // A card sent as such is credited as a nonce of it (raw-card.ts), as a charge takes one; the key
  // remembers keyed fingerprints of card data, never the digits (a plain hash could be brute-forced).
  const body = await withCardAsNonce({ db: deps.db, clock: deps.clock, cipher }, caller, input.body);
  const keyedBody = keyedBodyOf(cipher, caller.merchantId, input.body as CreditBody & { cvv2?: string });
  const idem =
    input.idempotencyKey === null ? null : keyedRequest(input.idempotencyKey, 'credit', { ...keyedBody, amount: input.amountText ?? input.body.amount });
  return creditOnce(deps, caller, body, amountCents, idem);
}

/** The worker's side: a credit whose request never recorded the processor's answer (`credit` as claimed). */
export async function resolvePendingCredit(deps: CreditDeps, credit: ChargeRow): Promise<boolean> {
  const sealed = await sealedCreditNumber(deps.db, credit.pk);
  if (sealed === undefined) return false;
  const number = deps.cipher().open(sealed, 'card_number', credit.source_id);
  return (await askAndRecord(deps, credit, number, null)) !== null;
}
