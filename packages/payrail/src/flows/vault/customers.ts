// Stored customers and their saved cards (docs/api-decisions.md section 15),
// merchant-scoped: another merchant's customer or method reads as absent
// (not_found). A card is saved from a nonce: the nonce is consumed, its
// number sealed under the card-data key (its security code is dropped) and
// fingerprinted so the same card saved twice for one customer is refused
// with 409 naming the method that has it, in the same transaction, so a
// refused save changes nothing (the nonce stays usable).
import { checkExpiry } from '../../domain/cards.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { CARD_REF_PATTERN, TOKEN_SOURCE_PREFIX } from '../../domain/card-refs.ts';
import { hashNonce, NONCE_PATTERN } from '../../domain/nonce.ts';
import { fail, failWith } from '../../errors.ts';
import type { ChargeRow } from '../../store/charges.ts';
import type { CustomerFields, CustomerRow } from '../../store/customers.ts';
import type { PaymentMethodRow } from '../../store/payment-methods.ts';
import {
  createCustomerOnce,
  editCustomer,
  eraseCustomer,
  queryCustomer,
  queryCustomerCharges,
  queryCustomerPanel,
  queryCustomers,
} from '../../store/vault/customers.ts';
import {
  editPaymentMethod,
  erasePaymentMethod,
  queryCustomerMethods,
  queryPaymentMethod,
  saveCardOnce,
  type NonceProblem,
  type SaveCardRefusal,
} from '../../store/vault/payment-methods.ts';
import { saveTokenMethodOnce } from '../../store/vault/card-tokens.ts';
import { renderSchedule, type ScheduleView } from './schedule-view.ts';
import { transactionStatusOf } from '../../domain/card-lifecycle.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { answered, type Created, createOnce } from './keyed-create.ts';
import { idOf, pageOf, type Owner, type PageQuery } from './stored-common.ts';
import { cipherOf, type VaultContext } from './vault-context.ts';

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
  vault: VaultContext,
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
  return createOnce(vault.clock, owner, { key: idempotencyKey, operation: 'create-customer', body: input }, (key) =>
    createCustomerOnce(vault.db, { key, merchantId: owner.merchantId, fields, nowMs: vault.clock.nowMs(), render: renderCustomer }),
  );
}

export interface CustomerListQuery extends PageQuery {
  readonly active?: string | undefined;
  readonly customer_number?: string | undefined;
}

export async function listCustomerViews(vault: Pick<VaultContext, 'db'>, owner: Pick<Owner, 'merchantId'>, query: CustomerListQuery): Promise<CustomerView[]> {
  if (query.active !== undefined && query.active !== 'true' && query.active !== 'false') fail('invalid_request', 'active must be true or false');
  const filters = { active: query.active === undefined ? null : query.active === 'true', customerNumber: query.customer_number ?? null };
  const page = pageOf(query);
  const rows = await queryCustomers(vault.db, { merchantId: owner.merchantId, filters, page });
  return rows.map(renderCustomer);
}

export async function readCustomer(vault: Pick<VaultContext, 'db'>, owner: Pick<Owner, 'merchantId'>, id: string): Promise<CustomerView> {
  const pk = idOf('customer', id);
  const row = await queryCustomer(vault.db, { merchantId: owner.merchantId, pk });
  if (row === undefined) fail('not_found', `customer ${pk} not found`);
  return renderCustomer(row);
}

export async function changeCustomer(vault: VaultContext, owner: Owner, id: string, input: CustomerInput): Promise<CustomerView> {
  const pk = idOf('customer', id);
  const row = await editCustomer(vault.db, { merchantId: owner.merchantId, pk, fields: fieldsOf(input), nowMs: vault.clock.nowMs() });
  if (row === undefined) fail('not_found', `customer ${pk} not found`);
  return renderCustomer(row);
}

/** Deletes the customer, its saved cards (their card data erased) and stops its schedules, in one transaction. */
export async function removeCustomer(vault: VaultContext, owner: Owner, id: string): Promise<void> {
  const pk = idOf('customer', id);
  if (!(await eraseCustomer(vault.db, { merchantId: owner.merchantId, pk, nowMs: vault.clock.nowMs() }))) fail('not_found', `customer ${pk} not found`);
}

