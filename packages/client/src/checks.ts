// Checks (ACH) of the payin API: a charge or an unmatched credit on a bank
// account, the check details a transaction shows, saved check payment
// methods and the sandbox's ACH clock. The types callers get back, the
// readers of the wire answers and the request bodies; the Payrail class
// (client.ts) adds the HTTP calls. The account number goes out in the
// request body only: no error message, type or answer of the SDK holds it.
import { inputError } from './errors.ts';
import { amountCentsOf, formatCents, type AmountInput } from './money.ts';
import type { BillingInfo, TransactionDetails } from './wire.ts';
import type { AcceptBlueTransactionWire, ChargeExtrasWire, CheckDetails } from './charge-extras.ts';

export type { CheckDetails };
import { type PaymentMethod, readPaymentMethod } from './stored.ts';

type Json = Record<string, unknown>;

/** Standard Entry Class codes: how the account holder authorized the debit. */
export type SecCode = 'PPD' | 'CCD' | 'TEL' | 'WEB';
export const SEC_CODES: readonly SecCode[] = ['PPD', 'CCD', 'TEL', 'WEB'];

/** checking or savings, in either case: answers echo the case sent ("Checking" stays "Checking"). */
export type AccountType = 'checking' | 'savings' | 'Checking' | 'Savings';

/** A bank account as a request sends it. */
export interface CheckAccountInput {
  /** The name on the account. */
  name: string;
  /** ABA routing number: 9 digits (the server checks the check digit). */
  routing_number: string;
  /** 4 to 17 digits, as a string (leading zeros count). Sent once; answers show its last four only. */
  account_number: string;
  /** Default checking. */
  account_type?: AccountType;
  /** Default WEB. */
  sec_code?: SecCode;
}

/** A check charge: a debit of the account (POST /api/v2/transactions/charge with the account instead of a card). */
export type CheckChargeInput = CheckAccountInput & {
  billing_info?: BillingInfo;
  transaction_details?: TransactionDetails;
  /** accept.blue's members (amount details, line items, custom fields, customer, flags...), sent as given. */
  extras?: ChargeExtrasWire;
  /** Makes retries safe across process restarts. Default: a fresh key per call, reused by its own retries. */
  idempotency_key?: string;
} & AmountInput;

/** An unmatched check credit: money paid into the account (POST /api/v2/transactions/credit), held from the merchant's balance. */
export type CheckCreditInput = CheckAccountInput & {
  transaction_details?: TransactionDetails;
  idempotency_key?: string;
} & AmountInput;

/**
 * A saved check payment method: a PaymentMethod whose payment_method_type is
 * 'check', with its account's routing number, type (as stored, the case
 * sent kept), SEC code and last four digits; no card type nor expiry, and
 * the account number never shown (null).
 */
export interface CheckPaymentMethod extends PaymentMethod {
  payment_method_type: 'check';
  card_type: null;
  expiry_month: null;
  expiry_year: null;
  routing_number: string;
  account_type: string;
  sec_code: string;
  account_number: null;
}

/** Whether a payment method (of get(), list(), listAll()) is a saved check. */
export function isCheckPaymentMethod(method: PaymentMethod): method is CheckPaymentMethod {
  return method.payment_method_type === 'check';
}

/**
 * Saves a bank account for a customer: name, routing number, account number
 * and type are required; the SEC code defaults to WEB on the server (a
 * duplicate throws `duplicate_payment_method`, 409).
 */
export type SaveCheckInput = CheckAccountInput & { account_type: AccountType };

/** Changes a saved account's name, routing number, type or SEC code; its number never changes (save a new method instead). */
export type CheckPaymentMethodChanges = Partial<Omit<CheckAccountInput, 'account_number'>>;

/** The states the sandbox's ACH clock reports checks moved to. */
export type AchAdvanceState = 'pending' | 'originated' | 'settled' | 'returned' | 'voided' | 'declined' | 'failed';

/** What sandbox.advanceAch() did: the merchant's ACH time now, and how many of its checks moved to each state. */
export interface AchAdvance {
  /** ISO 8601 (UTC). */
  ach_time: string;
  business_days: number;
  moved: Record<AchAdvanceState, number>;
}

/** accept.blue's Check Response: a check charge's answer in the accept.blue dialect (the SDK's source speaks the spec dialect). */
export interface AcceptBlueCheckChargeWire {
  version: string;
  status: string;
  status_code: string;
  error_message: string | null;
  error_code: string | null;
  error_details: null;
  reference_number: number;
  auth_amount: number;
  auth_code: string | null;
  transaction: AcceptBlueTransactionWire;
}

/** Body of POST /sandbox/ach/advance. */
export interface SandboxAchAdvanceRequestWire {
  business_days: number;
}

/** Answer of POST /sandbox/ach/advance. */
export interface SandboxAchAdvanceResponseWire extends AchAdvance {
  success: true;
  error: '';
}

/** The sandbox's bound on one move of the ACH clock. */
export const ACH_ADVANCE_BUSINESS_DAYS_MAX = 30;

const ROUTING_NUMBER = /^[0-9]{9}$/;
const ACCOUNT_NUMBER = /^[0-9]{4,17}$/;
const ACCOUNT_TYPE = /^(checking|savings)$/i;
const NAME_LENGTH_MAX = 255;

