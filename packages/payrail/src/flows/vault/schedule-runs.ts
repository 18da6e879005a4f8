// Running recurring schedules (docs/api-decisions.md section 15): each due
// schedule is charged once per run date (UTC), across workers and crashes.
//
//   1. claim: a bounded batch of due schedules is leased to this worker in
//      one statement (store/schedules.ts claimDueSchedules), so concurrent
//      workers split the work;
//   2. reserve: one transaction inserts the run's charge as pending (through
//      the charge machinery, reserveChargeIn, with the saved card) and the
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
import type { CardType } from '../../domain/cards.ts';
import type { Clock } from '../../domain/clock.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import { afterRun, runDateOf } from '../../domain/recurring.ts';
import type { EventType } from '../../domain/webhooks.ts';
import { fail, isApiError } from '../../errors.ts';
import { authorizeWithDeadline, CARD_PROCESSOR_TIMEOUT_MS, type AuthorizationResult, type CardProcessor } from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import { getCharge, type ChargeRow } from '../../store/charges.ts';
import type { Txn } from '../../store/db.ts';
import { getPaymentMethod } from '../../store/payment-methods.ts';
import {
  applyRunOutcome,
  claimDueSchedules,
  finishedUnappliedRuns,
  getSchedule,
  getScheduleForRun,
  getScheduleRun,
  hasDueSchedules,
  insertScheduleRun,
  markRunApplied,
  type FinishedRun,
  type ScheduleRow,
} from '../../store/schedules.ts';
import type { ChargeCard } from '../payin/card-source.ts';
import { errorSummary, reserveChargeIn } from '../payin/charge.ts';
import { recordChargeOutcome } from '../payin/charge-outcome.ts';
import { EVENT_VIEWS } from '../events/emit.ts';
import { emitScheduleEvent } from '../../store/event-outbox.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { idOf } from './stored-common.ts';
import { renderSchedule, type ScheduleView } from './schedules.ts';

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
  readonly cipher: () => CardCipher;
}

/** Thrown inside the reservation when the run of that date exists already: rolls the charge back. */
class RunTaken extends Error {
  constructor() {
    super('the run of this date exists already');
  }
}

type Reserved = { kind: 'reserved'; charge: ChargeRow; card: ChargeCard } | { kind: 'taken' } | { kind: 'no-method' };

/** One worker step: charges a bounded batch of due schedules and applies finished runs; returns how much it did. */
export async function runDueSchedules(deps: ScheduleRunDeps, limit = SCHEDULE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const today = runDateOf(nowMs);
  // Look first (a read): an idle round writes nothing.
  const due = await deps.db.read((tx) => hasDueSchedules(tx, today, nowMs));
  const claimed = due ? await deps.db.write((tx) => claimDueSchedules(tx, today, nowMs, nowMs + CLAIM_LEASE_MS, limit)) : [];
  await Promise.all(claimed.map((schedule) => runOnce(deps, schedule, schedule.next_run_date)));
  return claimed.length + (await applyFinishedRuns(deps));
}

/** Step 2: the run's charge and its (schedule, date) row, in one transaction. Exported for the crash tests, which stop after it. */
export async function reserveRun(deps: ScheduleRunDeps, claimed: ScheduleRow, runDate: string): Promise<Reserved> {
  let schedule = claimed;
  try {
    return await deps.db.write(async (tx): Promise<Reserved> => {
      const nowMs = deps.clock.nowMs();
      if ((await getScheduleRun(tx, schedule.pk, runDate)) !== undefined) return { kind: 'taken' };
      // As the schedule is now: paused, deleted or moved to another date since it was claimed, it is not run.
      const current = await getScheduleForRun(tx, schedule.pk);
      if (current === undefined || current.deleted || current.active !== 1 || current.next_run_date !== runDate) return { kind: 'taken' };
      schedule = current;
      const method = await getPaymentMethod(tx, schedule.merchant_id, schedule.payment_method_pk);
      if (method === undefined) return { kind: 'no-method' };
      const { charge, card } = await reserveChargeIn(
        tx,
        { cipher: deps.cipher() },
        // The charge is the saving source's, as if it charged `pm-<id>` itself.
        { merchantId: schedule.merchant_id, sourceId: method.source_id },
        {
          amount: centsToDollarNumber(schedule.amount_cents),
          source: `pm-${schedule.payment_method_pk}`,
          transaction_details: { description: schedule.title },
        },
        schedule.amount_cents,
        { idemKey: null, schedulePk: schedule.pk, nowMs },
      );
      // The unique (schedule, run date) row: a second run of the date rolls all of this back.
      if (!(await insertScheduleRun(tx, schedule.pk, runDate, charge.pk, nowMs))) throw new RunTaken();
      return { kind: 'reserved', charge, card };
    });
  } catch (error) {
    if (error instanceof RunTaken) return { kind: 'taken' };
    throw error;
  }
}

