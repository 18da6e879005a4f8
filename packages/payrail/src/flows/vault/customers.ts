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
import { hashNonce } from '../../domain/nonce.ts';
import { ApiError, fail } from '../../errors.ts';
import type { ChargeRow } from '../../store/charges.ts';
import type { CustomerFields, CustomerRow } from '../../store/customers.ts';
import type { PaymentMethodRow } from '../../store/payment-methods.ts';
import { createCustomerOnce, editCustomer, eraseCustomer, queryCustomer, queryCustomerPanel, queryCustomers } from '../../store/vault/customers.ts';
import {
  editPaymentMethod,
  erasePaymentMethod,
  queryCustomerMethods,
  queryMerchantMethods,
  queryPaymentMethod,
  saveCardOnce,
  type NonceProblem,
  type SavedCardSource,
  type SaveCardRefusal,
} from '../../store/vault/payment-methods.ts';
import { saveTokenMethodOnce } from '../../store/vault/card-tokens.ts';
import { renderSchedule, type ScheduleView } from './schedule-view.ts';
import { type CheckMethodView, renderCheckMethod } from './check-method-view.ts';
import { transactionStatusOf } from '../../domain/card-lifecycle.ts';
import { parsePaymentSource } from '../../domain/payment-source.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { failCardSource } from '../payin/card-source.ts';
import { acceptBlueCustomer, acceptBluePaymentMethod, type AcceptBlueCustomer, type AcceptBluePaymentMethod, type Address } from './acceptblue-views.ts';
import { type TransactionListQuery, type TransactionReader, transactionListJson } from '../payin/transactions.ts';
import { answered, type Created, createOnce } from './keyed-create.ts';
import { failOn, idOf, pageOf, type Owner, type PageQuery } from './stored-common.ts';
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
  /** accept.blue's fields, in the section 15 view only once given (so a customer without them reads as before). */
  website?: string;
  alternate_phone?: string;
  note?: string;
  billing_info?: Address;
  shipping_info?: Address;
}

/** A customer in the section 15 view: its fields, and those accept.blue added that were given. */
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
    ...(row.website === null ? {} : { website: row.website }),
    ...(row.alternate_phone === null ? {} : { alternate_phone: row.alternate_phone }),
    ...(row.note === null ? {} : { note: row.note }),
    ...(row.billing_info_json === null ? {} : { billing_info: JSON.parse(row.billing_info_json) as Address }),
    ...(row.shipping_info_json === null ? {} : { shipping_info: JSON.parse(row.shipping_info_json) as Address }),
  };
}

/** A customer as the caller's dialect shows it. */
export function customerViewFor(dialect: WireDialect | undefined): (row: CustomerRow) => CustomerView | AcceptBlueCustomer {
  return dialect === 'acceptblue' ? acceptBlueCustomer : renderCustomer;
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
  /** Once given (so a method without them reads as before). */
  avs_address?: string;
  avs_zip?: string;
}

export function renderPaymentMethod(row: PaymentMethodRow): PaymentMethodView | CheckMethodView {
  if (row.method_type === 'check') return renderCheckMethod(row);
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
    ...(row.avs_address === null ? {} : { avs_address: row.avs_address }),
    ...(row.avs_zip === null ? {} : { avs_zip: row.avs_zip }),
  };
}

export type MethodView = PaymentMethodView | AcceptBluePaymentMethod | CheckMethodView;

/** A payment method as the caller's dialect shows it. */
export function methodViewFor(dialect: WireDialect | undefined): (row: PaymentMethodRow) => MethodView {
  return dialect === 'acceptblue' ? acceptBluePaymentMethod : renderPaymentMethod;
}

export interface CustomerInput {
  readonly identifier?: string | undefined;
  readonly customer_number?: string | undefined;
  readonly email?: string | undefined;
  readonly first_name?: string | undefined;
  readonly last_name?: string | undefined;
  readonly phone?: string | undefined;
  readonly active?: boolean | undefined;
  readonly website?: string | undefined;
  readonly alternate_phone?: string | undefined;
  readonly note?: string | undefined;
  readonly billing_info?: Address | undefined;
  readonly shipping_info?: Address | undefined;
}

const addressJson = (address: Address | undefined): string | undefined => (address === undefined ? undefined : JSON.stringify(address));

/** The columns the input sets (undefined: left as is); an address replaces the one kept. */
function fieldsOf(input: CustomerInput): Partial<CustomerFields> {
  return {
    identifier: input.identifier,
    customer_number: input.customer_number,
    email: input.email,
    first_name: input.first_name,
    last_name: input.last_name,
    phone: input.phone,
    active: input.active === undefined ? undefined : input.active ? 1 : 0,
    website: input.website,
    alternate_phone: input.alternate_phone,
    note: input.note,
    billing_info_json: addressJson(input.billing_info),
    shipping_info_json: addressJson(input.shipping_info),
  } as Partial<CustomerFields>;
}

