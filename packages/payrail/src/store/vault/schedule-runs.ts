// Running recurring schedules: the commands and queries of the run flow
// (flows/vault/schedule-runs.ts, which tells the steps). Each run date is
// recorded by its (schedule, run date) row, inserted in the transaction
// that reserves the run's charge; its primary key refuses a second run.
import { afterRun } from '../../domain/recurring.ts';
import type { EventType } from '../../domain/webhooks.ts';
import { getCharge, type ChargeRow } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import type { Db, Tx } from '../db.ts';
import type { CardRefusal, ChargeCard } from '../payin/card-source.ts';
import { type ChargeReservationInput, reserveChargeIn } from '../payin/charge-reservation.ts';
import { emitScheduleEvent, type EventViews } from '../event-outbox.ts';
import { getPaymentMethod, type PaymentMethodRow } from '../payment-methods.ts';
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
} from '../schedules.ts';

/** Whether any schedule is due (a read, so an idle worker round writes nothing). */
export function anyScheduleDue(db: Db, input: { today: string; nowMs: number }): Promise<boolean> {
  return db.read((tx) => hasDueSchedules(tx, input.today, input.nowMs));
}

/** Leases at most `limit` due schedules to this worker until `leaseUntilMs`. */
export function claimSchedules(db: Db, input: { today: string; nowMs: number; leaseUntilMs: number; limit: number }): Promise<ScheduleRow[]> {
  return db.write((tx) => claimDueSchedules(tx, input.today, input.nowMs, input.leaseUntilMs, input.limit));
}

/**
 * What the run's charge is, for the schedule as it is now and its saved card:
 * built by the flow as pure values (the saving source as payer, `pm-<id>` as
 * source, the pending charge it seals), taken and inserted by the store.
 */
export type RunChargeOf = (schedule: ScheduleRow, method: PaymentMethodRow) => Pick<ChargeReservationInput, 'payer' | 'source' | 'keys' | 'pendingOf'>;

export type RunCharge = { readonly charge: ChargeRow; readonly card: ChargeCard };

export type ReservedRun =
  | { readonly kind: 'reserved'; readonly reserved: RunCharge }
  | { readonly kind: 'taken' }
  | { readonly kind: 'no-method' }
  /** The schedule charges a saved check: not a card charge (nothing written; the flow decides). */
  | { readonly kind: 'check-method'; readonly method: PaymentMethodRow }
  | { readonly kind: 'card-refused'; readonly refusal: CardRefusal };

/**
 * The run's charge and its (schedule, run date) row, in one transaction,
 * for the schedule as it is now: paused, deleted or moved to another date
 * since it was claimed, or the date run already, it is not run (taken).
 */
export function reserveScheduleRun(db: Db, input: { schedulePk: number; runDate: string; nowMs: number; chargeOf: RunChargeOf }): Promise<ReservedRun> {
  const { schedulePk, runDate, nowMs } = input;
  return command(db, async (tx): Promise<ReservedRun> => {
    if ((await getScheduleRun(tx, schedulePk, runDate)) !== undefined) return { kind: 'taken' };
    const current = await getScheduleForRun(tx, schedulePk);
    if (current === undefined || current.deleted || current.active !== 1 || current.next_run_date !== runDate) return { kind: 'taken' };
    const method = await getPaymentMethod(tx, current.merchant_id, current.payment_method_pk);
    if (method === undefined) return { kind: 'no-method' };
    // A saved check's account number is never charged as a card.
    if (method.method_type === 'check') return { kind: 'check-method', method };
    const reserved = await reserveChargeIn(tx, input.chargeOf(current, method), nowMs);
    // A card that cannot be charged any more: roll back what taking it wrote.
    if (reserved.kind === 'refused') throw new Refusal<ReservedRun>({ kind: 'card-refused', refusal: reserved });
    // The unique (schedule, run date) row: a second run of the date rolls all of this back.
    if (!(await insertScheduleRun(tx, current.pk, runDate, reserved.charge.pk, nowMs))) throw new Refusal<ReservedRun>({ kind: 'taken' });
    return { kind: 'reserved', reserved: { charge: reserved.charge, card: reserved.card } };
  });
}

