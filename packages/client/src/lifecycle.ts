// The card transaction lifecycle of the payin API: capture, void, refund,
// reversal, verify, the transaction list and settlement batches. The types
// callers get back, the readers of the wire answers, and the request bodies;
// the Payrail class (client.ts) only adds the HTTP calls.
import { CLIENT_ERROR_CODES, PayrailError, inputError } from './errors.ts';
import { amountCentsOf, centsOfWireDollars, formatCents } from './money.ts';
import { readCharge } from './normalize.ts';
import type { Charge } from './types.ts';
import { type CheckDetails, readCheckDetails } from './checks.ts';
import type { AdjustDetailsWire, CreditRequestWire, OperationRequestWire } from './wire.ts';

/**
 * transaction.status_details.status (and the list's status filter). A check
 * shows pending (accepted, not yet sent to the ACH network), originated,
 * settled, returned, voided, declined or error.
 */
export type TransactionStatus = 'approved' | 'captured' | 'pending' | 'originated' | 'settled' | 'returned' | 'voided' | 'expired' | 'declined' | 'error';
export type TransactionType = 'charge' | 'refund' | 'verify';

/** A charge, refund or verification with its place in the lifecycle. */
export interface Transaction extends Charge {
  /**
   * Where it is: `approved` (authorized only), `captured`, `settled`,
   * `voided`, `expired`, `pending` (an answer is awaited), `declined` or
   * `error` (a processor failure).
   */
  transaction_status: TransactionStatus;
  type: TransactionType;
  /**
   * What the transaction moved: the captured amount of a sale or capture, a
   * refund's amount; 0 for an authorization not captured (yet), a pending,
   * voided or expired charge, and a verify.
   */
  moved_cents: number;
  /** For a refund: the reference number of the transaction it refunds. */
  refunded_reference: string | null;
  /** The settlement batch it is in; null while in none. */
  batch_id: number | null;
  /** YYYY-MM-DD once settled. */
  settled_date: string | null;
  /** A check's account (last four digits only) and its return; null for a card transaction. */
  check_details: CheckDetails | null;
}

/** An optional amount for capture, refund and reversal: the whole amount when absent. */
export type OptionalAmount = { amount?: string; amount_cents?: never } | { amount_cents?: number; amount?: never };

export type OperationOptions = OptionalAmount & {
  /** Makes retries safe across process restarts. Default: a fresh key per call, reused by its own retries. */
  idempotency_key?: string;
};

export interface Batch {
  id: number;
  status: 'open' | 'closed';
  opened_at: string;
  closed_at: string | null;
  transaction_count: number;
  sales_count: number;
  sales_amount_cents: number;
  refunds_count: number;
  refunds_amount_cents: number;
  net_amount_cents: number;
}

export type ListOrder = 'asc' | 'desc';
/** Card transactions (`credit_card`) or checks (`check`). */
export type PaymentType = 'credit_card' | 'check';

/** The parameters of every transaction list (the merchant's, a batch's, a customer's, a schedule's). */
export interface TransactionFilters {
  /** One status, or several (sent as a comma list). */
  status?: TransactionStatus | readonly TransactionStatus[];
  type?: TransactionType;
  payment_type?: PaymentType | readonly PaymentType[];
  /** What date_from and date_to bound: when created (default) or when settled. */
  date_field?: 'created_at' | 'settled_at';
  /** YYYY-MM-DD (UTC) or an ISO 8601 timestamp. */
  date_from?: string;
  date_to?: string;
  /** Settled on this day (YYYY-MM-DD, UTC), processed at most 30 days before it. */
  settled_date?: string;
  /** ISO 8601 timestamps. */
  created_from?: string;
  created_to?: string;
  /** Newest first (desc) by default. */
  order?: ListOrder;
  /** 1 to 100, default 10. */
  limit?: number;
  offset?: number;
}

/** The batch list's parameters. */
export interface BatchFilters {
  status?: 'open' | 'closed';
  /** Opened on or after, on or before: YYYY-MM-DD (UTC) or an ISO 8601 timestamp. */
  date_from?: string;
  date_to?: string;
  /** Newest first (desc) by default. */
  order?: ListOrder;
  limit?: number;
  offset?: number;
}

const STATUSES: readonly TransactionStatus[] = [
  'approved',
  'captured',
  'pending',
  'originated',
  'settled',
  'returned',
  'voided',
  'expired',
  'declined',
  'error',
];
const REFERENCE_PATTERN = /^[1-9][0-9]{0,14}$/;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The reference number as the wire's integer; refused before sending when it is not one. */
export function referenceNumber(reference: string | number): number {
  const text = String(reference);
  if (!REFERENCE_PATTERN.test(text)) throw inputError('invalid_request', `reference must be a transaction's reference number (digits), got "${text}"`);
  return Number(text);
}

