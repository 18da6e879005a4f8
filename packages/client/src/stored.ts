// Stored customers, saved cards and recurring schedules of the payin API
// (docs/api-decisions.md section 15): the types callers get back, the
// readers of the wire answers and the request bodies; the Payrail class
// (client.ts) adds the HTTP calls.
import { inputError } from './errors.ts';
import { amountCentsOf, centsOfWireDollars, formatCents, type AmountInput } from './money.ts';
import type { ScheduleWire } from './webhooks.ts';

type Json = Record<string, unknown>;

/** A stored customer as the API answers it: the one place a customer's fields are written. */
export interface Customer {
  id: number;
  /** Your name for the customer (required on create). */
  identifier: string;
  /** Your own key for the customer: list({ customer_number }) finds it. */
  customer_number: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  /** Default true. */
  active: boolean;
  created_at: string;
  /** accept.blue's customer fields: on the answer once given. */
  website?: string | null;
  alternate_phone?: string | null;
  note?: string | null;
  /** An address replaces the one kept when given. */
  billing_info?: CustomerAddress;
  shipping_info?: CustomerAddress;
}

/** A customer's billing or shipping address (accept.blue's Address), every member optional. */
export interface CustomerAddress {
  first_name?: string | null;
  last_name?: string | null;
  street?: string | null;
  street2?: string | null;
  state?: string | null;
  city?: string | null;
  zip?: string | null;
  country?: string | null;
  phone?: string | null;
}

/** Each field may be left out; a null on the answer is a field never given. */
type Settable<T> = { [K in keyof T]?: NonNullable<T[K]> };

/** What create sends (identifier required) and update sends (any part of it). */
export type CustomerInput = Pick<Customer, 'identifier'> & Settable<Omit<Customer, 'id' | 'identifier' | 'created_at'>>;

/** A customer made from a transaction: its billing details fill what is not given; identifier is required when the transaction has none. */
export type CustomerFromTransactionInput = Partial<CustomerInput> & { reference_number: number };

/** Paging of lists: oldest first unless order is 'desc'. */
export interface StoredPage {
  /** 1 to 100, default 10. */
  limit?: number;
  offset?: number;
  order?: 'asc' | 'desc';
}

export interface CustomerFilters extends StoredPage {
  active?: boolean;
  customer_number?: string;
}

/** A saved card or check as the API answers it; a check has no card type nor expiry (null). */
export interface PaymentMethodWire {
  id: number;
  customer_id: number;
  payment_method_type: 'card' | 'check';
  card_type: string | null;
  last4: string;
  expiry_month: number | null;
  expiry_year: number | null;
  name: string | null;
  created_at: string;
  /** On the answer once given. */
  avs_address?: string | null;
  avs_zip?: string | null;
  /** accept.blue-dialect answers only (the SDK's source speaks the spec dialect). */
  bin?: string;
  bin_details?: { type: null };
  /** A check's: its routing number, account type as sent, SEC code; the account number is never shown. */
  routing_number?: string | null;
  account_type?: string | null;
  sec_code?: string | null;
  account_number?: null;
}

export interface PaymentMethod extends PaymentMethodWire {
  /** What a charge sends as its source to use this card: `pm-<id>`. */
  source: string;
}

export interface SaveCardInput extends Settable<Pick<PaymentMethodWire, 'last4' | 'name' | 'avs_address' | 'avs_zip'>> {
  /**
   * A nonce from tokenize() or the hosted card form (used up; expiry_month
   * and expiry_year required), or `ref-<reference number>` of an approved
   * transaction (its card; its expiry unless given). Absent for a check.
   */
  source?: string;
  expiry_month?: number;
  expiry_year?: number;
  /** A check instead of a card: name, routing_number, account_number (4 to 17 digits), account_type, sec_code (default WEB). */
  routing_number?: string;
  account_number?: string;
  account_type?: string;
  sec_code?: string;
}

/** Renames the card, changes its expiry (month and year together) or its AVS address; or a check's routing number, account type or SEC code. */
export type PaymentMethodChanges = Settable<
  Pick<SaveCardInput, 'name' | 'expiry_month' | 'expiry_year' | 'avs_address' | 'avs_zip' | 'routing_number' | 'account_type' | 'sec_code'>
>;

export type Frequency = 'daily' | 'weekly' | 'biweekly' | 'monthly' | 'bimonthly' | 'quarterly' | 'biannually' | 'annually';
export type ScheduleStatus = ScheduleWire['status'];

