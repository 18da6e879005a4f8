// The worker's side of charges: pending charges that are due are claimed in
// bounded batches and asked about at the processor. A charge answered
// `pending` (under review) is polled; a charge that never recorded an answer
// (its request crashed or timed out) is authorized again with the same
// reference, which connectors treat idempotently. Each outcome is recorded
// in its own transaction with its ledger posting. Every processor call is
// bounded by its deadline, so a hung connector cannot stall the batch (nor
// the worker loop behind it); a call that times out leaves the charge
// pending, and the claim's lease brings it back.
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { CardType } from '../../domain/cards.ts';
import type { Clock } from '../../domain/clock.ts';
import { type CredentialOnFile, parseCredentialOnFile } from '../../domain/stored-credential.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import {
  authorizeWithDeadline,
  CARD_PROCESSOR_TIMEOUT_MS,
  mayResend,
  pollWithDeadline,
  type AuthorizationResult,
  type CardProcessor,
} from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { DueCharge } from '../../store/charges.ts';
import { claimDueChargesBatch } from '../../store/payin/charge-reads.ts';
import { errorSummary } from './charge.ts';
import { recordChargeOutcome } from './charge-outcome.ts';
import { deferPendingCharge } from '../../store/payin/charge-outcome.ts';
import type { StoredChargeRequest } from './charge-answers.ts';
import { authorizationTermsOf } from './charge-authorization.ts';
import { chargeReference } from '../common/provider-references.ts';

/** Charges handled per batch; their processor calls run concurrently. */
export const CHARGE_BATCH_MAX = 50;
/** A claimed charge is not claimed again before this, so a crashed worker's batch is picked up later. */
const CLAIM_LEASE_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;

export interface RecoveryDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  readonly providerKeys: ProviderKeys;
  /** Opened only when a charge must be authorized again. */
  readonly cipher: () => CardCipher;
}

/** The worker's dependencies, from the assembled service (the card-data key is loaded only when needed). */
export function recoveryDepsOf(service: Service): RecoveryDeps {
  return {
    db: service.db,
    clock: service.clock,
    log: service.log,
    processor: service.providers.cardProcessor,
    providerKeys: service.providerKeys,
    cipher: () => cardCipherFor(service.config),
  };
}

/** Processes one batch of due pending charges; returns how many were claimed. */
export async function resolveDueCharges(deps: RecoveryDeps, limit = CHARGE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const due = await claimDueChargesBatch(deps.db, { nowMs, leaseUntilMs: nowMs + CLAIM_LEASE_MS, limit });
  await Promise.all(due.map((charge) => resolvePendingCharge(deps, charge)));
  return due.length;
}

/**
 * What became of one pending charge: the processor gave no answer (it stays
 * pending; asked again later), or one was recorded (`final` or still
 * `pending` under review), or another process recorded one first (`raced`:
 * nothing changed).
 */
export type PendingChargeResolution = 'unanswered' | 'final' | 'pending' | 'raced';

/**
 * Asks the processor about one pending charge and records its answer through
 * the guarded store command: a poll of a charge under review, or the same
 * authorization again for one that never recorded an answer. The worker's
 * batches and provider callbacks (flows/providers/callbacks.ts) both come
 * here, so a charge moves the same way whoever noticed it. A verified
 * callback may name the processor's id of a charge that never recorded an
 * answer (`reportedProcessorRef`): that charge is then polled under it, a
 * read, instead of authorized again while its own request may still be
 * waiting for the answer.
 */
export async function resolvePendingCharge(
  deps: RecoveryDeps,
  charge: DueCharge,
  reportedProcessorRef: string | null = null,
): Promise<PendingChargeResolution> {
  const awaiting = charge.processor_ref === null ? 'answer' : 'review';
  const processorRef = charge.processor_ref ?? reportedProcessorRef;
  if (processorRef === null && !(await mayAskAgain(deps, charge.pk, 'charge', charge.created_at_ms))) return 'unanswered';
  let result: AuthorizationResult;
  try {
    result =
      processorRef === null
        ? await authorizeAgain(deps, charge)
        : await pollWithDeadline(deps.processor, { reference: chargeReference(deps.providerKeys, charge.pk), processorRef });
  } catch (error) {
    // Still unknown: the claim's lease (or the charge's next run) brings it back later.
    deps.log.warn(
      { charge: charge.pk, processor: deps.processor.name, err: errorSummary(error) },
      'card processor did not answer about a pending charge; will ask again',
    );
    return 'unanswered';
  }
  const { card_number_enc: _sealed, ...row } = charge;
  const recorded = await recordChargeOutcome(deps, row, awaiting, result);
  if (recorded === null) return 'raced';
  if (recorded.charge.status === 'pending') return 'pending';
  deps.log.info({ charge: charge.pk, status: recorded.charge.status, recovered: awaiting === 'answer' }, 'pending charge resolved');
  return 'final';
}

/** How long a record that may not be sent again waits before it is looked at (and reported) again. */
export const PAST_RESEND_WINDOW_RECHECK_MS = 24 * 60 * 60_000;

/**
 * Whether the request of a record whose outcome is unknown may be sent again
 * (mayResend). When it may not, the record stays pending and is looked at
 * again a day later, each time with an error in the log for the operator:
 * the processor's own records decide what became of it, and reconciliation
 * reports a settled one.
 */
export async function mayAskAgain(
  deps: Pick<RecoveryDeps, 'db' | 'clock' | 'log' | 'processor'>,
  pk: number,
  what: string,
  firstSentAtMs: number,
): Promise<boolean> {
  const nowMs = deps.clock.nowMs();
  if (mayResend(deps.processor, firstSentAtMs, nowMs)) return true;
  deps.log.error(
    { transaction: pk, operation: what, processor: deps.processor.name, firstSentAtMs, resendWindowMs: deps.processor.resendWindowMs },
    "outcome unknown past the processor's resend window: not sent again (it could be processed twice); check it at the processor",
  );
  await deferPendingCharge(deps.db, { pk, nextRunAtMs: nowMs + PAST_RESEND_WINDOW_RECHECK_MS });
  return false;
}

function authorizeAgain(deps: RecoveryDeps, charge: DueCharge): Promise<AuthorizationResult> {
  const request = JSON.parse(charge.request_json) as StoredChargeRequest;
  return authorizeWithDeadline(deps.processor, {
    reference: chargeReference(deps.providerKeys, charge.pk),
    amountCents: charge.amount_cents,
    currency: 'USD',
    card: {
      number: deps.cipher().open(charge.card_number_enc, 'card_number', charge.source_id),
      // The security code was erased when the nonce was used; the processor knows this reference.
      cvv: null,
      expiryMonth: charge.expiry_month,
      expiryYear: charge.expiry_year,
      cardType: charge.card_type as CardType,
    },
    ...authorizationTermsOf(charge.request_json, request.billing_info),
    capture: charge.auto_capture === 1,
    ...storedCredentialOf(charge),
  });
}

/** The flags the charge was first sent with, sent again unchanged (none for a one-off card, and for charges made before they were kept). */
function storedCredentialOf(charge: DueCharge): { storedCredential?: CredentialOnFile } {
  const credential = parseCredentialOnFile(charge.stored_credential);
  return credential === null ? {} : { storedCredential: credential };
}