/** The body of capture, void, refund and reversal. */
export function operationBody(reference: string | number, options: OptionalAmount): OperationRequestWire {
  const hasAmount = options.amount !== undefined || options.amount_cents !== undefined;
  const body: OperationRequestWire = { reference_number: referenceNumber(reference) };
  // The JSON number is written from the exact decimal text ("12.5"), never computed.
  if (hasAmount) body.amount = Number(formatCents(amountCentsOf(options)));
  return body;
}

/** An adjust: the new total (absent when only details change) and the details it changes. */
export type AdjustOptions = OperationOptions & { details?: AdjustDetailsWire };

/** An unmatched credit: the amount, and the card's source (`nonce-`, `pm-`, `ref-` or `tkn-`) with the credit's details. */
export type CreditInput = (Pick<OperationOptions, 'idempotency_key'> & ({ amount: string; amount_cents?: never } | { amount_cents: number; amount?: never })) &
  Omit<CreditRequestWire, 'amount' | 'card' | 'cvv2'> & { source: string };

/** The body of a credit: the amount as the exact decimal of its cents. */
export function creditBody(input: CreditInput): CreditRequestWire {
  const { amount: _amount, amount_cents: _cents, idempotency_key: _key, ...rest } = input;
  return { ...rest, amount: Number(formatCents(amountCentsOf(input))) };
}

/**
 * Where a charge holds money but has moved none to the merchant (an
 * authorization only, a check not yet settled) or none any more (a returned
 * check's money went back).
 */
const NOTHING_MOVED: readonly TransactionStatus[] = ['approved', 'pending', 'originated', 'returned', 'voided', 'expired'];

/** A transaction in shape A or B, with its lifecycle fields. */
export function readTransaction(body: Json): Transaction {
  const charge = readCharge(body);
  const transaction = isObject(body.transaction) ? body.transaction : null;
  if (transaction === null) {
    // Shape B: a decline or failure (of a charge, refund or verify).
    return {
      ...charge,
      transaction_status: charge.status === 'failed' ? 'error' : 'declined',
      type: 'charge',
      moved_cents: 0,
      refunded_reference: null,
      batch_id: null,
      settled_date: null,
      check_details: null,
    };
  }
  const details = isObject(transaction.transaction_details) ? transaction.transaction_details : {};
  const status = isObject(transaction.status_details) ? transaction.status_details.status : undefined;
  const amount = isObject(transaction.amount_details) ? centsOfWireDollars(transaction.amount_details.amount) : null;
  const type = details.type === 'refund' || details.type === 'verify' ? details.type : 'charge';
  const batch = typeof details.batch_id === 'number' && details.batch_id > 0 ? details.batch_id : null;
  const transactionStatus: TransactionStatus = STATUSES.includes(status as TransactionStatus)
    ? (status as TransactionStatus)
    : charge.status === 'pending'
      ? 'pending'
      : 'approved';
  return {
    ...charge,
    transaction_status: transactionStatus,
    type,
    moved_cents: type === 'charge' && NOTHING_MOVED.includes(transactionStatus) ? 0 : (amount ?? charge.amount_cents),
    refunded_reference: typeof details.reference_number === 'string' && type === 'refund' ? details.reference_number : null,
    batch_id: batch,
    settled_date: typeof transaction.settled_date === 'string' ? transaction.settled_date : null,
    check_details: readCheckDetails(transaction),
  };
}

/** A list answer (handed on by the transport as `{items}`) of transactions. */
export function readTransactionList(body: Json): Transaction[] {
  if (!Array.isArray(body.items)) throw new PayrailError(CLIENT_ERROR_CODES.unexpected_response, 200, 'expected a list of transactions');
  return body.items.map((item) => readTransaction(isObject(item) ? item : {}));
}

function cents(value: unknown): number {
  return centsOfWireDollars(value) ?? 0;
}

export function readBatch(body: Json): Batch {
  return {
    id: Number(body.id),
    status: body.status === 'closed' ? 'closed' : 'open',
    opened_at: String(body.opened_at),
    closed_at: typeof body.closed_at === 'string' ? body.closed_at : null,
    transaction_count: Number(body.transaction_count),
    sales_count: Number(body.sales_count),
    sales_amount_cents: cents(body.sales_amount),
    refunds_count: Number(body.refunds_count),
    refunds_amount_cents: cents(body.refunds_amount),
    net_amount_cents: cents(body.net_amount),
  };
}

export function readBatchList(body: Json): Batch[] {
  return (Array.isArray(body.items) ? body.items : []).map((item) => readBatch(isObject(item) ? item : {}));
}

/** The query string of a list (several values as a comma list); unknown filters are the server's to refuse. */
export function payinQuery(filters: TransactionFilters | BatchFilters): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined) query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