/** A new customer's columns: what the input gives, null otherwise; active unless told not. */
export function newCustomerFields(input: CustomerInput & { identifier: string }): CustomerFields {
  const given = fieldsOf(input);
  return {
    identifier: input.identifier,
    customer_number: given.customer_number ?? null,
    email: given.email ?? null,
    first_name: given.first_name ?? null,
    last_name: given.last_name ?? null,
    phone: given.phone ?? null,
    active: input.active === false ? 0 : 1,
    website: given.website ?? null,
    alternate_phone: given.alternate_phone ?? null,
    note: given.note ?? null,
    billing_info_json: given.billing_info_json ?? null,
    shipping_info_json: given.shipping_info_json ?? null,
  };
}

export async function createCustomer(
  vault: VaultContext,
  owner: Owner,
  input: CustomerInput & { identifier: string },
  idempotencyKey: string | null = null,
): Promise<Created<CustomerView | AcceptBlueCustomer>> {
  const fields = newCustomerFields(input);
  const render = customerViewFor(owner.wireDialect);
  return createOnce(vault.clock, owner, { key: idempotencyKey, operation: 'create-customer', body: input }, (key) =>
    createCustomerOnce(vault.db, { key, merchantId: owner.merchantId, fields, nowMs: vault.clock.nowMs(), render }),
  );
}

export interface CustomerListQuery extends PageQuery {
  readonly active?: string | undefined;
  readonly customer_number?: string | undefined;
}

/** The merchant's customers; without a dialect (the panel), in the section 15 view. */
export async function listCustomerViews(vault: Pick<VaultContext, 'db'>, owner: Pick<Owner, 'merchantId'>, query: CustomerListQuery): Promise<CustomerView[]>;
export async function listCustomerViews(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  query: CustomerListQuery,
): Promise<Array<CustomerView | AcceptBlueCustomer>>;
export async function listCustomerViews(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  query: CustomerListQuery,
): Promise<Array<CustomerView | AcceptBlueCustomer>> {
  if (query.active !== undefined && query.active !== 'true' && query.active !== 'false') fail('invalid_request', 'active must be true or false');
  const filters = { active: query.active === undefined ? null : query.active === 'true', customerNumber: query.customer_number ?? null };
  const page = pageOf(query);
  const rows = await queryCustomers(vault.db, { merchantId: owner.merchantId, filters, page });
  return rows.map(customerViewFor(owner.wireDialect));
}

export async function readCustomer(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  id: string,
): Promise<CustomerView | AcceptBlueCustomer> {
  const pk = idOf('customer', id);
  const row = await queryCustomer(vault.db, { merchantId: owner.merchantId, pk });
  if (row === undefined) fail('not_found', `customer ${pk} not found`);
  return customerViewFor(owner.wireDialect)(row);
}

export async function changeCustomer(vault: VaultContext, owner: Owner, id: string, input: CustomerInput): Promise<CustomerView | AcceptBlueCustomer> {
  const pk = idOf('customer', id);
  const row = await editCustomer(vault.db, { merchantId: owner.merchantId, pk, fields: fieldsOf(input), nowMs: vault.clock.nowMs() });
  if (row === undefined) fail('not_found', `customer ${pk} not found`);
  return customerViewFor(owner.wireDialect)(row);
}

/**
 * Deletes the customer, its saved cards (their card data erased) and stops
 * its schedules, in one transaction. In the accept.blue dialect a customer
 * with an active schedule is refused (409), as accept.blue refuses it.
 */
export async function removeCustomer(vault: VaultContext, owner: Owner, id: string): Promise<void> {
  const pk = idOf('customer', id);
  const answer = await eraseCustomer(vault.db, {
    merchantId: owner.merchantId,
    pk,
    nowMs: vault.clock.nowMs(),
    refuseWhenScheduled: owner.wireDialect === 'acceptblue',
  });
  if (answer === 'absent') fail('not_found', `customer ${pk} not found`);
  if (answer === 'scheduled') fail('linked_to_active_schedules', `customer ${pk} has active recurring schedules; delete or deactivate them first`);
}

/** The customer's transactions, each as GET /api/v2/transactions/:id shows it in the reader's dialect (JSON array text). */
export async function customerTransactionsJson(
  vault: Pick<VaultContext, 'db'>,
  reader: TransactionReader,
  id: string,
  query: TransactionListQuery,
): Promise<string> {
  return transactionListJson(vault, reader, { of: 'customer', customerPk: idOf('customer', id) }, query);
}

