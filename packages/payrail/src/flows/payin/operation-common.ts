// What capture, void, refund and reversal share (docs/api-decisions.md
// sections 10 and 14): their dependencies, the amount rule, the request hash
// an Idempotency-Key remembers, the refusal that names why a transaction
// cannot be acted on, and what a request does when the processor gives no
// answer (an unknown outcome: the worker asks again, nothing is guessed).
import type { Logger } from 'pino';
import { AUTHORIZATION_LIFETIME_MS } from '../../domain/card-lifecycle.ts';
import type { Clock } from '../../domain/clock.ts';
import { formatCents, parseDollarNumber, parseDollarString } from '../../domain/money.ts';
import { fail } from '../../errors.ts';
import { CARD_PROCESSOR_TIMEOUT_MS, type CardProcessor, processorTimeoutMs } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ChargeRow } from '../../store/charges.ts';
import { getCharge } from '../../store/charges.ts';
import { markKeyOutcomeUnknown } from '../../store/idempotency.ts';
import { getVerification } from '../../store/verifications.ts';
import { errorSummary } from './charge.ts';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_WAIT_MARGIN_MS } from '../common/idempotency-replay.ts';

export interface OperationDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
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
export async function chargeOrNotFound(tx: Parameters<typeof getCharge>[0], pk: number, merchantId: string): Promise<ChargeRow> {
  const row = await getCharge(tx, pk, merchantId);
  if (row !== undefined) return row;
  if ((await getVerification(tx, pk, merchantId)) !== undefined) {
    fail('invalid_request', `reference_number ${pk} is a verification: it moved no money, so it cannot be captured, voided or refunded`);
  }
  return fail('not_found', `reference_number ${pk} not found`);
}

/**
 * Refuses an operation on a transaction that is not an approved charge, naming
 * reference_number and why; passes otherwise.
 */
export function refuseUnlessApprovedCharge(row: ChargeRow, action: 'captured' | 'voided' | 'refunded'): void {
  const ref = `reference_number ${row.pk}`;
  if (row.kind === 'refund') fail('invalid_request', `${ref} is a refund; only charges can be ${action}`);
  if (row.status === 'declined' || row.status === 'failed') fail('invalid_request', `${ref} was ${row.status}; there is nothing to be ${action}`);
  if (row.status === 'pending') fail('invalid_request', `${ref} is pending; it can be ${action} once approved`);
}

/** A refusal because another operation of the transaction awaits the processor. */
export function refuseBusy(row: ChargeRow): never {
  return fail('invalid_request', `reference_number ${row.pk} has a ${row.op} awaiting the processor's answer; retry once it is answered`);
}

export function refuseAmountAbove(what: string, limitCents: number): never {
  return fail('invalid_amount', `amount exceeds the ${what} ${formatCents(limitCents)}`);
}

/** Whether an authorization is past its lifetime at `nowMs`, whether or not the worker marked it expired yet. */
export function authorizationCreatedAfterMs(nowMs: number): number {
  return nowMs - AUTHORIZATION_LIFETIME_MS;
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
    await deps.db
      .write((tx) => markKeyOutcomeUnknown(tx, what.sourceId, key, what.pendingJson))
      .catch((markError: unknown) => {
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
    const row = await deps.db.read((tx) => chargeOrNotFound(tx, pk, merchantId));
    if (row.op === null || looks >= looksMax || deps.clock.nowMs() >= untilMs) return row;
    await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
  }
}
