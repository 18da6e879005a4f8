// Running recurring schedules (docs/api-decisions.md section 15): each due
// schedule is charged once per run date (UTC), across workers and crashes.
//
//   1. claim: a bounded batch of due schedules is leased to this worker in
//      one statement (store/schedules.ts claimDueSchedules), so concurrent
//      workers split the work;
//   2. reserve: one transaction inserts the run's charge as pending (through
//      the charge machinery, store/payin/charge-reservation.ts, with the saved card) and the
//      (schedule, run date) row whose primary key refuses a second run of
//      that date, whatever the leases did. Committed before the processor
//      is asked, so a crash after it leaves a pending charge that the
//      charge-recovery job resolves with the same reference, never a second;
//   3. the processor is asked (bounded by its deadline) and its answer is
//      recorded as for any charge (charge-outcome.ts: status, ledger, batch);
//   4. apply: once a run's charge has its final answer, the schedule moves
//      on (domain/recurring.ts afterRun) in one transaction, guarded so it
//      happens once. A run whose charge a crash left pending is applied when
//      charge recovery records its answer.
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { CardType } from '../../domain/cards.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import { runDateOf } from '../../domain/recurring.ts';
import { fail, isApiError } from '../../errors.ts';
import { authorizeWithDeadline, CARD_PROCESSOR_TIMEOUT_MS, type AuthorizationResult, type CardProcessor } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import type { ScheduleRow } from '../../store/schedules.ts';
import {
  anyScheduleDue,
  applyScheduleRun,
  claimSchedules,
  queryFinishedRuns,
  queryRunOfDate,
  reserveScheduleRun,
  stopFailedSchedule,
  type ReservedRun,
} from '../../store/vault/schedule-runs.ts';
import { querySchedule } from '../../store/vault/schedules.ts';
import { failCardSource } from '../payin/card-source.ts';
import { errorSummary } from '../payin/charge.ts';
import { cardSourceOf, pendingChargeOf } from '../payin/charge-reservation.ts';
import { chargeCredentialOf } from '../payin/charge-authorization.ts';
import { chargeReference } from '../common/provider-references.ts';
import type { ChargeCard } from '../../store/payin/card-source.ts';
import { cardSurchargeRule } from '../payin/surcharge.ts';
import { recordChargeOutcome } from '../payin/charge-outcome.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { idOf } from './stored-common.ts';
import type { PaymentMethodRow } from '../../store/payment-methods.ts';
import { type CheckDeps, checkDepsFor } from '../ach/check-charge.ts';
import { runCheckOnce } from './check-schedule-runs.ts';
import { renderSchedule, type ScheduleView } from './schedule-view.ts';

/** Schedules claimed per worker step; their processor calls run concurrently. */
export const SCHEDULE_BATCH_MAX = 50;
/** Finished runs applied per worker step. */
export const RUN_APPLY_BATCH_MAX = 200;
/** A claimed schedule is not claimed again before this, so a crashed worker's batch is picked up later. */
const CLAIM_LEASE_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;

export interface ScheduleRunDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  readonly providerKeys: ProviderKeys;
  readonly cipher: () => CardCipher;
  /** Runs on saved checks are check charges (check-schedule-runs.ts); absent: such runs wait. */
  readonly checks?: CheckDeps | undefined;
}

type ScheduleRunService = Pick<Service, 'db' | 'clock' | 'log' | 'config' | 'providers' | 'providerKeys'>;

/** What the service gives schedule runs: the charge machinery's dependencies. */
export function scheduleRunDepsOf(service: ScheduleRunService): ScheduleRunDeps {
  const { db, clock, log, providerKeys } = service;
  return {
    db,
    clock,
    log,
    processor: service.providers.cardProcessor,
    providerKeys,
    cipher: () => cardCipherFor(service.config),
    checks: checkDepsFor(service),
  };
}

type Reserved = Exclude<ReservedRun, { kind: 'card-refused' }>;

/**
 * A run on a saved check is a check charge (check-schedule-runs.ts), never a
 * card charge. One that cannot be made (no ACH network, the method gone)
 * stops the schedule as an unusable card does.
 */