/**
 * The account's fields of a request, refused before sending when their shape
 * is wrong. The server checks the routing number's check digit. A refusal
 * never repeats the account number.
 */
function accountFields(input: Partial<CheckAccountInput>, required: boolean): Json {
  const body: Json = {};
  if (input.name !== undefined || required) {
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > NAME_LENGTH_MAX) {
      throw inputError('invalid_request', `name (on the account) must be 1 to ${NAME_LENGTH_MAX} characters`);
    }
    body.name = input.name;
  }
  if (input.routing_number !== undefined || required) {
    if (typeof input.routing_number !== 'string' || !ROUTING_NUMBER.test(input.routing_number)) {
      throw inputError('invalid_request', 'routing_number must be exactly 9 digits (a string)');
    }
    body.routing_number = input.routing_number;
  }
  if (input.account_number !== undefined || required) {
    if (typeof input.account_number !== 'string' || !ACCOUNT_NUMBER.test(input.account_number)) {
      throw inputError('invalid_request', 'account_number must be 4 to 17 digits (a string)');
    }
    body.account_number = input.account_number;
  }
  if (input.account_type !== undefined) {
    if (typeof input.account_type !== 'string' || !ACCOUNT_TYPE.test(input.account_type)) {
      throw inputError('invalid_request', 'account_type must be checking or savings');
    }
    body.account_type = input.account_type;
  }
  if (input.sec_code !== undefined) {
    if (!SEC_CODES.includes(input.sec_code)) throw inputError('invalid_request', `sec_code must be one of ${SEC_CODES.join(', ')}`);
    body.sec_code = input.sec_code;
  }
  return body;
}

/** The body of a check charge: the amount as the exact decimal of its cents, the account, then the charge's details. */
export function checkChargeBody(input: CheckChargeInput): Json {
  const cents = amountCentsOf(input);
  return {
    // The JSON number is written from the exact decimal text ("12.5"), never computed.
    amount: Number(formatCents(cents)),
    ...accountFields(input, true),
    ...(input.billing_info === undefined ? {} : { billing_info: input.billing_info }),
    ...(input.transaction_details === undefined ? {} : { transaction_details: input.transaction_details }),
    ...input.extras,
  };
}

/** The body of an unmatched check credit. */
export function checkCreditBody(input: CheckCreditInput): Json {
  return {
    amount: Number(formatCents(amountCentsOf(input))),
    ...accountFields(input, true),
    ...(input.transaction_details === undefined ? {} : { transaction_details: input.transaction_details }),
  };
}

/** The body that saves a bank account: its type required, its SEC code sent only when given (the server's default is WEB). */
export function saveCheckBody(input: SaveCheckInput): Json {
  if (input?.account_type === undefined) throw inputError('invalid_request', 'account_type is required (checking or savings)');
  return accountFields(input, true);
}

/** The body of a saved account's change: only what changes, never an account number. */
export function checkChangesBody(changes: CheckPaymentMethodChanges): Json {
  if ((changes as { account_number?: unknown })?.account_number !== undefined) {
    throw inputError('invalid_request', "a saved account's number cannot change: save a new payment method instead");
  }
  return accountFields(changes ?? {}, false);
}

/** The body of sandbox.advanceAch(): whole business days, 1 to ACH_ADVANCE_BUSINESS_DAYS_MAX. */
export function achAdvanceBody(input: { businessDays: number }): SandboxAchAdvanceRequestWire {
  const days = input?.businessDays;
  if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < 1 || days > ACH_ADVANCE_BUSINESS_DAYS_MAX) {
    throw inputError('invalid_request', `businessDays must be an integer from 1 to ${ACH_ADVANCE_BUSINESS_DAYS_MAX}`);
  }
  return { business_days: days };
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const nullableText = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** transaction.check_details, or null for a card transaction. */
export function readCheckDetails(transaction: Json): CheckDetails | null {
  const details = transaction.check_details;
  if (!isObject(details)) return null;
  return {
    name: text(details.name),
    routing_number: text(details.routing_number),
    account_number_last4: text(details.account_number_last4),
    account_type: text(details.account_type),
    sec_code: text(details.sec_code),
    returned_at: nullableText(details.returned_at),
    returned_code: nullableText(details.returned_code),
    returned_reason: nullableText(details.returned_reason),
  };
}

/** A saved check payment method; the account number is never read (the server answers null). */
export function readCheckPaymentMethod(body: Json): CheckPaymentMethod {
  const method = readPaymentMethod(body);
  return {
    ...method,
    payment_method_type: 'check',
    card_type: null,
    expiry_month: null,
    expiry_year: null,
    routing_number: text(body.routing_number),
    account_type: text(body.account_type),
    sec_code: text(body.sec_code),
    account_number: null,
  };
}

export function readAchAdvance(body: Json): AchAdvance {
  const moved = isObject(body.moved) ? body.moved : {};
  const count = (state: AchAdvanceState) => (typeof moved[state] === 'number' ? (moved[state] as number) : 0);
  return {
    ach_time: text(body.ach_time),
    business_days: Number(body.business_days),
    moved: {
      pending: count('pending'),
      originated: count('originated'),
      settled: count('settled'),
      returned: count('returned'),
      voided: count('voided'),
      declined: count('declined'),
      failed: count('failed'),
    },
  };
}
