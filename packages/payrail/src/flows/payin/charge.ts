// The charge operation (docs/interface-spec.md section 4 op 1, docs/api-decisions.md section 8). Two write
// transactions with the processor call between them, never inside one:
//
//   1. reserve the Idempotency-Key (if any), take the card of the source
//      (consume a nonce, erasing its security code; or read a saved card,
//      `pm-`, or an earlier charge's, `ref-`: store/payin/card-source.ts,
//      docs/api-decisions.md section 15) and insert the charge as `pending`,
//      awaiting an answer (charge-reservation.ts);
//   2. call the processor, outside any transaction (charge-authorization.ts);
//   3. record the answer: status, the ledger credit of an approval, and the
//      Idempotency-Key's reply, in one transaction (charge-outcome.ts).
// The request is read and checked first (charge-request.ts).
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
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { parseReferenceNumber } from '../../domain/references.ts';
import { fail } from '../../errors.ts';
import { type AuthorizationResult, type CardProcessor, processorTimeoutMs } from '../../providers/card-processor.ts';
import { breakerOf } from '../../providers/connector-breakers.ts';
import type { Service } from '../../service.ts';
import { markKeyUnanswered, readCharge, readChargeHoldingKey } from '../../store/payin/charge-reads.ts';
import { readFundedTransaction } from '../../store/payin/transactions.ts';
import { IDEMPOTENCY_WAIT_MARGIN_MS, type KeyedRequest, replayKey, RunningRequests } from '../common/idempotency-replay.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';
import { dialectOf, renderCharge } from './charge-answers.ts';
import { authorizeCharge, chargeCredentialOf } from './charge-authorization.ts';
import { recordChargeOutcome } from './charge-outcome.ts';
import { type ChargeInput, type ChargeRequest, chargeKeyedRequest, type Payer, validateCharge } from './charge-request.ts';
import { reserveCharge } from './charge-reservation.ts';
import { cardSurchargeCents } from './surcharge.ts';
import { keyedBodyOf, withCardAsNonce } from './raw-card.ts';
import { checkSurchargeCents } from './surcharge.ts';
import { keyedCheckBodyOf } from '../ach/check-account.ts';
import { type CheckDeps, chargeCheckOnce, checkAccountOfRequest, checkDepsOf, refuseCheckOnlyRules, requireChecks } from '../ach/check-charge.ts';

// Kept where their importers find them.
export { IDEMPOTENCY_KEY_TTL_MS } from '../common/idempotency-replay.ts';
export {
  CHARGE_AMOUNT_CENTS_MAX,
  CHARGE_AMOUNT_CENTS_MIN,
  type ChargeInput,
  type ChargeRequest,
  chargeKeyedRequest,
  type Payer,
  storedRequest,
} from './charge-request.ts';
export { CHARGE_RECOVERY_AFTER_MS, reserveCharge } from './charge-reservation.ts';

export interface ChargeDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  /** This installation's provider keys (the charge's reference). */
  readonly providerKeys: ProviderKeys;
  readonly cipher: CardCipher;
  /** Check charges (behaviour section 17); absent: every check is refused (check_payments_unavailable). */
  readonly checks?: CheckDeps | undefined;
}

/** What a charge gets from the service (the card-data key is loaded here, once per caller). */
export function chargeDepsOf(service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'config' | 'providerKeys'>): ChargeDeps {
  const cipher = cardCipherFor(service.config);
  return {
    db: service.db,
    clock: service.clock,
    log: service.log,
    processor: service.providers.cardProcessor,
    providerKeys: service.providerKeys,
    cipher,
    checks: checkDepsOf(service, cipher),
  };
}

/** A reply ready to send: HTTP status and the JSON text (stored as is for idempotent replays). */
export interface ChargeReply {
  readonly statusCode: number;
  readonly json: string;
  /** The stored reply of an earlier request with the same Idempotency-Key (answered with `Idempotent-Replayed: true`). */
  readonly replayed?: boolean;
}

const asReplay = (reply: ChargeReply): ChargeReply => ({ ...reply, replayed: true });

export interface ChargeFlow {
  charge(payer: Payer, input: ChargeInput): Promise<ChargeReply>;
  read(merchantId: string, id: string): Promise<ChargeReply>;
}