async function runCheck(deps: ScheduleRunDeps, schedule: ScheduleRow, runDate: string, method: PaymentMethodRow): Promise<{ readonly pk: number } | null> {
  if (deps.checks === undefined) {
    deps.log.warn({ schedule: schedule.pk, runDate }, 'recurring schedule charges a saved check and checks are not wired here; its run waits');
    return null;
  }
  const result = await runCheckOnce(deps.checks, schedule, runDate, method);
  if (result.kind === 'charged') return { pk: result.pk };
  if (result.kind === 'unusable') {
    deps.log.warn({ schedule: schedule.pk, runDate, why: result.why }, 'recurring schedule cannot charge its saved check; stopped');
    await stopSchedule(deps, schedule, runDate);
  }
  return null;
}

/** One worker step: charges a bounded batch of due schedules and applies finished runs; returns how much it did. */
export async function runDueSchedules(deps: ScheduleRunDeps, limit = SCHEDULE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const today = runDateOf(nowMs);
  // Look first (a read): an idle round writes nothing.
  const due = await anyScheduleDue(deps.db, { today, nowMs });
  const claimed = due ? await claimSchedules(deps.db, { today, nowMs, leaseUntilMs: nowMs + CLAIM_LEASE_MS, limit }) : [];
  await Promise.all(claimed.map((schedule) => runOnce(deps, schedule, schedule.next_run_date)));
  return claimed.length + (await applyFinishedRuns(deps));
}

/** Step 2: the run's charge and its (schedule, date) row, in one transaction. Exported for the crash tests, which stop after it. */
export async function reserveRun(deps: ScheduleRunDeps, claimed: ScheduleRow, runDate: string): Promise<Reserved> {
  const cipher = deps.cipher();
  // A run is a card charge like any other: the merchant's card surcharge adds to the schedule's amount.
  const surchargeOf = await cardSurchargeRule(deps.db, claimed.merchant_id);
  const reserved = await reserveScheduleRun(deps.db, {
    schedulePk: claimed.pk,
    runDate,
    nowMs: deps.clock.nowMs(),
    chargeOf: (schedule, method) => {
      // The charge is the saving source's, as if it charged `pm-<id>` itself; or, for a schedule
      // created with use_this_source_key, the creating source's (its batch, its dialect).
      const payer = { merchantId: schedule.merchant_id, sourceId: schedule.run_source_id ?? method.source_id };
      const request = {
        amount: centsToDollarNumber(schedule.amount_cents),
        source: `pm-${schedule.payment_method_pk}`,
        transaction_details: { description: schedule.title },
      };
      const surchargeCents = surchargeOf(schedule.amount_cents);
      return {
        payer,
        source: cardSourceOf(request),
        keys: cipher,
        pendingOf: pendingChargeOf(cipher, payer, request, schedule.amount_cents + surchargeCents, { idemKey: null, schedulePk: schedule.pk, surchargeCents }),
      };
    },
  });
  // Refused as the API would refuse a charge of this card (runOnce stops the schedule on it).
  if (reserved.kind === 'card-refused') failCardSource(reserved.refusal);
  return reserved;
}

/** The flags of a run's charge: the same decision as for its pending charge (reserveRun), a scheduled run of the method. */
function storedCredentialOfRun(schedule: ScheduleRow, card: ChargeCard) {
  const credential = chargeCredentialOf({ source: `pm-${schedule.payment_method_pk}` }, card, true);
  return credential === null ? {} : { storedCredential: credential };
}

