// Stored customers and their saved cards (docs/api-decisions.md section 15),
// merchant-scoped: another merchant's customer or method reads as absent
// (not_found). A card is saved from a nonce: the nonce is consumed, its
// number sealed under the card-data key (its security code is dropped) and
// fingerprinted so the same card saved twice for one customer is refused
// with 409 naming the method that has it, in the same transaction, so a
// refused save changes nothing (the nonce stays usable).
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { checkExpiry } from '../../domain/cards.ts';
import type { Clock } from '../../domain/clock.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { NONCE_PATTERN } from '../../domain/nonce.ts';
import { type Created, createOnce } from '../common/idempotent-create.ts';
import { fail, failWith } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { listChargesOf, type ChargeRow } from '../../store/charges.ts';
import { deleteCustomer, getCustomer, insertCustomer, listCustomers, updateCustomer, type CustomerFields, type CustomerRow } from '../../store/customers.ts';
import {
  countPaymentMethods,
  deleteCustomerPaymentMethods,
  deletePaymentMethod,
  getPaymentMethod,
  insertPaymentMethod,
  listPaymentMethods,
  updatePaymentMethod,
  type PaymentMethodRow,
} from '../../store/payment-methods.ts';
import { listCustomerSchedules, stopSchedulesOf } from '../../store/schedules.ts';
import { renderSchedule, type ScheduleView } from './schedules.ts';
import { transactionStatusOf } from '../../domain/card-lifecycle.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { takeNonce } from '../payin/nonce-use.ts';
import { idOf, pageOf, type Owner, type PageQuery } from './stored-common.ts';

export interface CustomerDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly cipher: CardCipher;
}

export interface CustomerView {
  id: number;
  identifier: string;
  customer_number: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  active: boolean;
  created_at: string;
}

export function renderCustomer(row: CustomerRow): CustomerView {
  return {
    id: row.pk,
    identifier: row.identifier,
    customer_number: row.customer_number,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    active: row.active === 1,
    created_at: isoTime(row.created_at_ms),
  };
}

export interface PaymentMethodView {
  id: number;
  customer_id: number;
  payment_method_type: 'card';
  card_type: string;
  last4: string;
  expiry_month: number;
  expiry_year: number;
  name: string | null;
  created_at: string;
}

export function renderPaymentMethod(row: PaymentMethodRow): PaymentMethodView {
  return {
    id: row.pk,
    customer_id: row.customer_pk,
    payment_method_type: 'card',
    card_type: row.card_type,
    last4: row.last4,
    expiry_month: row.expiry_month,
    expiry_year: row.expiry_year,
    name: row.name,
    created_at: isoTime(row.created_at_ms),
  };
}

export interface CustomerInput {
  readonly identifier?: string | undefined;
  readonly customer_number?: string | undefined;
  readonly email?: string | undefined;
  readonly first_name?: string | undefined;
  readonly last_name?: string | undefined;
  readonly phone?: string | undefined;
  readonly active?: boolean | undefined;
}

function fieldsOf(input: CustomerInput): Partial<CustomerFields> {
  return {
    identifier: input.identifier,
    customer_number: input.customer_number,
    email: input.email,
    first_name: input.first_name,
    last_name: input.last_name,
    phone: input.phone,
    active: input.active === undefined ? undefined : input.active ? 1 : 0,
  } as Partial<CustomerFields>;
}

export async function createCustomer(
  deps: CustomerDeps,
  owner: Owner,
  input: CustomerInput & { identifier: string },
  idempotencyKey: string | null = null,
): Promise<Created<CustomerView>> {
  const fields: CustomerFields = {
    identifier: input.identifier,
    customer_number: input.customer_number ?? null,
    email: input.email ?? null,
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    phone: input.phone ?? null,
    active: input.active === false ? 0 : 1,
  };
  return createOnce(deps, owner, { key: idempotencyKey, operation: 'create-customer', body: input }, async (tx) =>
    renderCustomer(await insertCustomer(tx, owner.merchantId, fields, deps.clock.nowMs())),
  );
}

export interface CustomerListQuery extends PageQuery {
  readonly active?: string | undefined;
  readonly customer_number?: string | undefined;
}

export async function listCustomerViews(deps: Pick<CustomerDeps, 'db'>, owner: Pick<Owner, 'merchantId'>, query: CustomerListQuery): Promise<CustomerView[]> {
  if (query.active !== undefined && query.active !== 'true' && query.active !== 'false') fail('invalid_request', 'active must be true or false');
  const filters = { active: query.active === undefined ? null : query.active === 'true', customerNumber: query.customer_number ?? null };
  const page = pageOf(query);
  const rows = await deps.db.read((tx) => listCustomers(tx, owner.merchantId, filters, page));
  return rows.map(renderCustomer);
}