export interface SaveCardInput {
  readonly source?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
  readonly last4?: string | undefined;
  readonly name?: string | undefined;
  readonly avs_address?: string | undefined;
  readonly avs_zip?: string | undefined;
  /** accept.blue's check payment method fields (a check is saved by check-methods.ts; with a card source they are refused naming them). */
  readonly routing_number?: string | undefined;
  readonly account_number?: string | undefined;
  readonly account_type?: string | undefined;
  readonly sec_code?: string | undefined;
}

/**
 * Saved cards per customer, at most. A bound, not an exact invariant: two
 * saves racing past the count may both land (the panel and lists show 100).
 */
export const PAYMENT_METHODS_PER_CUSTOMER_MAX = 50;

/** A duplicate save: the 409 carries the method that has the card (accept.blue shows it whole). */
export class DuplicateMethodError extends ApiError {
  constructor(
    message: string,
    readonly existing: PaymentMethodRow,
  ) {
    super('duplicate_payment_method', message, { id: existing.pk });
  }
}

type SavedFrom = { readonly kind: 'nonce'; readonly nonce: string } | { readonly kind: 'reference'; readonly chargePk: number };

/** What the card is saved from: a nonce (with its expiry) or `ref-<reference number>`; a check's fields beside it are refused. */
function savedFromOf(input: SaveCardInput, nowMs: number): SavedFrom {
  const checkField = (['routing_number', 'account_number', 'account_type', 'sec_code'] as const).find((name) => input[name] !== undefined);
  if (checkField !== undefined) failOn(checkField, 'invalid_request', `${checkField} belongs to a check payment method, which takes no source`);
  if (input.source === undefined) failOn('source', 'invalid_request', 'source is required');
  const source = parsePaymentSource(input.source);
  if (source?.kind === 'reference') {
    if ((input.expiry_month === undefined) !== (input.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
    checkGivenExpiry(input, nowMs);
    return source;
  }
  if (source?.kind !== 'nonce') fail('invalid_nonce', 'source is not a nonce from tokenization or ref-<reference number>');
  if (input.expiry_month === undefined) failOn('expiry_month', 'invalid_request', 'expiry_month is required');
  if (input.expiry_year === undefined) failOn('expiry_year', 'invalid_request', 'expiry_year is required');
  checkGivenExpiry(input, nowMs);
  return source;
}

function checkGivenExpiry(input: { expiry_month?: number | undefined; expiry_year?: number | undefined }, nowMs: number): void {
  if (input.expiry_month === undefined || input.expiry_year === undefined) return;
  const problem = checkExpiry(input.expiry_month, input.expiry_year, nowMs);
  if (problem !== null) fail('invalid_card', problem);
}

export async function saveCard(
  vault: VaultContext,
  owner: Owner,
  customerId: string,
  input: SaveCardInput,
  idempotencyKey: string | null = null,
): Promise<Created<MethodView>> {
  const customerPk = idOf('customer', customerId);
  // A saved-card token (tkn-<card_ref>) needs its expiry, as a nonce does (docs/acceptblue-compatibility.md).
  if (input.source?.startsWith(TOKEN_SOURCE_PREFIX) === true) {
    if (input.expiry_month === undefined) failOn('expiry_month', 'invalid_request', 'expiry_month is required');
    if (input.expiry_year === undefined) failOn('expiry_year', 'invalid_request', 'expiry_year is required');
    checkGivenExpiry(input, vault.clock.nowMs());
    return saveTokenCard(
      vault,
      owner,
      customerPk,
      { ...input, source: input.source, expiry_month: input.expiry_month, expiry_year: input.expiry_year },
      idempotencyKey,
    );
  }
  const from = savedFromOf(input, vault.clock.nowMs());
  const cipher = cipherOf(vault);
  const card: SavedCardSource =
    from.kind === 'nonce'
      ? {
          kind: 'nonce',
          nonceHash: hashNonce(from.nonce),
          // The security code is not opened, let alone kept; consuming the nonce erased it from the nonce's row.
          open: (nonce) => cipher.openForNonce(nonce.card_number_enc, 'card_number', owner.sourceId, from.nonce),
        }
      : { kind: 'reference', chargePk: from.chargePk, keys: cipher };
  const idem = { key: idempotencyKey, operation: 'save-card', body: { customer: customerPk, ...input } };
  return createOnce(vault.clock, owner, idem, async (key) => {
    const answer = await saveCardOnce(vault.db, {
      key,
      merchantId: owner.merchantId,
      sourceId: owner.sourceId,
      customerPk,
      methodsMax: PAYMENT_METHODS_PER_CUSTOMER_MAX,
      card,
      expiryMonth: input.expiry_month,
      expiryYear: input.expiry_year,
      // Shop plugins send the last 4 digits they showed; another card's is a mistake worth refusing.
      last4: input.last4,
      name: input.name ?? null,
      avsAddress: input.avs_address ?? null,
      avsZip: input.avs_zip ?? null,
      nowMs: vault.clock.nowMs(),
      seal: (number) => ({ card_number_enc: cipher.seal(number, 'card_number', owner.sourceId), fingerprint: cipher.fingerprint(number, owner.merchantId) }),
      render: methodViewFor(owner.wireDialect),
    });
    return answered(answer, (refusal) => refuseSave(refusal, customerPk));
  });
}

/** A payment method from a saved-card token (`tkn-<card_ref>`, docs/acceptblue-compatibility.md); the token stays. */
async function saveTokenCard(
  vault: VaultContext,
  owner: Owner,
  customerPk: number,
  input: SaveCardInput & { readonly source: string; readonly expiry_month: number; readonly expiry_year: number },
  idempotencyKey: string | null,
): Promise<Created<MethodView>> {
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
      avsAddress: input.avs_address ?? null,
      avsZip: input.avs_zip ?? null,
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
    case 'card':
      return failCardSource(refusal.refusal);
    case 'last4-mismatch':
      return fail('invalid_card', 'last4 does not match the card of the nonce');
    case 'duplicate':
      throw new DuplicateMethodError(`this card is already saved for customer ${customerPk} as payment method ${refusal.of.pk}`, refusal.of);
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
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  customerId: string,
  query: PageQuery,
): Promise<MethodView[]> {
  const customerPk = idOf('customer', customerId);
  const page = pageOf(query);
  const rows = await queryCustomerMethods(vault.db, { merchantId: owner.merchantId, customerPk, page });
  if (rows === undefined) fail('not_found', `customer ${customerPk} not found`);
  return rows.map(methodViewFor(owner.wireDialect));
}

/** Every saved card of the merchant (accept.blue's GET /payment-methods). */
export async function listMerchantMethods(
  vault: Pick<VaultContext, 'db'>,
  owner: Pick<Owner, 'merchantId' | 'wireDialect'>,
  query: PageQuery,
): Promise<MethodView[]> {
  const rows = await queryMerchantMethods(vault.db, { merchantId: owner.merchantId, page: pageOf(query) });
  return rows.map(methodViewFor(owner.wireDialect));
}

export async function readPaymentMethod(vault: Pick<VaultContext, 'db'>, owner: Pick<Owner, 'merchantId' | 'wireDialect'>, id: string): Promise<MethodView> {
  const pk = idOf('payment method', id);
  const row = await queryPaymentMethod(vault.db, { merchantId: owner.merchantId, pk });
  if (row === undefined) fail('not_found', `payment method ${pk} not found`);
  return methodViewFor(owner.wireDialect)(row);
}

export interface MethodChange {
  readonly name?: string | undefined;
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
  readonly avs_address?: string | undefined;
  readonly avs_zip?: string | undefined;
}

export async function changePaymentMethod(vault: VaultContext, owner: Owner, id: string, input: MethodChange): Promise<MethodView> {
  const pk = idOf('payment method', id);
  if ((input.expiry_month === undefined) !== (input.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  checkGivenExpiry(input, vault.clock.nowMs());
  const fields = { name: input.name, expiry_month: input.expiry_month, expiry_year: input.expiry_year, avs_address: input.avs_address, avs_zip: input.avs_zip };
  const answer = await editPaymentMethod(vault.db, { merchantId: owner.merchantId, pk, fields, nowMs: vault.clock.nowMs() });
  if (answer.kind === 'absent') fail('not_found', `payment method ${pk} not found`);
  if (answer.kind === 'duplicate') {
    throw new DuplicateMethodError(
      `this card is already saved for customer ${answer.of.customer_pk} with this expiry as payment method ${answer.of.pk}`,
      answer.of,
    );
  }
  return methodViewFor(owner.wireDialect)(answer.row);
}

/**
 * Deletes the method (its sealed card number erased) and stops the schedules
 * that charge it. In the accept.blue dialect a method an active schedule
 * charges is refused (409), as accept.blue refuses it.
 */
export async function removePaymentMethod(vault: VaultContext, owner: Owner, id: string): Promise<void> {
  const pk = idOf('payment method', id);
  const answer = await erasePaymentMethod(vault.db, {
    merchantId: owner.merchantId,
    pk,
    nowMs: vault.clock.nowMs(),
    refuseWhenScheduled: owner.wireDialect === 'acceptblue',
  });
  if (answer === 'absent') fail('not_found', `payment method ${pk} not found`);
  if (answer === 'scheduled')
    fail('linked_to_active_schedules', `payment method ${pk} is charged by active recurring schedules; delete or deactivate them first`);
}

/** What the panel shows of a customer: its saved cards, schedules and latest transactions. */
export interface CustomerPanelView {
  readonly customer: CustomerView;
  readonly methods: Array<PaymentMethodView | CheckMethodView>;
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