/** Runs the schedule's run of `runDate`, unless that date has one; returns the run's charge (null when none was made here). */
async function runOnce(deps: ScheduleRunDeps, schedule: ScheduleRow, runDate: string): Promise<ChargeRow | null> {
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
  const { charge, card } = reserved;
  let result: AuthorizationResult;
  try {
    result = await authorizeWithDeadline(deps.processor, {
      reference: String(charge.pk),
      amountCents: charge.amount_cents,
      currency: 'USD',
      card: { number: card.number, cvv: null, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, cardType: charge.card_type as CardType },
      billing: { street: card.billing.street, zip: card.billing.zip, country: card.billing.country },
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
  await deps.db.write(async (tx) => {
    const stopped = await applyRunOutcome(
      tx,
      schedule.pk,
      runDate,
      { next_run_date: runDate, cycle_date: schedule.cycle_date, num_left: schedule.num_left, retries: schedule.retries, active: 0, status: 'failed' },
      schedule,
      deps.clock.nowMs(),
    );
    if (stopped) await emitScheduleEvent(tx, EVENT_VIEWS, 'schedule.failed', schedule.merchant_id, schedule.pk, deps.clock.nowMs());
  });
}

/** Step 4 for a bounded batch of runs whose charge has its final answer. */
export async function applyFinishedRuns(deps: Pick<ScheduleRunDeps, 'db' | 'clock'>, limit = RUN_APPLY_BATCH_MAX): Promise<number> {
  const runs = await deps.db.read((tx) => finishedUnappliedRuns(tx, limit));
  let applied = 0;
  for (const run of runs) if (await deps.db.write((tx) => applyRun(tx, run, deps.clock.nowMs()))) applied++;
  return applied;
}

async function applyRun(tx: Txn, run: FinishedRun, nowMs: number): Promise<boolean> {
  if (!(await markRunApplied(tx, run.schedule_pk, run.run_date))) return false;
  const schedule = await getScheduleForRun(tx, run.schedule_pk);
  // A deleted schedule, or one edited since the run began (a new date, paused), keeps what its owner set.
  if (schedule === undefined || schedule.deleted || schedule.next_run_date !== run.run_date) return true;
  const approved = run.charge_status === 'approved';
  const change = afterRun(
    {
      frequency: schedule.frequency,
      cycleDate: schedule.cycle_date,
      anchorDay: schedule.anchor_day,
      numLeft: schedule.num_left,
      retries: schedule.retries,
      active: schedule.active === 1,
      status: schedule.status,
    },
    run.run_date,
    approved,
  );
  const moved = await applyRunOutcome(
    tx,
    schedule.pk,
    run.run_date,
    {
      next_run_date: change.nextRunDate,
      cycle_date: change.cycleDate,
      num_left: change.numLeft,
      retries: change.retries,
      active: change.active ? 1 : 0,
      status: change.status,
    },
    schedule,
    nowMs,
  );
  if (!moved) return true;
  const emit = (type: EventType) => emitScheduleEvent(tx, EVENT_VIEWS, type, schedule.merchant_id, schedule.pk, nowMs);
  if (approved) {
    await emit('schedule.charged');
    if (change.status === 'finished') await emit('schedule.finished');
  } else if (change.status === 'failed') {
    await emit('schedule.failed');
  } else {
    await emit('schedule.declined');
  }
  return true;
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
export async function runScheduleNow(deps: ScheduleRunDeps, merchantId: string, id: string): Promise<SandboxRunResult> {
  const pk = idOf('recurring schedule', id);
  const schedule = await deps.db.read((tx) => getSchedule(tx, merchantId, pk));
  if (schedule === undefined) fail('not_found', `recurring schedule ${pk} not found`);
  if (schedule.active !== 1) {
    // `status` is how the runs went; `active` whether it runs at all (paused by the merchant, or stopped by a run's outcome).
    const why = schedule.status === 'active' ? 'it is paused (active: false)' : `its status is ${schedule.status}`;
    fail('invalid_request', `recurring schedule ${pk} is not active: ${why}`);
  }
  const runDate = schedule.next_run_date;
  const charge = await runOnce(deps, schedule, runDate);
  await applyFinishedRuns(deps);
  return deps.db.read(async (tx) => {
    const run = await getScheduleRun(tx, pk, runDate);
    const current = await getSchedule(tx, merchantId, pk);
    if (current === undefined) fail('not_found', `recurring schedule ${pk} not found`);
    if (run === undefined) fail('invalid_request', `recurring schedule ${pk} could not be charged: its payment method is gone or its card expired`);
    const row = await getCharge(tx, run.charge_pk, merchantId);
    if (row === undefined) throw new Error(`charge ${run.charge_pk} of a schedule run vanished`);
    return { schedule: renderSchedule(current), transaction: renderCharge(row), charged: charge !== null && charge.pk === run.charge_pk };
  });
}