/** A recurring schedule: the wire's (ScheduleWire), with the amount in cents and the frequency by name. */
export interface Schedule extends Omit<ScheduleWire, 'amount' | 'frequency'> {
  amount_cents: number;
  frequency: Frequency;
}

/** Body of a schedule's create (amount in dollars); an update sends any part of it. */
export interface ScheduleRequestWire {
  title: string;
  frequency: Frequency;
  /** YYYY-MM-DD (UTC), today or later; default tomorrow. */
  next_run_date?: string;
  payment_method_id: number;
  /** Create only. true: runs are charged under this client's source; default: under the source that saved the card. */
  use_this_source_key?: boolean;
  /** 0 (default) = unlimited. */
  num_left?: number;
  active?: boolean;
  receipt_email?: string;
  amount: number;
}

export type ScheduleInput = Omit<ScheduleRequestWire, 'amount'> & AmountInput;

/** use_this_source_key is the create's only. */
export type ScheduleChanges = Partial<Omit<ScheduleInput, 'amount' | 'amount_cents' | 'use_this_source_key'>> &
  ({ amount?: string; amount_cents?: never } | { amount_cents?: number; amount?: never });

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const nullableText = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** An id of a customer, payment method or schedule; refused before sending when it is not one. */
export function storedId(id: number | string, what: string): number {
  const text = String(id);
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw inputError('invalid_request', `${what} must be an id (digits), got "${text}"`);
  return Number(text);
}

/** The members of `body` that are there (the fields a customer or method shows once given). */
function given(body: Json, names: readonly string[]): Json {
  return Object.fromEntries(names.filter((name) => body[name] !== undefined).map((name) => [name, body[name]]));
}

export function readCustomer(body: Json): Customer {
  return {
    id: Number(body.id),
    identifier: String(body.identifier),
    customer_number: nullableText(body.customer_number),
    email: nullableText(body.email),
    first_name: nullableText(body.first_name),
    last_name: nullableText(body.last_name),
    phone: nullableText(body.phone),
    active: body.active === true,
    created_at: String(body.created_at),
    ...(given(body, ['website', 'alternate_phone', 'note', 'billing_info', 'shipping_info']) as Partial<Customer>),
  };
}

export function readPaymentMethod(body: Json): PaymentMethod {
  const id = Number(body.id);
  return {
    id,
    customer_id: Number(body.customer_id),
    payment_method_type: body.payment_method_type === 'check' ? 'check' : 'card',
    card_type: nullableText(body.card_type),
    last4: String(body.last4),
    expiry_month: body.expiry_month === null ? null : Number(body.expiry_month),
    expiry_year: body.expiry_year === null ? null : Number(body.expiry_year),
    name: nullableText(body.name),
    created_at: String(body.created_at),
    ...(given(body, [
      'avs_address',
      'avs_zip',
      'bin',
      'bin_details',
      'routing_number',
      'account_type',
      'sec_code',
      'account_number',
    ]) as Partial<PaymentMethodWire>),
    source: `pm-${id}`,
  };
}

export function readSchedule(body: Json): Schedule {
  return {
    id: Number(body.id),
    customer_id: Number(body.customer_id),
    title: String(body.title),
    receipt_email: nullableText(body.receipt_email),
    amount_cents: centsOfWireDollars(body.amount) ?? 0,
    frequency: body.frequency as Frequency,
    next_run_date: String(body.next_run_date),
    num_left: Number(body.num_left),
    payment_method_id: Number(body.payment_method_id),
    active: body.active === true,
    status: body.status as ScheduleStatus,
    created_at: String(body.created_at),
    ...(given(body, ['prev_run_date', 'transaction_count']) as Pick<ScheduleWire, 'prev_run_date' | 'transaction_count'>),
  };
}

/** A list answer (handed on by the transport as `{items}`) read item by item. */
export function listOf<T>(read: (body: Json) => T): (body: Json) => T[] {
  return (body) => (Array.isArray(body.items) ? body.items : []).map((item) => read(isObject(item) ? item : {}));
}

/** A schedule's body: the amount as the wire's dollars, written from the exact decimal text. */
export function scheduleBody(input: Partial<ScheduleInput> & { amount?: string; amount_cents?: number }): Json {
  const { amount, amount_cents, ...rest } = input;
  const body: Json = {};
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) body[name] = value;
  if (amount !== undefined || amount_cents !== undefined) body.amount = Number(formatCents(amountCentsOf({ amount, amount_cents })));
  return body;
}

/** Leaves out what is undefined, so a PATCH sends only what changes. */
export function defined(input: object): Json {
  const body: Json = {};
  for (const [name, value] of Object.entries(input)) if (value !== undefined) body[name] = value;
  return body;
}