/** Runs the schedule's run of `runDate`, unless that date has one; returns the run's charge (null when none was made here). */
async function runOnce(deps: ScheduleRunDeps, schedule: ScheduleRow, runDate: string): Promise<{ readonly pk: number } | null> {
  let reserved: Reserved;
  try {
    reserved = await reserveRun(deps, schedule, runDate);
  } catch (error) {
    // A card that cannot be charged any more (expired, or its method deleted meanwhile): retrying would not help.
    if (!isApiError(error)) throw error;
    deps.log.warn({ schedule: schedule.pk, runDate, err: errorSummary(error) }, 'recurring schedule cannot charge its card; stopped');
    await stopSchedule(deps, schedule, runDate);
    return null;
  }
  if (reserved.kind === 'no-method') {
    await stopSchedule(deps, schedule, runDate);
    return null;
  }
  if (reserved.kind === 'taken') return null;
  if (reserved.kind === 'check-method') return runCheck(deps, schedule, runDate, reserved.method);
  const { charge, card } = reserved.reserved;
  let result: AuthorizationResult;
  try {
    result = await authorizeWithDeadline(deps.processor, {
      reference: chargeReference(deps.providerKeys, charge.pk),
      amountCents: charge.amount_cents,
      currency: 'USD',
      card: { number: card.number, cvv: null, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, cardType: charge.card_type as CardType },
      billing: { street: card.billing.street, zip: card.billing.zip, country: card.billing.country },
      // A merchant-initiated recurring charge of the saved card (as reserveRun's pendingChargeOf kept it).
      ...storedCredentialOfRun(schedule, card),
    });
  } catch (error) {
    // Unknown outcome: the charge stays pending and charge recovery asks again with the same reference.
    deps.log.warn({ schedule: schedule.pk, charge: charge.pk, err: errorSummary(error) }, 'card processor did not answer a schedule run; left pending');
    return charge;
  }
  const recorded = await recordChargeOutcome(deps, charge, 'answer', result);
  return recorded?.charge ?? charge;
}

/** A schedule whose card is gone or unusable stops as failed (nothing was charged). */
async function stopSchedule(deps: ScheduleRunDeps, schedule: ScheduleRow, runDate: string): Promise<void> {
  await stopFailedSchedule(deps.db, { schedule, runDate, nowMs: deps.clock.nowMs(), views: EVENT_VIEWS });
}

/** Step 4 for a bounded batch of runs whose charge has its final answer. */
export async function applyFinishedRuns(deps: Pick<ScheduleRunDeps, 'db' | 'clock'>, limit = RUN_APPLY_BATCH_MAX): Promise<number> {
  const runs = await queryFinishedRuns(deps.db, { limit });
  let applied = 0;
  for (const run of runs) if (await applyScheduleRun(deps.db, { run, nowMs: deps.clock.nowMs(), views: EVENT_VIEWS })) applied++;
  return applied;
}

export interface SandboxRunResult {
  readonly schedule: ScheduleView;
  /** The run's transaction as GET /api/v2/transactions/:id shows it. */
  readonly transaction: Record<string, unknown>;
  /** False when the date had been run already (nothing was charged now). */
  readonly charged: boolean;
}

/**
 * Sandbox (docs/api-decisions.md section 15): runs the schedule's next run
 * at once, as if its date had come; a date already run is not charged again
 * (the answer shows that run's transaction).
 */
export async function runScheduleNow(service: ScheduleRunService, merchantId: string, id: string): Promise<SandboxRunResult> {
  const deps = scheduleRunDepsOf(service);
  const pk = idOf('recurring schedule', id);
  const schedule = await querySchedule(deps.db, { merchantId, pk });
  if (schedule === undefined) fail('not_found', `recurring schedule ${pk} not found`);
  if (schedule.active !== 1) {
    // `status` is how the runs went; `active` whether it runs at all (paused by the merchant, or stopped by a run's outcome).
    const why = schedule.status === 'active' ? 'it is paused (active: false)' : `its status is ${schedule.status}`;
    fail('invalid_request', `recurring schedule ${pk} is not active: ${why}`);
  }
  const runDate = schedule.next_run_date;
  const charge = await runOnce(deps, schedule, runDate);
  await applyFinishedRuns(deps);
  const found = await queryRunOfDate(deps.db, { merchantId, pk, runDate });
  if (found.kind === 'absent') fail('not_found', `recurring schedule ${pk} not found`);
  if (found.kind === 'no-run') fail('invalid_request', `recurring schedule ${pk} could not be charged: its payment method is gone or its card expired`);
  const row = found.charge;
  return { schedule: renderSchedule(found.schedule), transaction: renderCharge(row), charged: charge !== null && charge.pk === row.pk };
}
