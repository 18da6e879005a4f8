// Recurring schedules of stored customers (docs/api-decisions.md section 15):
// create, read, list, update, delete, and their transactions. Running them
// is schedule-runs.ts. Merchant-scoped: another merchant's schedule,
// customer or method reads as absent (not_found); a method of another
// customer of the same merchant, a frequency we do not know or a next run
// date in the past is a 400 naming the field, and nothing changes.
import type { AuditActor } from '../../domain/audit.ts';
import { type AuditNote, audited } from '../operations/audit.ts';
import { parseDollarNumber, parseDollarString } from '../../domain/money.ts';
import { addDays, isFrequency, parseRunDate, runDateOf, type Frequency } from '../../domain/recurring.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { fail } from '../../errors.ts';
import type { ScheduleUpdate } from '../../store/schedules.ts';
import {
  createScheduleOnce,
  editSchedule,
  eraseSchedule,
  queryCustomerSchedules,
  queryMerchantSchedules,
  querySchedule,
  queryScheduleRuns,
  type CreateScheduleRefusal,
  type EditScheduleAnswer,
  type MethodRefusal,
} from '../../store/vault/schedules.ts';
import { CHARGE_AMOUNT_CENTS_MAX, CHARGE_AMOUNT_CENTS_MIN } from '../payin/charge.ts';
import { type TransactionListQuery, type TransactionReader, transactionListJson } from '../payin/transactions.ts';
import { answered, type Created, createOnce } from './keyed-create.ts';
import { renderSchedule, type ScheduleView } from './schedule-view.ts';
import { acceptBlueSchedule, type AcceptBlueSchedule } from './acceptblue-views.ts';
import { queryMethodSchedules } from '../../store/vault/payment-methods.ts';
import type { ScheduleRow } from '../../store/schedules.ts';
import { idOf, pageOf, STORED_LIST_LIMIT_MAX, type Owner, type PageQuery } from './stored-common.ts';
import type { VaultContext } from './vault-context.ts';

export { renderSchedule, type ScheduleView } from './schedule-view.ts';

/** Longest schedule title. */
export const SCHEDULE_TITLE_LENGTH_MAX = 255;
/** The most runs a schedule may be told to make (0 = unlimited). */
export const SCHEDULE_NUM_LEFT_MAX = 10_000;
/** Live schedules per customer, at most (a bound: racing creates may pass it by a few). */
export const SCHEDULES_PER_CUSTOMER_MAX = 50;
/** Runs shown in a schedule's history in the panel. */
export const SCHEDULE_RUNS_SHOWN_MAX = 50;

export interface ScheduleInput {
  readonly title?: string | undefined;
  readonly receipt_email?: string | undefined;
  readonly amount?: number | undefined;
  readonly frequency?: string | undefined;
  readonly next_run_date?: string | undefined;
  readonly num_left?: number | undefined;
  readonly payment_method_id?: number | undefined;
  readonly active?: boolean | undefined;
}

/** A schedule as the caller's dialect shows it (accept.blue's adds prev_run_date and transaction_count). */
export function scheduleViewFor(dialect: WireDialect | undefined): (row: ScheduleRow) => ScheduleView | AcceptBlueSchedule {
  return dialect === 'acceptblue' ? acceptBlueSchedule : renderSchedule;
}

function amountCentsOf(amount: number, amountText: string | null): number {
  if (!(amount > 0)) fail('invalid_amount', 'amount must be greater than zero');
  const parsed = amountText !== null ? parseDollarString(amountText) : parseDollarNumber(amount);
  if (!parsed.ok) fail('invalid_amount', `amount ${parsed.reason}`);
  if (parsed.cents < CHARGE_AMOUNT_CENTS_MIN) fail('invalid_amount', 'amount must be at least 0.50');
  if (parsed.cents > CHARGE_AMOUNT_CENTS_MAX) fail('invalid_amount', 'amount must be at most 100000.00');
  return parsed.cents;
}

/** Checks what the schema cannot, with the clock: the date is a real day, today (UTC) or later. */
function checkNextRunDate(text: string, nowMs: number): string {
  const dayMs = parseRunDate(text);
  if (dayMs === null) fail('invalid_request', 'next_run_date must be a date written YYYY-MM-DD');
  if (text < runDateOf(nowMs)) fail('invalid_request', `next_run_date must be today (${runDateOf(nowMs)}, UTC) or later`);
  return text;
}