/** The customer's transactions, newest first, each as GET /api/v2/transactions/:id shows it (JSON array text). */
export async function customerTransactionsJson(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId'>,
  id: string,
  query: PageQuery,
): Promise<string> {
  const pk = idOf('customer', id);
  const page = pageOf(query);
  const rows = await queryCustomerCharges(vault.db, { merchantId: owner.merchantId, customerPk: pk, page });
  if (rows === undefined) fail('not_found', `customer ${pk} not found`);
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
  vault: VaultContext,
  owner: Owner,
  customerId: string,
  input: SaveCardInput,
  idempotencyKey: string | null = null,
): Promise<Created<PaymentMethodView>> {
  const customerPk = idOf('customer', customerId);
  const expiryProblem = checkExpiry(input.expiry_month, input.expiry_year, vault.clock.nowMs());
  if (input.source.startsWith(TOKEN_SOURCE_PREFIX)) {
    if (expiryProblem !== null) fail('invalid_card', expiryProblem);
    return saveTokenCard(vault, owner, customerPk, input, idempotencyKey);
  }
  if (!NONCE_PATTERN.test(input.source)) fail('invalid_nonce', 'source is not a nonce from tokenization');
  if (expiryProblem !== null) fail('invalid_card', expiryProblem);
  const cipher = cipherOf(vault);
  const nonceHash = hashNonce(input.source);
  const idem = { key: idempotencyKey, operation: 'save-card', body: { customer: customerPk, ...input } };
  return createOnce(vault.clock, owner, idem, async (key) => {
    const answer = await saveCardOnce(vault.db, {
      key,
      merchantId: owner.merchantId,
      sourceId: owner.sourceId,
      customerPk,
      methodsMax: PAYMENT_METHODS_PER_CUSTOMER_MAX,
      nonceHash,
      expiryMonth: input.expiry_month,
      expiryYear: input.expiry_year,
      // Shop plugins send the last 4 digits they showed; another card's is a mistake worth refusing.
      last4: input.last4,
      name: input.name ?? null,
      nowMs: vault.clock.nowMs(),
      // The security code is not opened, let alone kept; consuming the nonce erased it from the nonce's row.
      seal: (nonce) => {
        const number = cipher.openForNonce(nonce.card_number_enc, 'card_number', owner.sourceId, input.source);
        return { card_number_enc: cipher.seal(number, 'card_number', owner.sourceId), fingerprint: cipher.fingerprint(number, owner.merchantId) };
      },
      render: renderPaymentMethod,
    });
    return answered(answer, (refusal) => refuseSave(refusal, customerPk));
  });
}

/** A payment method from a saved-card token (`tkn-<card_ref>`, docs/acceptblue-compatibility.md); the token stays. */
async function saveTokenCard(
  vault: VaultContext,
  owner: Owner,
  customerPk: number,
  input: SaveCardInput,
  idempotencyKey: string | null,
): Promise<Created<PaymentMethodView>> {
  const cardRef = input.source.slice(TOKEN_SOURCE_PREFIX.length);
  // Unknown and other merchants' tokens read alike, as an unknown payment method does.
  const noToken = (): never => fail('not_found', `saved card ${input.source.slice(0, 40)} not found`);
  if (!CARD_REF_PATTERN.test(cardRef)) noToken();
  const cipher = cipherOf(vault);
  const idem = { key: idempotencyKey, operation: 'save-card', body: { customer: customerPk, ...input } };
  return createOnce(vault.clock, owner, idem, async (key) => {
    const answer = await saveTokenMethodOnce(vault.db, {
      key,
      payer: owner,
      customerPk,
      methodsMax: PAYMENT_METHODS_PER_CUSTOMER_MAX,
      cardRef,
      expiryMonth: input.expiry_month,
      expiryYear: input.expiry_year,
      name: input.name ?? null,
      nowMs: vault.clock.nowMs(),
      seal: (token) => {
        const number = cipher.open(token.card_number_enc, 'card_number', token.source_id);
        return { card_number_enc: cipher.seal(number, 'card_number', owner.sourceId), fingerprint: cipher.fingerprint(number, owner.merchantId) };
      },
      render: renderPaymentMethod,
    });
    return answered(answer, (refusal) => (refusal.kind === 'no-token' ? noToken() : refuseSave(refusal, customerPk)));
  });
}

