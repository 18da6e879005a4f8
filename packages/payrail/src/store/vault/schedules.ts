// Recurring schedules of stored customers: the commands and queries of the
// schedule flows (flows/vault/schedules.ts). Another merchant's schedule,
// customer or method reads as absent. Running them is schedule-runs.ts.
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import { command, Refusal } from '../command.ts';
import { getCustomer } from '../customers.ts';
import type { Db, Tx } from '../db.ts';
import { getPaymentMethod } from '../payment-methods.ts';
import {
  countSchedules,
  deleteSchedule,
  getSchedule,
  insertSchedule,
  listCustomerSchedules,
  listMerchantSchedules,
  listScheduleRuns,
  updateSchedule,
  type NewSchedule,
  type RunHistoryRow,
  type ScheduleRow,
  type ScheduleUpdate,
} from '../schedules.ts';
import type { Page } from './customers.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';

/** A payment method named for a schedule: not the merchant's, or another customer's. */
export type MethodRefusal =
  | { readonly kind: 'no-method'; readonly methodPk: number }
  | { readonly kind: 'not-customers-method'; readonly methodPk: number; readonly customerPk: number };

export type CreateScheduleRefusal = { readonly kind: 'no-customer' } | MethodRefusal | { readonly kind: 'too-many' };

async function methodRefusal(tx: Tx, merchantId: string, customerPk: number, methodPk: number): Promise<MethodRefusal | null> {
  const method = await getPaymentMethod(tx, merchantId, methodPk);
  if (method === undefined) return { kind: 'no-method', methodPk };
  if (method.customer_pk !== customerPk) return { kind: 'not-customers-method', methodPk, customerPk };
  return null;
}

/** Inserts the schedule under the key (if any), when its customer and method are the merchant's and the count bound allows. */
export function createScheduleOnce<V>(
  db: Db,
  input: { key: CreateKey | null; schedule: NewSchedule; schedulesMax: number; nowMs: number; render: (row: ScheduleRow) => V },
): Promise<KeyedAnswer<V> | CreateScheduleRefusal> {
  const { merchant_id: merchantId, customer_pk: customerPk } = input.schedule;
  return command(db, (tx) =>
    createUnderKey(tx, input.key, async () => {
      if ((await getCustomer(tx, merchantId, customerPk)) === undefined) throw new Refusal({ kind: 'no-customer' });
      const refusal = await methodRefusal(tx, merchantId, customerPk, input.schedule.payment_method_pk);
      if (refusal !== null) throw new Refusal(refusal);
      if ((await countSchedules(tx, customerPk)) >= input.schedulesMax) throw new Refusal({ kind: 'too-many' });
      return input.render(await insertSchedule(tx, input.schedule, input.nowMs));
    }),
  );
}

export function querySchedule(db: Db, input: { merchantId: string; pk: number }): Promise<ScheduleRow | undefined> {
  return db.read((tx) => getSchedule(tx, input.merchantId, input.pk));
}

/** The merchant's schedules, whoever's they are. */
export function queryMerchantSchedules(db: Db, input: { merchantId: string; page: Page }): Promise<ScheduleRow[]> {
  return db.read((tx) => listMerchantSchedules(tx, input.merchantId, input.page));
}

/** The customer's schedules; undefined when the customer is not the merchant's. */
export function queryCustomerSchedules(db: Db, input: { merchantId: string; customerPk: number; page: Page }): Promise<ScheduleRow[] | undefined> {
  return db.read(async (tx) => {
    if ((await getCustomer(tx, input.merchantId, input.customerPk)) === undefined) return undefined;
    return listCustomerSchedules(tx, input.merchantId, input.customerPk, input.page);
  });
}

export type EditScheduleAnswer =
  | { readonly kind: 'changed'; readonly row: ScheduleRow }
  | { readonly kind: 'absent' }
  | MethodRefusal
  | { readonly kind: 'method-deleted'; readonly methodPk: number }
  | { readonly kind: 'finished-needs-num-left' };

/**
 * Changes the schedule as it is when read: a new method must be its
 * customer's; resuming one whose card was deleted needs a new method, and
 * resuming a finished one a num_left (0 would mean unlimited).
 */
/** Changes a schedule; `audit` (a pause or a resume) is appended in the same transaction when it changed. */
export function editSchedule(
  db: Db,
  input: { merchantId: string; pk: number; fields: ScheduleUpdate; nowMs: number; audit?: AuditNote | undefined },
): Promise<EditScheduleAnswer> {
  const { merchantId, pk, fields } = input;
  return db.write(async (tx): Promise<EditScheduleAnswer> => {
    const current = await getSchedule(tx, merchantId, pk);
    if (current === undefined) return { kind: 'absent' };
    if (fields.payment_method_pk !== undefined) {
      const refusal = await methodRefusal(tx, merchantId, current.customer_pk, fields.payment_method_pk);
      if (refusal !== null) return refusal;
    } else if (fields.active === 1 && (await getPaymentMethod(tx, merchantId, current.payment_method_pk)) === undefined) {
      return { kind: 'method-deleted', methodPk: current.payment_method_pk };
    }
    if (current.status === 'finished' && fields.active === 1 && fields.num_left === undefined) return { kind: 'finished-needs-num-left' };
    const updated = await updateSchedule(tx, merchantId, pk, fields, input.nowMs);
    if (updated === undefined) return { kind: 'absent' };
    if (input.audit !== undefined) await appendAuditNote(tx, input.audit);
    return { kind: 'changed', row: updated };
  });
}

/** Deletes the schedule; false when it is not the merchant's. */
export function eraseSchedule(db: Db, input: { merchantId: string; pk: number; nowMs: number }): Promise<boolean> {
  return db.write((tx) => deleteSchedule(tx, input.merchantId, input.pk, input.nowMs));
}

/** The schedule and its latest runs, newest first; undefined when the schedule is not the merchant's. */
export function queryScheduleRuns(
  db: Db,
  input: { merchantId: string; pk: number; limit: number },
): Promise<{ schedule: ScheduleRow; runs: RunHistoryRow[] } | undefined> {
  return db.read(async (tx) => {
    const schedule = await getSchedule(tx, input.merchantId, input.pk);
    if (schedule === undefined) return undefined;
    return { schedule, runs: await listScheduleRuns(tx, input.pk, input.limit) };
  });
}
