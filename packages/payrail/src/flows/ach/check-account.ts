// The bank account of a check charge or credit (behaviour.md section 17):
// read from a request's CheckFields, or from a saved check payment method
// (`pm-`), and checked by the rules of domain/ach.ts. The account number is
// a Secret from the moment it is read until it is sealed; nothing here logs
// or answers it.
import {
  ACCOUNT_NAME_LENGTH_MAX,
  type AccountType,
  accountNumberProblem,
  accountTypeOf,
  DEFAULT_SEC_CODE,
  routingNumberProblem,
  type SecCode,
  secCodeOf,
} from '../../domain/ach.ts';
import { Secret } from '../../domain/secret.ts';
import { ApiError, fail } from '../../errors.ts';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import type { MethodAccount } from '../../store/ach/method-account.ts';

/** A request's bank account members (accept.blue's CheckFields) and the name on the account. */
export interface CheckFieldsRequest {
  readonly name?: string | undefined;
  readonly routing_number?: string | undefined;
  readonly account_number?: string | undefined;
  readonly account_type?: string | undefined;
  readonly sec_code?: string | undefined;
}

/** A bank account ready for an ACH entry. */
export interface CheckAccount {
  readonly name: string;
  readonly routingNumber: string;
  readonly accountNumber: Secret<string>;
  /** As the request (or the saved method) wrote it: answers echo it. */
  readonly accountTypeAsSent: string;
  readonly accountType: AccountType;
  readonly secCode: SecCode;
  readonly last4: string;
  /** The saved check payment method it came from, with its customer; null for an account sent as such. */
  readonly method: { readonly pk: number; readonly customerPk: number } | null;
}

const invalid = (message: string, field: string): never => {
  throw new ApiError('invalid_request', message, undefined, field);
};

/** Whether the request names a bank account (routing_number, account_number or account_type): a check, not a card. */
export function sendsBankAccount(request: CheckFieldsRequest): boolean {
  return request.routing_number !== undefined || request.account_number !== undefined || request.account_type !== undefined;
}

/** The account a request sends, checked: name, routing number (ABA check digit), account number (4 to 17 digits). */
export function checkAccountOf(request: CheckFieldsRequest): CheckAccount {
  const name = (request.name ?? '').trim();
  if (name === '') invalid('name is required with a bank account (the name on the account)', 'name');
  if (name.length > ACCOUNT_NAME_LENGTH_MAX) invalid(`name must be at most ${ACCOUNT_NAME_LENGTH_MAX} characters`, 'name');
  if (request.routing_number === undefined) invalid('routing_number is required with a bank account', 'routing_number');
  if (request.account_number === undefined) invalid('account_number is required with a bank account', 'account_number');
  const routingProblem = routingNumberProblem(request.routing_number!);
  if (routingProblem !== null) invalid(routingProblem, 'routing_number');
  const accountNumber = new Secret(request.account_number!);
  const accountProblem = accountNumberProblem(accountNumber.reveal());
  if (accountProblem !== null) invalid(accountProblem, 'account_number');
  const accountTypeAsSent = request.account_type ?? 'checking';
  return {
    name,
    routingNumber: request.routing_number!,
    accountNumber,
    accountTypeAsSent,
    accountType: accountTypeOf(accountTypeAsSent) ?? invalid('account_type must be checking or savings', 'account_type'),
    secCode: secCodeOfRequest(request) ?? DEFAULT_SEC_CODE,
    last4: accountNumber.reveal().slice(-4),
    method: null,
  };
}

/** The account of a saved check method, opened from its seal; a sent sec_code overrides the method's. */
export function methodCheckAccount(cipher: CardCipher, method: MethodAccount, request: CheckFieldsRequest): CheckAccount {
  const accountNumber = cipher.open(method.card_number_enc, 'card_number', method.source_id);
  return {
    name: method.name,
    routingNumber: method.routing_number,
    accountNumber,
    accountTypeAsSent: method.account_type,
    accountType: accountTypeOf(method.account_type) ?? 'checking',
    secCode: secCodeOfRequest(request) ?? method.sec_code,
    last4: method.last4,
    method: { pk: method.pk, customerPk: method.customer_pk },
  };
}

function secCodeOfRequest(request: CheckFieldsRequest): SecCode | null {
  if (request.sec_code === undefined) return null;
  return secCodeOf(request.sec_code) ?? invalid('sec_code must be PPD, CCD, TEL or WEB', 'sec_code');
}

/** The request as an Idempotency-Key remembers it: the account number as a keyed fingerprint (a plain hash of it could be brute-forced). */
export function keyedCheckBodyOf<R extends CheckFieldsRequest>(cipher: CardCipher, merchantId: string, request: R): R {
  if (request.account_number === undefined) return request;
  return { ...request, account_number: cipher.fingerprint(new Secret(request.account_number), merchantId) };
}

/** Refuses a check when this installation has no ACH network (PAYRAIL_ACH_NETWORK=none), before anything is written. */
export function requireAchNetwork<N>(network: N | null): N {
  if (network === null) fail('check_payments_unavailable', 'check (ACH) payments are not available: this installation has no ACH network; nothing was written');
  return network;
}