export async function readCustomer(deps: Pick<CustomerDeps, 'db'>, owner: Pick<Owner, 'merchantId'>, id: string): Promise<CustomerView> {
  const pk = idOf('customer', id);
  const row = await deps.db.read((tx) => getCustomer(tx, owner.merchantId, pk));
  if (row === undefined) fail('not_found', `customer ${pk} not found`);
  return renderCustomer(row);
}

export async function changeCustomer(deps: CustomerDeps, owner: Owner, id: string, input: CustomerInput): Promise<CustomerView> {
  const pk = idOf('customer', id);
  const row = await deps.db.write((tx) => updateCustomer(tx, owner.merchantId, pk, fieldsOf(input), deps.clock.nowMs()));
  if (row === undefined) fail('not_found', `customer ${pk} not found`);
  return renderCustomer(row);
}

/** Deletes the customer, its saved cards (their card data erased) and stops its schedules, in one transaction. */
export async function removeCustomer(deps: CustomerDeps, owner: Owner, id: string): Promise<void> {
  const pk = idOf('customer', id);
  await deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    if (!(await deleteCustomer(tx, owner.merchantId, pk, nowMs))) fail('not_found', `customer ${pk} not found`);
    await deleteCustomerPaymentMethods(tx, owner.merchantId, pk, nowMs);
    await stopSchedulesOf(tx, owner.merchantId, { customerPk: pk }, nowMs);
  });
}

/** The customer's transactions, newest first, each as GET /api/v2/transactions/:id shows it (JSON array text). */
export async function customerTransactionsJson(
  deps: Pick<CustomerDeps, 'db'>,
  owner: Pick<Owner, 'merchantId'>,
  id: string,
  query: PageQuery,
): Promise<string> {
  const pk = idOf('customer', id);
  const page = pageOf(query);
  const rows = await deps.db.read(async (tx) => {
    if ((await getCustomer(tx, owner.merchantId, pk)) === undefined) fail('not_found', `customer ${pk} not found`);
    return listChargesOf(tx, owner.merchantId, { customerPk: pk }, page);
  });
  return `[${rows.map((row) => JSON.stringify(renderCharge(row))).join(',')}]`;
}

export interface SaveCardInput {
  readonly source: string;
  readonly expiry_month: number;
  readonly expiry_year: number;
  readonly last4?: string | undefined;
  readonly name?: string | undefined;
}

/**
 * Saved cards per customer, at most. A bound, not an exact invariant: two
 * saves racing past the count may both land (the panel and lists show 100).
 */
export const PAYMENT_METHODS_PER_CUSTOMER_MAX = 50;

export async function saveCard(
  deps: CustomerDeps,
  owner: Owner,
  customerId: string,
  input: SaveCardInput,
  idempotencyKey: string | null = null,
): Promise<Created<PaymentMethodView>> {
  const customerPk = idOf('customer', customerId);
  if (!NONCE_PATTERN.test(input.source)) fail('invalid_nonce', 'source is not a nonce from tokenization');
  const expiryProblem = checkExpiry(input.expiry_month, input.expiry_year, deps.clock.nowMs());
  if (expiryProblem !== null) fail('invalid_card', expiryProblem);
  const idem = { key: idempotencyKey, operation: 'save-card', body: { customer: customerPk, ...input } };
  return createOnce(deps, owner, idem, async (tx) => {
    const nowMs = deps.clock.nowMs();
    if ((await getCustomer(tx, owner.merchantId, customerPk)) === undefined) fail('not_found', `customer ${customerPk} not found`);
    if ((await countPaymentMethods(tx, customerPk)) >= PAYMENT_METHODS_PER_CUSTOMER_MAX) {
      fail('invalid_request', `a customer may have at most ${PAYMENT_METHODS_PER_CUSTOMER_MAX} saved cards; delete one first`);
    }
    const nonce = await takeNonce(tx, { sourceId: owner.sourceId, nonce: input.source, expiryMonth: input.expiry_month, expiryYear: input.expiry_year }, nowMs);
    // Shop plugins send the last 4 digits they showed; another card's is a mistake worth refusing.
    if (input.last4 !== undefined && input.last4 !== nonce.last4) fail('invalid_card', 'last4 does not match the card of the nonce');
    // The security code is not opened, let alone kept; takeNonce erased it from the nonce's row.
    const number = deps.cipher.openForNonce(nonce.card_number_enc, 'card_number', owner.sourceId, input.source);
    const saved = await insertPaymentMethod(
      tx,
      {
        merchant_id: owner.merchantId,
        customer_pk: customerPk,
        source_id: owner.sourceId,
        card_number_enc: deps.cipher.seal(number, 'card_number', owner.sourceId),
        fingerprint: deps.cipher.fingerprint(number, owner.merchantId),
        card_type: nonce.card_type,
        last4: nonce.last4,
        bin: nonce.bin,
        expiry_month: input.expiry_month,
        expiry_year: input.expiry_year,
        name: input.name ?? null,
      },
      nowMs,
    );
    // Thrown inside the transaction, so the nonce is not consumed either.
    if ('duplicateOf' in saved) {
      failWith('duplicate_payment_method', `this card is already saved for customer ${customerPk} as payment method ${saved.duplicateOf}`, {
        id: saved.duplicateOf,
      });
    }
    return renderPaymentMethod(saved.created);
  });
}