function checkFields(input: ScheduleInput, amountText: string | null, nowMs: number): ScheduleUpdate {
  if (input.frequency !== undefined && !isFrequency(input.frequency)) {
    fail('invalid_request', 'frequency must be one of daily, weekly, biweekly, monthly, bimonthly, quarterly, biannually, annually');
  }
  if (input.num_left !== undefined && (!Number.isInteger(input.num_left) || input.num_left < 0 || input.num_left > SCHEDULE_NUM_LEFT_MAX)) {
    fail('invalid_request', `num_left must be an integer from 0 (unlimited) to ${SCHEDULE_NUM_LEFT_MAX}`);
  }
  return {
    title: input.title,
    receipt_email: input.receipt_email,
    amount_cents: input.amount === undefined ? undefined : amountCentsOf(input.amount, amountText),
    frequency: input.frequency as Frequency | undefined,
    next_run_date: input.next_run_date === undefined ? undefined : checkNextRunDate(input.next_run_date, nowMs),
    num_left: input.num_left,
    active: input.active === undefined ? undefined : input.active ? 1 : 0,
  };
}

/** A method named for a schedule must be the merchant's (else not_found) and the schedule's customer's (else 400 naming the field). */
function refuseMethod(refusal: MethodRefusal): never {
  if (refusal.kind === 'no-method') fail('not_found', `payment method ${refusal.methodPk} not found`);
  fail('invalid_request', `payment_method_id ${refusal.methodPk} is not a payment method of customer ${refusal.customerPk}`);
}

function refuseCreate(refusal: CreateScheduleRefusal, customerPk: number): never {
  switch (refusal.kind) {
    case 'no-customer':
      return fail('not_found', `customer ${customerPk} not found`);
    case 'too-many':
      return fail('invalid_request', `a customer may have at most ${SCHEDULES_PER_CUSTOMER_MAX} recurring schedules; delete one first`);
    default:
      return refuseMethod(refusal);
  }
}

/**
 * The first run date of a schedule created without one: tomorrow, as
 * accept.blue defaults it, in the days schedules run by (UTC, section 15),
 * so the first run is never the day the schedule is made.
 */
export function defaultNextRunDate(nowMs: number): string {
  return addDays(runDateOf(nowMs), 1);
}

export async function createSchedule(
  vault: VaultContext,
  owner: Owner,
  customerId: string,
  input: ScheduleInput & { title: string; amount: number; frequency: string; payment_method_id: number; use_this_source_key?: boolean | undefined },
  amountText: string | null,
  idempotencyKey: string | null = null,
): Promise<Created<ScheduleView | AcceptBlueSchedule>> {
  const customerPk = idOf('customer', customerId);
  const nowMs = vault.clock.nowMs();
  const fields = checkFields({ ...input, next_run_date: input.next_run_date ?? defaultNextRunDate(nowMs) }, amountText, nowMs);
  // The amount as written (12.5 and 12.50 are one body), with the customer the path names.
  const idem = { key: idempotencyKey, operation: 'create-schedule', body: { customer: customerPk, ...input, amount: fields.amount_cents } };
  return createOnce(vault.clock, owner, idem, async (key) => {
    const schedule = {
      merchant_id: owner.merchantId,
      customer_pk: customerPk,
      payment_method_pk: input.payment_method_id,
      title: input.title,
      receipt_email: input.receipt_email ?? null,
      amount_cents: fields.amount_cents!,
      frequency: fields.frequency!,
      next_run_date: fields.next_run_date!,
      num_left: fields.num_left ?? 0,
      active: fields.active ?? 1,
      // accept.blue's use_this_source_key: runs are charged under the source creating the schedule, not the card's.
      run_source_id: input.use_this_source_key === true ? owner.sourceId : null,
    };
    const answer = await createScheduleOnce(vault.db, {
      key,
      schedule,
      schedulesMax: SCHEDULES_PER_CUSTOMER_MAX,
      nowMs: vault.clock.nowMs(),
      render: scheduleViewFor(owner.wireDialect),
    });
    return answered(answer, (refusal) => refuseCreate(refusal, customerPk));
  });
}

export async function readSchedule(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  id: string,
): Promise<ScheduleView | AcceptBlueSchedule> {
  const pk = idOf('recurring schedule', id);
  const row = await querySchedule(vault.db, { merchantId: owner.merchantId, pk });
  if (row === undefined) fail('not_found', `recurring schedule ${pk} not found`);
  return scheduleViewFor(owner.wireDialect)(row);
}

/** Every schedule of the merchant (accept.blue's GET /recurring-schedules). */
export async function listMerchantSchedules(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  query: PageQuery,
): Promise<Array<ScheduleView | AcceptBlueSchedule>> {
  const rows = await queryMerchantSchedules(vault.db, { merchantId: owner.merchantId, page: pageOf(query) });
  return rows.map(scheduleViewFor(owner.wireDialect));
}

/**
 * The schedules charging a payment method, oldest first (an array: the spec
 * declares one object, which cannot hold a method's several schedules).
 * A customer has at most SCHEDULES_PER_CUSTOMER_MAX, so one page holds them.
 */
export async function listMethodSchedules(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  id: string,
): Promise<Array<ScheduleView | AcceptBlueSchedule>> {
  const pk = idOf('payment method', id);
  const rows = await queryMethodSchedules(vault.db, { merchantId: owner.merchantId, pk, limit: Math.max(SCHEDULES_PER_CUSTOMER_MAX, STORED_LIST_LIMIT_MAX) });
  if (rows === undefined) fail('not_found', `payment method ${pk} not found`);
  return rows.map(scheduleViewFor(owner.wireDialect));
}

