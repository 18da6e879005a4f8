// What capture, void, refund and reversal share (docs/api-decisions.md
// sections 10 and 14): their dependencies, the amount rule, the request hash
// an Idempotency-Key remembers, the refusal that names why a transaction
// cannot be acted on, and what a request does when the processor gives no
// answer (an unknown outcome: the worker asks again, nothing is guessed).
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { formatCents, parseDollarNumber, parseDollarString } from '../../domain/money.ts';
import { ApiError, fail } from '../../errors.ts';
import { CARD_PROCESSOR_TIMEOUT_MS, type CardProcessor, processorTimeoutMs } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { markOutcomeUnknown } from '../../store/payin/operation-outcome.ts';
import { namedTransaction, type Named, type OperationRefusal } from '../../store/payin/operation-common.ts';
import { errorSummary } from './charge.ts';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_WAIT_MARGIN_MS } from '../common/idempotency-replay.ts';

export interface OperationDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  /** This installation's provider keys (the references of captures, voids, refunds and credits). */
  readonly providerKeys: ProviderKeys;
}

/** What capture, void, refund and their recovery get from the service. */
export function operationDepsOf(service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'providerKeys'>): OperationDeps {
  return { db: service.db, clock: service.clock, log: service.log, processor: service.providers.cardProcessor, providerKeys: service.providerKeys };
}

/** A credit's, and the recovery's: the operations' deps and the card-data cipher, loaded when first needed (a credit seals and opens its card). */
export interface CreditDeps extends OperationDeps {
  readonly cipher: () => CardCipher;
}

export function creditDepsOf(service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'config' | 'providerKeys'>): CreditDeps {
  return { ...operationDepsOf(service), cipher: () => cardCipherFor(service.config) };
}

/** Who asks: the merchant, and the source whose credentials were used (Idempotency-Keys are scoped to it). */
export interface Caller {
  readonly merchantId: string;
  readonly sourceId: string;
}

/** The body of capture, void, refund and reversal, as received. */
export interface OperationInput {
  readonly referenceNumber: number;
  readonly amount: number | undefined;
  /** The amount exactly as written in the JSON body, when the caller has it. */
  readonly amountText: string | null;
  readonly idempotencyKey: string | null;
}

/** When the worker asks about an operation whose request never recorded an answer: after the request surely gave up. */
export const OPERATION_RECOVERY_AFTER_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;
/** How often a request waiting on another request's operation looks at the transaction. */
const BUSY_POLL_MS = 50;

/** The amount of an operation in cents, or null when the body has none (the whole amount then). */
export function optionalAmountCents(input: OperationInput): number | null {
  if (input.amount === undefined) return null;
  if (!(input.amount > 0)) fail('invalid_amount', 'amount must be greater than zero');
  const parsed = input.amountText !== null ? parseDollarString(input.amountText) : parseDollarNumber(input.amount);
  if (!parsed.ok) fail('invalid_amount', `amount ${parsed.reason}`);
  return parsed.cents;
}