export async function listCustomerMethods(
  deps: Pick<CustomerDeps, 'db'>,
  owner: Pick<Owner, 'merchantId'>,
  customerId: string,
  query: PageQuery,
): Promise<PaymentMethodView[]> {
  const customerPk = idOf('customer', customerId);
  const page = pageOf(query);
  const rows = await deps.db.read(async (tx) => {
    if ((await getCustomer(tx, owner.merchantId, customerPk)) === undefined) fail('not_found', `customer ${customerPk} not found`);
    return listPaymentMethods(tx, owner.merchantId, customerPk, page);
  });
  return rows.map(renderPaymentMethod);
}

export async function readPaymentMethod(deps: Pick<CustomerDeps, 'db'>, owner: Owner, id: string): Promise<PaymentMethodView> {
  const pk = idOf('payment method', id);
  const row = await deps.db.read((tx) => getPaymentMethod(tx, owner.merchantId, pk));
  if (row === undefined) fail('not_found', `payment method ${pk} not found`);
  return renderPaymentMethod(row);
}

export interface MethodChange {
  readonly name?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
}

export async function changePaymentMethod(deps: CustomerDeps, owner: Owner, id: string, input: MethodChange): Promise<PaymentMethodView> {
  const pk = idOf('payment method', id);
  if ((input.expiry_month === undefined) !== (input.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  if (input.expiry_month !== undefined && input.expiry_year !== undefined) {
    const problem = checkExpiry(input.expiry_month, input.expiry_year, deps.clock.nowMs());
    if (problem !== null) fail('invalid_card', problem);
  }
  const fields = { name: input.name, expiry_month: input.expiry_month, expiry_year: input.expiry_year };
  const row = await deps.db.write((tx) => updatePaymentMethod(tx, owner.merchantId, pk, fields, deps.clock.nowMs()));
  if (row === undefined) fail('not_found', `payment method ${pk} not found`);
  return renderPaymentMethod(row);
}

/** Deletes the method (its sealed card number erased) and stops the schedules that charge it. */
export async function removePaymentMethod(deps: CustomerDeps, owner: Owner, id: string): Promise<void> {
  const pk = idOf('payment method', id);
  await deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    if (!(await deletePaymentMethod(tx, owner.merchantId, pk, nowMs))) fail('not_found', `payment method ${pk} not found`);
    await stopSchedulesOf(tx, owner.merchantId, { methodPk: pk }, nowMs);
  });
}

/** What the panel shows of a customer: its saved cards, schedules and latest transactions. */
export interface CustomerPanelView {
  readonly customer: CustomerView;
  readonly methods: PaymentMethodView[];
  readonly schedules: ScheduleView[];
  readonly transactions: TransactionSummary[];
}

/** A transaction as a panel list shows it. */
export interface TransactionSummary {
  readonly reference_number: number;
  readonly status: string;
  readonly amount_cents: number;
  readonly card: string;
  readonly schedule_id: number | null;
  readonly created_at_ms: number;
}

export function summaryOf(row: ChargeRow): TransactionSummary {
  return {
    reference_number: row.pk,
    status: transactionStatusOf(row),
    amount_cents: row.amount_cents,
    card: `${row.card_type} ···· ${row.last4}`,
    schedule_id: row.schedule_pk,
    created_at_ms: row.created_at_ms,
  };
}

/** Saved cards, schedules and transactions shown on a customer's panel page, at most. */
export const CUSTOMER_PAGE_ITEMS_MAX = 100;
/** The latest transactions a customer's panel page shows. */
export const CUSTOMER_TRANSACTIONS_SHOWN = 20;

export async function customerPanelView(deps: Pick<CustomerDeps, 'db'>, merchantId: string, id: string): Promise<CustomerPanelView> {
  const pk = idOf('customer', id);
  const page = { limit: CUSTOMER_PAGE_ITEMS_MAX, offset: 0 };
  return deps.db.read(async (tx) => {
    const customer = await getCustomer(tx, merchantId, pk);
    if (customer === undefined) fail('not_found', `customer ${pk} not found`);
    return {
      customer: renderCustomer(customer),
      methods: (await listPaymentMethods(tx, merchantId, pk, page)).map(renderPaymentMethod),
      schedules: (await listCustomerSchedules(tx, merchantId, pk, page)).map(renderSchedule),
      transactions: (await listChargesOf(tx, merchantId, { customerPk: pk }, { limit: CUSTOMER_TRANSACTIONS_SHOWN, offset: 0 })).map(summaryOf),
    };
  });
}
