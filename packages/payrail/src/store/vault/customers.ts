// Stored customers: the commands and queries of the customer flows
// (flows/vault/customers.ts). Another merchant's customer reads as absent.
import { listChargesOf, type ChargeRow } from '../charges.ts';
import { command, Refusal } from '../command.ts';
import {
  deleteCustomer,
  getCustomer,
  insertCustomer,
  listCustomers,
  updateCustomer,
  type CustomerFields,
  type CustomerFilters,
  type CustomerRow,
} from '../customers.ts';
import type { Db } from '../db.ts';
import { deleteCustomerPaymentMethods, listPaymentMethods, type PaymentMethodRow } from '../payment-methods.ts';
import { hasActiveSchedules, listCustomerSchedules, stopSchedulesOf, type ScheduleRow } from '../schedules.ts';
import { createUnderKey, type CreateKey, type KeyedAnswer } from './keyed-create.ts';

export interface Page {
  readonly limit: number;
  readonly offset: number;
  /** Newest first (accept.blue's `order=desc`); oldest first otherwise. */
  readonly descending?: boolean;
}

/** Inserts the customer under the key (if any); its reply is `render` of the row. */
export async function createCustomerOnce<V>(
  db: Db,
  input: { key: CreateKey | null; merchantId: string; fields: CustomerFields; nowMs: number; render: (row: CustomerRow) => V },
): Promise<KeyedAnswer<V>> {
  return db.write((tx) => createUnderKey(tx, input.key, async () => input.render(await insertCustomer(tx, input.merchantId, input.fields, input.nowMs))));
}

export function queryCustomers(db: Db, input: { merchantId: string; filters: CustomerFilters; page: Page }): Promise<CustomerRow[]> {
  return db.read((tx) => listCustomers(tx, input.merchantId, input.filters, input.page));
}

export function queryCustomer(db: Db, input: { merchantId: string; pk: number }): Promise<CustomerRow | undefined> {
  return db.read((tx) => getCustomer(tx, input.merchantId, input.pk));
}

/** The updated customer, or undefined when it is not the merchant's (nothing changed). */
export function editCustomer(
  db: Db,
  input: { merchantId: string; pk: number; fields: Partial<CustomerFields>; nowMs: number },
): Promise<CustomerRow | undefined> {
  return db.write((tx) => updateCustomer(tx, input.merchantId, input.pk, input.fields, input.nowMs));
}

/** What a customer delete did: deleted, not the merchant's, or refused while an active schedule names it. */
export type EraseAnswer = 'deleted' | 'absent' | 'scheduled';

/**
 * Deletes the customer, erases its saved cards and stops its schedules;
 * with `refuseWhenScheduled` (accept.blue's 409) a customer with an active
 * schedule is not deleted. Nothing changes unless it answers 'deleted'.
 */
export function eraseCustomer(db: Db, input: { merchantId: string; pk: number; nowMs: number; refuseWhenScheduled: boolean }): Promise<EraseAnswer> {
  return command(db, async (tx): Promise<EraseAnswer> => {
    if (input.refuseWhenScheduled && (await hasActiveSchedules(tx, input.merchantId, { customerPk: input.pk }))) {
      return (await getCustomer(tx, input.merchantId, input.pk)) === undefined ? 'absent' : 'scheduled';
    }
    if (!(await deleteCustomer(tx, input.merchantId, input.pk, input.nowMs))) throw new Refusal<EraseAnswer>('absent');
    await deleteCustomerPaymentMethods(tx, input.merchantId, input.pk, input.nowMs);
    await stopSchedulesOf(tx, input.merchantId, { customerPk: input.pk }, input.nowMs);
    return 'deleted';
  });
}

export interface CustomerPanelRows {
  readonly customer: CustomerRow;
  readonly methods: PaymentMethodRow[];
  readonly schedules: ScheduleRow[];
  readonly charges: ChargeRow[];
}

/** What a customer's panel page shows, read together; undefined when the customer is not the merchant's. */
export function queryCustomerPanel(
  db: Db,
  input: { merchantId: string; pk: number; page: Page; chargesShown: number },
): Promise<CustomerPanelRows | undefined> {
  const { merchantId, pk, page } = input;
  return db.read(async (tx) => {
    const customer = await getCustomer(tx, merchantId, pk);
    if (customer === undefined) return undefined;
    return {
      customer,
      methods: await listPaymentMethods(tx, merchantId, pk, page),
      schedules: await listCustomerSchedules(tx, merchantId, pk, page),
      charges: await listChargesOf(tx, merchantId, { customerPk: pk }, { limit: input.chargesShown, offset: 0 }),
    };
  });
}
