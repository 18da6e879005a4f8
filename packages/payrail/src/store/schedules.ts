// Recurring schedules and their runs (docs/api-decisions.md section 15).
// A run is claimed in two steps, both set-based and bounded: a batch of due
// schedules is leased to one worker (so two workers do not both try), and
// each run date is recorded by inserting its (schedule, run date) row in the
// transaction that reserves the run's charge: the primary key refuses a
// second one, whatever the leases did (a lapsed lease, a crashed worker).
import { anchorDayOf, type Frequency, type ScheduleStatus } from '../domain/recurring.ts';
import type { Tx } from './db.ts';

export interface ScheduleRow {
  pk: number;
  merchant_id: string;
  customer_pk: number;
  payment_method_pk: number;
  title: string;
  receipt_email: string | null;
  amount_cents: number;
  frequency: Frequency;
  next_run_date: string;
  cycle_date: string;
  anchor_day: number;
  num_left: number;
  active: number;
  status: ScheduleStatus;
  retries: number;
  /** The latest date a run was made for (null before the first). */
  prev_run_date: string | null;
  /** Runs made (each one transaction). */
  transaction_count: number;
  /** The source runs are charged under (use_this_source_key); null: the source that saved the card. */
  run_source_id: string | null;
  created_at_ms: number;
}

const COLUMNS =
  'pk, merchant_id, customer_pk, payment_method_pk, title, receipt_email, amount_cents, frequency, next_run_date, cycle_date, anchor_day, num_left, active, status, retries, prev_run_date, transaction_count, run_source_id, created_at_ms';
const LIVE = 'deleted_at_ms IS NULL';

function rowOf(row: ScheduleRow): ScheduleRow {
  return {
    ...row,
    pk: Number(row.pk),
    customer_pk: Number(row.customer_pk),
    payment_method_pk: Number(row.payment_method_pk),
    amount_cents: Number(row.amount_cents),
    num_left: Number(row.num_left),
    active: Number(row.active),
    retries: Number(row.retries),
    transaction_count: Number(row.transaction_count),
    anchor_day: Number(row.anchor_day),
    created_at_ms: Number(row.created_at_ms),
  };
}

export type NewSchedule = Pick<
  ScheduleRow,
  | 'merchant_id'
  | 'customer_pk'
  | 'payment_method_pk'
  | 'title'
  | 'receipt_email'
  | 'amount_cents'
  | 'frequency'
  | 'next_run_date'
  | 'num_left'
  | 'active'
  | 'run_source_id'
>;

export async function insertSchedule(tx: Tx, schedule: NewSchedule, nowMs: number): Promise<ScheduleRow> {
  const row = await tx.get<ScheduleRow>(
    `INSERT INTO recurring_schedules (merchant_id, customer_pk, payment_method_pk, title, receipt_email, amount_cents, frequency, next_run_date, cycle_date, anchor_day, num_left, active, status, run_source_id, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?) RETURNING ${COLUMNS}`,
    [
      schedule.merchant_id,
      schedule.customer_pk,
      schedule.payment_method_pk,
      schedule.title,
      schedule.receipt_email,
      schedule.amount_cents,
      schedule.frequency,
      schedule.next_run_date,
      schedule.next_run_date,
      anchorDayOf(schedule.next_run_date),
      schedule.num_left,
      schedule.active,
      schedule.run_source_id,
      nowMs,
      nowMs,
    ],
  );
  if (row === undefined) throw new Error('INSERT INTO recurring_schedules returned nothing');
  return rowOf(row);
}

export async function getSchedule(tx: Tx, merchantId: string, pk: number): Promise<ScheduleRow | undefined> {
  const row = await tx.get<ScheduleRow>(`SELECT ${COLUMNS} FROM recurring_schedules WHERE pk = ? AND merchant_id = ? AND ${LIVE}`, [pk, merchantId]);
  return row === undefined ? undefined : rowOf(row);
}