/**
 * Inside the transaction that reserves a run's check charge `chargePk`: the
 * (schedule, run date) row, for the schedule as it is now (paused, deleted
 * or moved to another date since it was claimed, or the date run already:
 * false, and the reservation rolls back), as reserveScheduleRun does for a
 * card.
 */
export async function recordCheckRunIn(tx: Tx, schedulePk: number, runDate: string, chargePk: number, nowMs: number): Promise<boolean> {
  if ((await getScheduleRun(tx, schedulePk, runDate)) !== undefined) return false;
  const current = await getScheduleForRun(tx, schedulePk);
  if (current === undefined || current.deleted || current.active !== 1 || current.next_run_date !== runDate) return false;
  return insertScheduleRun(tx, schedulePk, runDate, chargePk, nowMs);
}

/** A schedule whose card is gone or unusable stops as failed, with its event, unless it changed since it was claimed. */
export function stopFailedSchedule(db: Db, input: { schedule: ScheduleRow; runDate: string; nowMs: number; views: EventViews }): Promise<void> {
  const { schedule, runDate, nowMs } = input;
  return db.write(async (tx) => {
    const stopped = await applyRunOutcome(
      tx,
      schedule.pk,
      runDate,
      { next_run_date: runDate, cycle_date: schedule.cycle_date, num_left: schedule.num_left, retries: schedule.retries, active: 0, status: 'failed' },
      schedule,
      nowMs,
    );
    if (stopped) await emitScheduleEvent(tx, input.views, 'schedule.failed', schedule.merchant_id, schedule.pk, nowMs);
  });
}

/** At most `limit` runs whose charge has its final answer but whose schedule has not moved on yet. */
export function queryFinishedRuns(db: Db, input: { limit: number }): Promise<FinishedRun[]> {
  return db.read((tx) => finishedUnappliedRuns(tx, input.limit));
}

/**
 * Moves the schedule on after a finished run (domain/recurring.ts afterRun),
 * once: false when another process applied the run first.
 */
export function applyScheduleRun(db: Db, input: { run: FinishedRun; nowMs: number; views: EventViews }): Promise<boolean> {
  const { run, nowMs } = input;
  return db.write(async (tx) => {
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
    const emit = (type: EventType) => emitScheduleEvent(tx, input.views, type, schedule.merchant_id, schedule.pk, nowMs);
    if (approved) {
      await emit('schedule.charged');
      if (change.status === 'finished') await emit('schedule.finished');
    } else if (change.status === 'failed') {
      await emit('schedule.failed');
    } else {
      await emit('schedule.declined');
    }
    return true;
  });
}

export type RunOfDate =
  | { readonly kind: 'absent' }
  | { readonly kind: 'no-run' }
  | { readonly kind: 'ran'; readonly schedule: ScheduleRow; readonly charge: ChargeRow };

/** The schedule as it is now and the charge of its run of `runDate` (absent: the schedule is not the merchant's). */
export function queryRunOfDate(db: Db, input: { merchantId: string; pk: number; runDate: string }): Promise<RunOfDate> {
  const { merchantId, pk } = input;
  return db.read(async (tx): Promise<RunOfDate> => {
    const run = await getScheduleRun(tx, pk, input.runDate);
    const schedule = await getSchedule(tx, merchantId, pk);
    if (schedule === undefined) return { kind: 'absent' };
    if (run === undefined) return { kind: 'no-run' };
    const charge = await getCharge(tx, run.charge_pk, merchantId);
    if (charge === undefined) throw new Error(`charge ${run.charge_pk} of a schedule run vanished`);
    return { kind: 'ran', schedule, charge };
  });
}