/** A refused save changed nothing: the nonce stays usable. */
function refuseSave(refusal: SaveCardRefusal, customerPk: number): never {
  switch (refusal.kind) {
    case 'no-customer':
      return fail('not_found', `customer ${customerPk} not found`);
    case 'too-many':
      return fail('invalid_request', `a customer may have at most ${PAYMENT_METHODS_PER_CUSTOMER_MAX} saved cards; delete one first`);
    case 'nonce':
      return refuseNonce(refusal.problem);
    case 'last4-mismatch':
      return fail('invalid_card', 'last4 does not match the card of the nonce');
    case 'duplicate':
      return failWith('duplicate_payment_method', `this card is already saved for customer ${customerPk} as payment method ${refusal.of}`, { id: refusal.of });
  }
}

/** The refusals of a nonce, as a charge with it answers them (docs/api-decisions.md section 8). */
function refuseNonce(problem: NonceProblem): never {
  switch (problem) {
    case 'unknown':
      return fail('invalid_nonce', 'source is not a valid nonce of this payin source');
    case 'used':
      return fail('invalid_nonce', 'source nonce has already been used; tokenize the card again');
    case 'expired':
      return fail('invalid_nonce', 'source nonce has expired; tokenize the card again');
    case 'expiry-mismatch':
      return fail('invalid_card', 'expiry_month/expiry_year do not match the expiry the card was tokenized with');
  }
}

export async function listCustomerMethods(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId'>,
  customerId: string,
  query: PageQuery,
): Promise<PaymentMethodView[]> {
  const customerPk = idOf('customer', customerId);
  const page = pageOf(query);
  const rows = await queryCustomerMethods(vault.db, { merchantId: owner.merchantId, customerPk, page });
  if (rows === undefined) fail('not_found', `customer ${customerPk} not found`);
  return rows.map(renderPaymentMethod);
}

export async function readPaymentMethod(vault: Pick<VaultContext, 'db'>, owner: Owner, id: string): Promise<PaymentMethodView> {
  const pk = idOf('payment method', id);
  const row = await queryPaymentMethod(vault.db, { merchantId: owner.merchantId, pk });
  if (row === undefined) fail('not_found', `payment method ${pk} not found`);
  return renderPaymentMethod(row);
}

export interface MethodChange {
  readonly name?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
}

export async function changePaymentMethod(vault: VaultContext, owner: Owner, id: string, input: MethodChange): Promise<PaymentMethodView> {
  const pk = idOf('payment method', id);
  if ((input.expiry_month === undefined) !== (input.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  if (input.expiry_month !== undefined && input.expiry_year !== undefined) {
    const problem = checkExpiry(input.expiry_month, input.expiry_year, vault.clock.nowMs());
    if (problem !== null) fail('invalid_card', problem);
  }
  const fields = { name: input.name, expiry_month: input.expiry_month, expiry_year: input.expiry_year };
  const row = await editPaymentMethod(vault.db, { merchantId: owner.merchantId, pk, fields, nowMs: vault.clock.nowMs() });
  if (row === undefined) fail('not_found', `payment method ${pk} not found`);
  return renderPaymentMethod(row);
}

/** Deletes the method (its sealed card number erased) and stops the schedules that charge it. */
export async function removePaymentMethod(vault: VaultContext, owner: Owner, id: string): Promise<void> {
  const pk = idOf('payment method', id);
  if (!(await erasePaymentMethod(vault.db, { merchantId: owner.merchantId, pk, nowMs: vault.clock.nowMs() })))
    fail('not_found', `payment method ${pk} not found`);
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

export async function customerPanelView(vault: Pick<VaultContext, 'db'>, merchantId: string, id: string): Promise<CustomerPanelView> {
  const pk = idOf('customer', id);
  const page = { limit: CUSTOMER_PAGE_ITEMS_MAX, offset: 0 };
  const rows = await queryCustomerPanel(vault.db, { merchantId, pk, page, chargesShown: CUSTOMER_TRANSACTIONS_SHOWN });
  if (rows === undefined) fail('not_found', `customer ${pk} not found`);
  return {
    customer: renderCustomer(rows.customer),
    methods: rows.methods.map(renderPaymentMethod),
    schedules: rows.schedules.map(renderSchedule),
    transactions: rows.charges.map(summaryOf),
  };
}