export function checkIdempotencyKey(key: string | null): void {
  if (key !== null && !IDEMPOTENCY_KEY_PATTERN.test(key)) fail('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
}

/**
 * The charge or refund named by reference_number, or 404 not_found (another
 * merchant's reads the same). A verification of the merchant is named as one:
 * it exists (GET /api/v2/transactions/:id shows it) but moved no money.
 */
export async function chargeOrNotFound(deps: Pick<OperationDeps, 'db'>, pk: number, merchantId: string): Promise<ChargeRow> {
  return namedOrFail(await namedTransaction(deps.db, { pk, merchantId }), pk);
}

/** The row of a lookup, or its refusal as chargeOrNotFound words it. */
function namedOrFail(named: Named, pk: number): ChargeRow {
  if (named.kind === 'charge') return named.row;
  // A lookup refuses only as not found or as a verification, and neither message names an action.
  return failOperation(named.refusal, pk, 'captured');
}

/**
 * Words a store's refusal of a capture, void or refund of reference_number
 * `pk` (`action` as in "can be captured") as the error catalogue has it.
 */
export function failOperation(refusal: OperationRefusal, pk: number, action: 'captured' | 'voided' | 'refunded' | 'adjusted'): never {
  const ref = `reference_number ${pk}`;
  switch (refusal.reason) {
    case 'not_found':
      return fail('not_found', `${ref} not found`);
    case 'verification':
      return fail('invalid_request', `${ref} is a verification: it moved no money, so it cannot be captured, voided or refunded`);
    case 'is_refund':
      return fail('invalid_request', `${ref} is a refund; only charges can be ${action}`);
    case 'not_approved':
      if (refusal.status === 'pending') return fail('invalid_request', `${ref} is pending; it can be ${action} once approved`);
      return fail('invalid_request', `${ref} was ${refusal.status}; there is nothing to be ${action}`);
    case 'other_operation':
      return fail('invalid_request', `${ref} has a ${refusal.op} awaiting the processor's answer; retry once it is answered`);
    case 'captured_once':
      return fail('invalid_request', `${ref} is already captured (${formatCents(refusal.capturedCents)}); a transaction is captured once`);
    case 'not_capturable':
      return fail('invalid_request', `${ref} is ${refusal.stage}; it can no longer be captured`);
    case 'above_authorized':
      return refuseAmountAbove('authorized amount', refusal.authorizedCents);
    case 'authorization_expired':
      return fail('invalid_request', `${ref}: the authorization expired 7 days after it was made`);
    case 'settled':
      return fail('invalid_request', `${ref} is settled; refund it instead`);
    case 'expired':
      return fail('invalid_request', `${ref} has expired; there is nothing to void`);
    case 'void_refused':
      return fail('invalid_request', `the card processor refused to void ${ref}; refund it once it is settled`);
    case 'funds_transfers':
      return fail('invalid_request', `${ref} funds transfers (${formatCents(refusal.linkedCents)} linked); it cannot be voided`);
    case 'not_whole':
      return fail('invalid_amount', `a void cancels the whole amount ${formatCents(refusal.wholeCents)}; refund part of it once settled`);
    case 'void_below_floor':
      return fail('insufficient_funds', `balance + overdraft does not cover giving back the captured ${formatCents(refusal.heldCents)} of ${ref}`);
    case 'not_settled': {
      const why =
        refusal.stage === 'captured' || refusal.stage === 'authorized' ? 'not settled yet; void it instead' : `${refusal.stage}; there is nothing to refund`;
      return fail('invalid_request', `${ref} is ${why}`);
    }
    case 'above_refundable': {
      const linked = refusal.linkedCents > 0 ? ` (${formatCents(refusal.linkedCents)} of it funds transfers)` : '';
      return fail('invalid_amount', `amount exceeds the refundable ${formatCents(refusal.refundableCents)} of ${ref}${linked}`);
    }
    case 'refund_below_floor':
      return fail('insufficient_funds', `balance + overdraft does not cover the refund of ${formatCents(refusal.amountCents)}`);
    case 'adjusted_once':
      return fail('invalid_request', `${ref} was adjusted before; a transaction is adjusted once`);
    case 'not_adjustable':
      return fail('invalid_request', `${ref} is ${refusal.stage}; only an unsettled transaction can be adjusted`);
    case 'above_authorized_adjust':
      throw new ApiError(
        'invalid_amount',
        `amount exceeds the authorized ${formatCents(refusal.authorizedCents)}; an adjust may lower an authorization, a higher amount needs a new charge`,
        undefined,
        'amount',
      );
    case 'captured_amount':
      throw new ApiError(
        'invalid_amount',
        `${ref} is captured (${formatCents(refusal.capturedCents)}); its amount cannot be adjusted: void it, or refund once settled`,
        undefined,
        'amount',
      );
    case 'changed':
      return fail('invalid_request', `${ref} changed while it was being adjusted; retry`);
    case 'not_queueable':
      return fail('invalid_state', `${ref} ${QUEUE_REFUSALS[refusal.why]}`);
  }
}

/** Why a transaction cannot be queued, after its reference number. */
const QUEUE_REFUSALS = {
  captured: 'is captured: a capture goes to the processor at once, so it cannot return to the queue; void it instead',
  settled: 'is settled; it cannot be queued',
  voided: 'is voided; it cannot be queued',
  expired: 'has expired; it cannot be queued',
  not_approved: 'was not approved; only an approved authorization can be queued',
  not_a_charge: 'is not a card authorization; only an authorization can be queued',
} as const;

function refuseAmountAbove(what: string, limitCents: number): never {
  return fail('invalid_amount', `amount exceeds the ${what} ${formatCents(limitCents)}`);
}

/**
 * The processor did not answer: the record stays pending for the worker, and
 * the Idempotency-Key says so with the pending reply, so retries answer it at
 * once. Best effort: should the write fail, a retry waits out the request time.
 */
export async function answerUnknownOutcome(
  deps: OperationDeps,
  what: { pk: number; operation: string; sourceId: string; idemKey: string | null; pendingJson: string },
  error: unknown,
): Promise<{ statusCode: number; json: string }> {
  deps.log.warn(
    { transaction: what.pk, operation: what.operation, processor: deps.processor.name, err: errorSummary(error) },
    'card processor did not answer; operation left pending for recovery',
  );
  if (what.idemKey !== null) {
    const key = what.idemKey;
    await markOutcomeUnknown(deps.db, { sourceId: what.sourceId, idemKey: key, pendingJson: what.pendingJson }).catch((markError: unknown) => {
      deps.log.error({ transaction: what.pk, err: errorSummary(markError) }, 'could not mark the Idempotency-Key of an unanswered operation');
    });
  }
  return { statusCode: 200, json: what.pendingJson };
}

/**
 * Waits (bounded) until the transaction has no operation awaiting the
 * processor, then returns it as it is then: for a request that found the
 * same operation already under way in another process. Past the request
 * time of that operation it returns the transaction as it is (pending).
 */
export async function afterOperation(deps: OperationDeps, merchantId: string, pk: number): Promise<ChargeRow> {
  const waitMs = processorTimeoutMs(deps.processor) + IDEMPOTENCY_WAIT_MARGIN_MS;
  const untilMs = deps.clock.nowMs() + waitMs;
  const looksMax = Math.ceil(waitMs / BUSY_POLL_MS);
  for (let looks = 1; ; looks++) {
    const row = await chargeOrNotFound(deps, pk, merchantId);
    if (row.op === null || looks >= looksMax || deps.clock.nowMs() >= untilMs) return row;
    await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
  }
}