export function createChargeFlow(deps: ChargeDeps): ChargeFlow {
  // Same-key requests running in this process share one charge; across
  // processes the database reservation decides and the loser waits.
  const running = new RunningRequests<ChargeReply>();

  async function charge(payer: Payer, input: ChargeInput): Promise<ChargeReply> {
    const requestedCents = validateCharge(input, deps.clock.nowMs(), payer.wireDialect);
    // A bank account, or a saved check method: a check charge (flows/ach/check-charge.ts), whatever the card processor's state.
    const account = await checkAccountOfRequest(deps.checks, deps.db, payer.merchantId, input.request);
    if (account !== null) {
      refuseCheckOnlyRules(input.request);
      const checks = requireChecks(deps.checks);
      const surchargeCents = await checkSurchargeCents(deps.db, payer.merchantId, requestedCents);
      const run = (idem: KeyedRequest | null) =>
        chargeCheckOnce(checks, payer, { request: input.request, account, amountCents: requestedCents + surchargeCents, surchargeCents, idem });
      if (input.idempotencyKey === null) return run(null);
      const idem = chargeKeyedRequest(input.idempotencyKey, keyedCheckBodyOf(deps.cipher, payer.merchantId, input.request));
      return running.run(`${payer.sourceId}\n${idem.key}`, idem.requestHash, () => run(idem));
    }
    refuseWhileProcessorDown(deps.processor);
    // The merchant's mandatory card surcharge adds to the amount (surcharge.ts); the charge keeps what it added.
    const surchargeCents = await cardSurchargeCents(deps.db, payer.merchantId, requestedCents);
    const amountCents = requestedCents + surchargeCents;
    // A card sent as such is charged as a nonce of it (raw-card.ts); a same-key retry tokenizes
    // again, and its unused nonce expires unused.
    const request = await withCardAsNonce(deps, payer, input.request);
    if (input.idempotencyKey === null) return chargeOnce(deps, payer, request, amountCents, null, surchargeCents);
    const idem = chargeKeyedRequest(input.idempotencyKey, keyedBodyOf(deps.cipher, payer.merchantId, input.request));
    return running.run(`${payer.sourceId}\n${idem.key}`, idem.requestHash, () => chargeOnce(deps, payer, request, amountCents, idem, surchargeCents));
  }

  async function read(merchantId: string, id: string): Promise<ChargeReply> {
    const pk = parseReferenceNumber(id);
    // Any transaction: a charge, a refund or a verification (docs/api-decisions.md section 10).
    const found = pk === null ? undefined : await readFundedTransaction(deps.db, { pk, merchantId, fundedMax: FUNDED_TRANSFERS_SHOWN_MAX });
    if (found === undefined) fail('not_found', `transaction ${id.slice(0, 40)} not found`);
    return { statusCode: 200, json: JSON.stringify(renderCharge(found.row, found.funded)) };
  }

  return { charge, read };
}

/**
 * While the processor's circuit breaker refuses (providers/breaker.ts), a
 * charge is refused before anything is written (no nonce used, no charge
 * reserved): 503, and the same request may simply be sent again. Past this
 * point a refusal is an unknown outcome like any failed call, and the charge
 * waits pending for the worker. A same-key retry is refused too while the
 * breaker is open, and answered its stored reply once it closes.
 */
function refuseWhileProcessorDown(processor: CardProcessor): void {
  if (breakerOf(processor)?.refusesNow() === true) {
    fail('service_unavailable', 'the card processor is not answering (its circuit breaker is open); nothing was written; retry');
  }
}

/** `amountCents` is the whole amount charged, `surchargeCents` of it the merchant's surcharge. */
async function chargeOnce(
  deps: ChargeDeps,
  payer: Payer,
  request: ChargeRequest,
  amountCents: number,
  idem: KeyedRequest | null,
  surchargeCents: number,
): Promise<ChargeReply> {
  const reservation = await reserveCharge(deps, payer, request, amountCents, idem, surchargeCents);
  if (reservation.kind === 'taken') return asReplay(await replayStoredReply(deps, payer, idem!));
  const { charge, card } = reservation;

  let result: AuthorizationResult;
  try {
    result = await authorizeCharge(deps, charge, card, amountCents, chargeCredentialOf(request, card, false));
  } catch (error) {
    // The outcome is unknown (no answer by the deadline, or the connector
    // failed): the charge stays pending and the worker asks again.
    deps.log.warn(
      { charge: charge.pk, processor: deps.processor.name, err: errorSummary(error) },
      'card processor did not answer; charge left pending for recovery',
    );
    const pendingJson = JSON.stringify(renderCharge(charge, [], dialectOf(charge)));
    if (idem !== null) await markOutcomeUnknown(deps, payer, idem.key, charge.pk, pendingJson);
    return { statusCode: 200, json: pendingJson };
  }

  const recorded = await recordChargeOutcome(deps, charge, 'answer', result);
  if (recorded !== null) return { statusCode: 200, json: recorded.replyJson };
  // The worker recorded this charge's answer first; reply with what it recorded.
  const current = await readCharge(deps.db, { pk: charge.pk, merchantId: payer.merchantId });
  if (current === undefined) throw new Error(`charge ${charge.pk} vanished`);
  return { statusCode: 200, json: JSON.stringify(renderCharge(current, [], dialectOf(current))) };
}

/**
 * Lets same-key retries answer the pending reply at once instead of waiting
 * for a request that has given up. Best effort: the reply is already known,
 * and should this write fail, a retry finds the key in progress and answers
 * the charge's current state once the request's time is up.
 */
async function markOutcomeUnknown(deps: ChargeDeps, payer: Payer, idemKey: string, pk: number, pendingJson: string): Promise<void> {
  try {
    await markKeyUnanswered(deps.db, { sourceId: payer.sourceId, idemKey, pendingJson });
  } catch (error) {
    deps.log.error(
      { charge: pk, err: errorSummary(error) },
      'could not mark the Idempotency-Key of an unanswered charge; retries will wait for its request time',
    );
  }
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
  const charge = await readChargeHoldingKey(deps.db, { merchantId: payer.merchantId, sourceId: payer.sourceId, idemKey, reservedAtMs });
  if (charge === undefined) fail('internal_server_error', 'the charge holding this Idempotency-Key could not be read; retry');
  return { statusCode: 200, json: JSON.stringify(renderCharge(charge, [], dialectOf(charge))) };
}

import { errorSummary } from '../common/error-summary.ts';
export { errorSummary };