export async function listSchedulesOfCustomer(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  customerId: string,
  query: PageQuery,
): Promise<Array<ScheduleView | AcceptBlueSchedule>> {
  const customerPk = idOf('customer', customerId);
  const page = pageOf(query);
  const rows = await queryCustomerSchedules(vault.db, { merchantId: owner.merchantId, customerPk, page });
  if (rows === undefined) fail('not_found', `customer ${customerPk} not found`);
  return rows.map(scheduleViewFor(owner.wireDialect));
}

function refuseChange(answer: Exclude<EditScheduleAnswer, { kind: 'changed' }>, pk: number): never {
  switch (answer.kind) {
    case 'absent':
      return fail('not_found', `recurring schedule ${pk} not found`);
    case 'method-deleted':
      // Its card was deleted (which stopped it): resuming it alone would only fail at its next run.
      return fail('invalid_request', `payment method ${answer.methodPk} of recurring schedule ${pk} was deleted; give a payment_method_id to resume it`);
    case 'finished-needs-num-left':
      // A finished schedule has no runs left; 0 would mean unlimited, so it must be told how many.
      return fail('invalid_request', 'num_left is required to resume a finished schedule');
    default:
      return refuseMethod(answer);
  }
}

export async function changeSchedule(
  vault: VaultContext,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  id: string,
  input: ScheduleInput,
  amountText: string | null,
  /** Who changes it: a pause or a resume (`active` given) is audited, from the API and the panel alike. */
  by: AuditActor,
): Promise<ScheduleView | AcceptBlueSchedule> {
  const pk = idOf('recurring schedule', id);
  if (input.active === undefined) return changeScheduleAs(vault, owner, pk, input, amountText, undefined);
  const event = { action: input.active ? 'schedule.resume' : 'schedule.pause', target: String(pk), merchantId: owner.merchantId } as const;
  return audited(vault, by, event, (audit) => changeScheduleAs(vault, owner, pk, input, amountText, audit));
}

async function changeScheduleAs(
  vault: VaultContext,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  pk: number,
  input: ScheduleInput,
  amountText: string | null,
  audit: AuditNote | undefined,
): Promise<ScheduleView | AcceptBlueSchedule> {
  const fields = checkFields(input, amountText, vault.clock.nowMs());
  const answer = await editSchedule(vault.db, {
    merchantId: owner.merchantId,
    pk,
    fields: { ...fields, payment_method_pk: input.payment_method_id },
    nowMs: vault.clock.nowMs(),
    audit,
  });
  if (answer.kind !== 'changed') return refuseChange(answer, pk);
  return scheduleViewFor(owner.wireDialect)(answer.row);
}

export async function removeSchedule(vault: VaultContext, owner: Owner, id: string): Promise<void> {
  const pk = idOf('recurring schedule', id);
  const deleted = await eraseSchedule(vault.db, { merchantId: owner.merchantId, pk, nowMs: vault.clock.nowMs() });
  if (!deleted) fail('not_found', `recurring schedule ${pk} not found`);
}

/** The schedule's transactions, each as GET /api/v2/transactions/:id shows it in the reader's dialect (JSON array text). */
export async function scheduleTransactionsJson(
  vault: Pick<VaultContext, 'db'>,
  reader: TransactionReader,
  id: string,
  query: TransactionListQuery,
): Promise<string> {
  return transactionListJson(vault, reader, { of: 'schedule', schedulePk: idOf('recurring schedule', id) }, query);
}

export interface ScheduleRunView {
  run_date: string;
  reference_number: number;
  /** The run's charge as the processor answered: approved, pending, declined or failed. */
  charge_status: string;
  amount_cents: number;
  /** Whether the schedule has moved on after this run. */
  applied: boolean;
  created_at_ms: number;
}

/** A schedule's run history, newest first (the panel shows it). */
export async function scheduleRunHistory(
  vault: Pick<VaultContext, 'db'>,
  merchantId: string,
  id: string,
): Promise<{ schedule: ScheduleView; runs: ScheduleRunView[] }> {
  const pk = idOf('recurring schedule', id);
  const found = await queryScheduleRuns(vault.db, { merchantId, pk, limit: SCHEDULE_RUNS_SHOWN_MAX });
  if (found === undefined) fail('not_found', `recurring schedule ${pk} not found`);
  return {
    schedule: renderSchedule(found.schedule),
    runs: found.runs.map((row) => ({
      run_date: row.run_date,
      reference_number: row.charge_pk,
      charge_status: row.charge_status,
      amount_cents: row.amount_cents,
      applied: row.applied === 1,
      created_at_ms: row.created_at_ms,
    })),
  };
}