export async function listCustomerSchedules(
  tx: Tx,
  merchantId: string,
  customerPk: number,
  page: { limit: number; offset: number; descending?: boolean },
): Promise<ScheduleRow[]> {
  const rows = await tx.all<ScheduleRow>(
    `SELECT ${COLUMNS} FROM recurring_schedules WHERE customer_pk = ? AND merchant_id = ? AND ${LIVE} ORDER BY pk ${page.descending === true ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
    [customerPk, merchantId, page.limit, page.offset],
  );
  return rows.map(rowOf);
}

/** The merchant's schedules, oldest first or newest first when `descending`. */
export async function listMerchantSchedules(tx: Tx, merchantId: string, page: { limit: number; offset: number; descending?: boolean }): Promise<ScheduleRow[]> {
  const rows = await tx.all<ScheduleRow>(
    `SELECT ${COLUMNS} FROM recurring_schedules WHERE merchant_id = ? AND ${LIVE} ORDER BY pk ${page.descending === true ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
    [merchantId, page.limit, page.offset],
  );
  return rows.map(rowOf);
}

/** The schedules charging a payment method, oldest first (at most `limit`). */
export async function listMethodSchedules(tx: Tx, merchantId: string, methodPk: number, limit: number): Promise<ScheduleRow[]> {
  const rows = await tx.all<ScheduleRow>(
    `SELECT ${COLUMNS} FROM recurring_schedules WHERE payment_method_pk = ? AND merchant_id = ? AND ${LIVE} ORDER BY pk LIMIT ?`,
    [methodPk, merchantId, limit],
  );
  return rows.map(rowOf);
}

/** Whether an active schedule of the customer or charging the method exists (what accept.blue's deletes refuse on). */
export async function hasActiveSchedules(tx: Tx, merchantId: string, of: { customerPk: number } | { methodPk: number }): Promise<boolean> {
  const [column, value] = 'customerPk' in of ? ['customer_pk', of.customerPk] : ['payment_method_pk', of.methodPk];
  const row = await tx.get(`SELECT 1 AS one FROM recurring_schedules WHERE ${column} = ? AND merchant_id = ? AND active = 1 AND ${LIVE} LIMIT 1`, [
    value,
    merchantId,
  ]);
  return row !== undefined;
}

export interface ScheduleUpdate {
  title?: string;
  receipt_email?: string;
  amount_cents?: number;
  frequency?: Frequency;
  /** A new next run date also starts a new cycle there. */
  next_run_date?: string;
  payment_method_pk?: number;
  num_left?: number;
  /** Resuming a schedule that declined or failed starts it afresh. */
  active?: number;
}

export async function updateSchedule(tx: Tx, merchantId: string, pk: number, fields: ScheduleUpdate, nowMs: number): Promise<ScheduleRow | undefined> {
  const sets = new Map<string, string | number>();
  for (const [name, value] of Object.entries(fields) as Array<[keyof ScheduleUpdate, string | number | undefined]>) {
    if (value !== undefined) sets.set(name, value);
  }
  if (fields.next_run_date !== undefined) {
    sets.set('cycle_date', fields.next_run_date);
    sets.set('anchor_day', anchorDayOf(fields.next_run_date));
    sets.set('retries', 0);
  }
  if (fields.active === 1) {
    sets.set('status', 'active');
    sets.set('retries', 0);
  }
  sets.set('updated_at_ms', nowMs);
  const row = await tx.get<ScheduleRow>(
    `UPDATE recurring_schedules SET ${[...sets.keys()].map((name) => `${name} = ?`).join(', ')} WHERE pk = ? AND merchant_id = ? AND ${LIVE} RETURNING ${COLUMNS}`,
    [...sets.values(), pk, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

export async function deleteSchedule(tx: Tx, merchantId: string, pk: number, nowMs: number): Promise<boolean> {
  const result = await tx.run(`UPDATE recurring_schedules SET deleted_at_ms = ?, active = 0, updated_at_ms = ? WHERE pk = ? AND merchant_id = ? AND ${LIVE}`, [
    nowMs,
    nowMs,
    pk,
    merchantId,
  ]);
  return result.changes === 1;
}

/** Stops every schedule of a customer or of a payment method being deleted. */
export async function stopSchedulesOf(tx: Tx, merchantId: string, of: { customerPk: number } | { methodPk: number }, nowMs: number): Promise<number> {
  const [column, value] = 'customerPk' in of ? ['customer_pk', of.customerPk] : ['payment_method_pk', of.methodPk];
  const result = await tx.run(
    `UPDATE recurring_schedules SET active = 0, updated_at_ms = ? WHERE ${column} = ? AND merchant_id = ? AND active = 1 AND ${LIVE}`,
    [nowMs, value, merchantId],
  );
  return result.changes;
}

const DUE_SQL = `active = 1 AND ${LIVE} AND next_run_date <= ? AND lease_until_ms <= ?
    AND NOT EXISTS (SELECT 1 FROM schedule_runs r WHERE r.schedule_pk = recurring_schedules.pk AND r.run_date = recurring_schedules.next_run_date)`;

/** Whether any schedule is due (a read, so an idle worker round writes nothing). */
export async function hasDueSchedules(tx: Tx, today: string, nowMs: number): Promise<boolean> {
  return (await tx.get(`SELECT 1 AS one FROM recurring_schedules WHERE ${DUE_SQL} LIMIT 1`, [today, nowMs])) !== undefined;
}

/**
 * Leases at most `limit` schedules whose next run date has come (`today`,
 * UTC) and whose run of that date is not recorded yet, to one worker until
 * `leaseUntilMs`, in one statement: of concurrent workers each schedule goes
 * to one (the WHERE is re-checked on a row another claim just changed).
 */
export async function claimDueSchedules(tx: Tx, today: string, nowMs: number, leaseUntilMs: number, limit: number): Promise<ScheduleRow[]> {
  const due = DUE_SQL;
  const rows = await tx.all<ScheduleRow>(
    `UPDATE recurring_schedules SET lease_until_ms = ?
     WHERE ${due} AND pk IN (SELECT pk FROM recurring_schedules WHERE ${due} ORDER BY next_run_date, pk LIMIT ?)
     RETURNING ${COLUMNS}`,
    [leaseUntilMs, today, nowMs, today, nowMs, limit],
  );
  return rows.map(rowOf);
}

/**
 * Records the run of `runDate` for its charge, and counts it on the schedule
 * (prev_run_date, transaction_count); false when that date already has a run
 * (nothing written).
 */
export async function insertScheduleRun(tx: Tx, schedulePk: number, runDate: string, chargePk: number, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    'INSERT INTO schedule_runs (schedule_pk, run_date, charge_pk, created_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT (schedule_pk, run_date) DO NOTHING',
    [schedulePk, runDate, chargePk, nowMs],
  );
  if (result.changes !== 1) return false;
  await tx.run('UPDATE recurring_schedules SET prev_run_date = ?, transaction_count = transaction_count + 1 WHERE pk = ?', [runDate, schedulePk]);
  return true;
}

export interface FinishedRun {
  schedule_pk: number;
  run_date: string;
  charge_pk: number;
  charge_status: 'approved' | 'declined' | 'failed';
}

/** At most `limit` runs whose charge has its final answer but whose schedule has not moved on yet. */
export async function finishedUnappliedRuns(tx: Tx, limit: number): Promise<FinishedRun[]> {
  const rows = await tx.all<FinishedRun>(
    `SELECT r.schedule_pk, r.run_date, r.charge_pk, c.status AS charge_status FROM schedule_runs r JOIN charges c ON c.pk = r.charge_pk
     WHERE r.applied = 0 AND c.status <> 'pending' ORDER BY r.charge_pk LIMIT ?`,
    [limit],
  );
  return rows.map((row) => ({ ...row, schedule_pk: Number(row.schedule_pk), charge_pk: Number(row.charge_pk) }));
}

/** Marks the run applied; false when another process applied it first (then the caller changes nothing). */
export async function markRunApplied(tx: Tx, schedulePk: number, runDate: string): Promise<boolean> {
  const result = await tx.run('UPDATE schedule_runs SET applied = 1 WHERE schedule_pk = ? AND run_date = ? AND applied = 0', [schedulePk, runDate]);
  return result.changes === 1;
}

/** The schedule as a run's outcome leaves it; applies only while it is as the change was computed from (an edit since wins). */
export async function applyRunOutcome(
  tx: Tx,
  schedulePk: number,
  runDate: string,
  change: { next_run_date: string; cycle_date: string; num_left: number; retries: number; active: number; status: ScheduleStatus },
  expected: { cycle_date: string; num_left: number; retries: number },
  nowMs: number,
): Promise<boolean> {
  // Guarded by the state the change was computed from, so an edit made meanwhile wins over it.
  const result = await tx.run(
    `UPDATE recurring_schedules SET next_run_date = ?, cycle_date = ?, num_left = ?, retries = ?, active = ?, status = ?, lease_until_ms = 0, updated_at_ms = ?
     WHERE pk = ? AND next_run_date = ? AND cycle_date = ? AND num_left = ? AND retries = ?`,
    [
      change.next_run_date,
      change.cycle_date,
      change.num_left,
      change.retries,
      change.active,
      change.status,
      nowMs,
      schedulePk,
      runDate,
      expected.cycle_date,
      expected.num_left,
      expected.retries,
    ],
  );
  return result.changes === 1;
}

export interface RunHistoryRow {
  run_date: string;
  charge_pk: number;
  charge_status: string;
  amount_cents: number;
  applied: number;
  created_at_ms: number;
}

/** A schedule's runs, newest date first, with their charge's answer. */
export async function listScheduleRuns(tx: Tx, schedulePk: number, limit: number): Promise<RunHistoryRow[]> {
  const rows = await tx.all<RunHistoryRow>(
    `SELECT r.run_date, r.charge_pk, c.status AS charge_status, c.amount_cents, r.applied, r.created_at_ms
     FROM schedule_runs r JOIN charges c ON c.pk = r.charge_pk WHERE r.schedule_pk = ? ORDER BY r.run_date DESC LIMIT ?`,
    [schedulePk, limit],
  );
  return rows.map((row) => ({
    ...row,
    charge_pk: Number(row.charge_pk),
    amount_cents: Number(row.amount_cents),
    applied: Number(row.applied),
    created_at_ms: Number(row.created_at_ms),
  }));
}

/** A schedule by id whoever's it is, deleted ones included (for applying a run's outcome). */
export async function getScheduleForRun(tx: Tx, pk: number): Promise<(ScheduleRow & { deleted: boolean }) | undefined> {
  const row = await tx.get<ScheduleRow & { deleted_at_ms: number | null }>(`SELECT ${COLUMNS}, deleted_at_ms FROM recurring_schedules WHERE pk = ?`, [pk]);
  if (row === undefined) return undefined;
  const { deleted_at_ms, ...rest } = row;
  return { ...rowOf(rest), deleted: deleted_at_ms !== null };
}

/** The run of a date, if any. */
export async function getScheduleRun(tx: Tx, schedulePk: number, runDate: string): Promise<{ charge_pk: number; applied: number } | undefined> {
  const row = await tx.get<{ charge_pk: number; applied: number }>('SELECT charge_pk, applied FROM schedule_runs WHERE schedule_pk = ? AND run_date = ?', [
    schedulePk,
    runDate,
  ]);
  return row === undefined ? undefined : { charge_pk: Number(row.charge_pk), applied: Number(row.applied) };
}

/** Live schedules of a customer (to bound how many one customer may have). */
export async function countSchedules(tx: Tx, customerPk: number): Promise<number> {
  const row = await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM recurring_schedules WHERE customer_pk = ? AND ${LIVE}`, [customerPk]);
  return Number(row?.n ?? 0);
}
