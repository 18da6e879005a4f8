// Saved checks: accept.blue's NewCheckPM `{name, routing_number,
// account_number, account_type, sec_code}` on POST
// /api/v2/customers/:id/payment-methods, and its Base fields on PATCH
// /api/v2/payment-methods/:id (docs/checks-and-ach.md). The account number is
// a Secret from the request on: checked, sealed under the card-data key as a
// card number is (only its last four kept in clear) and fingerprinted with
// the card fingerprint's keyed hash over routing and account number, so the
// same account saved twice for one customer is refused with 409 naming the
// method that has it, as a card is. It is never logged nor answered.
//
// Decisions where accept.blue's spec and its integrations differ:
// - sec_code is optional (Vendure's check body has `sec_code?`); WEB when
//   absent, as for a check charge (behaviour.md section 17). Any case is
//   read; the upper-case code is kept.
// - account_type is checking or savings in any case, kept and answered as
//   sent: Vendure compares it case-sensitively to find a saved check again.
// - name is required (the spec's NewCheckPM requires every field; a check
//   charge needs the account holder's name).
import { accountNumberProblem, accountTypeOf, DEFAULT_SEC_CODE, routingNumberProblem, secCodeOf, type SecCode } from '../../domain/ach.ts';
import { Secret } from '../../domain/secret.ts';
import { fail } from '../../errors.ts';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { queryPaymentMethod } from '../../store/vault/payment-methods.ts';
import { editCheckMethod, saveCheckOnce, type SaveCheckRefusal } from '../../store/vault/check-methods.ts';
import {
  changePaymentMethod,
  DuplicateMethodError,
  methodViewFor,
  type MethodChange,
  type MethodView,
  PAYMENT_METHODS_PER_CUSTOMER_MAX,
  saveCard,
  type SaveCardInput,
} from './customers.ts';
import { answered, type Created, createOnce } from './keyed-create.ts';
import { failOn, idOf, type Owner } from './stored-common.ts';
import { cipherOf, type VaultContext } from './vault-context.ts';

/** The members only a check has; any of them (without a card source) makes the request a check's. */
const CHECK_FIELDS = ['routing_number', 'account_number', 'account_type', 'sec_code'] as const;
/** Card members a check request must not carry (refused naming them rather than ignored). */
const CARD_ONLY_FIELDS = ['source', 'expiry_month', 'expiry_year', 'avs_address', 'avs_zip', 'last4'] as const;

/** A card save's body or a check save's: a body naming a check field and no card source is a check's. */
export function isCheckRequest(input: SaveCardInput): boolean {
  return input.source === undefined && CHECK_FIELDS.some((name) => input[name] !== undefined);
}

/** Saves a card or a check for the customer, by what the body names. */
export function savePaymentMethod(
  vault: VaultContext,
  owner: Owner,
  customerId: string,
  input: SaveCardInput,
  idempotencyKey: string | null = null,
): Promise<Created<MethodView>> {
  return isCheckRequest(input) ? saveCheck(vault, owner, customerId, input, idempotencyKey) : saveCard(vault, owner, customerId, input, idempotencyKey);
}

/** A check's fields as checked: the account number still boxed. */
interface CheckedCheck {
  readonly name: string;
  readonly routingNumber: string;
  readonly account: Secret<string>;
  readonly accountType: string;
  readonly secCode: SecCode;
}

function required(input: SaveCardInput, name: 'name' | 'routing_number' | 'account_number' | 'account_type'): string {
  const value = input[name];
  if (value === undefined || value.trim() === '') failOn(name, 'invalid_request', `${name} is required for a check payment method`);
  return value;
}

/** Refuses the body naming its first problem; messages never repeat the account number. */
function checkedCheck(input: SaveCardInput): CheckedCheck {
  const cardField = CARD_ONLY_FIELDS.find((name) => input[name] !== undefined);
  if (cardField !== undefined) failOn(cardField, 'invalid_request', `${cardField} does not apply to a check payment method`);
  const name = required(input, 'name');
  const routingNumber = required(input, 'routing_number');
  const routingProblem = routingNumberProblem(routingNumber);
  if (routingProblem !== null) failOn('routing_number', 'invalid_request', routingProblem);
  const account = new Secret(required(input, 'account_number'));
  const accountProblem = accountNumberProblem(account.reveal());
  if (accountProblem !== null) failOn('account_number', 'invalid_request', accountProblem);
  const accountType = required(input, 'account_type');
  checkAccountType(accountType);
  return { name, routingNumber, account, accountType, secCode: input.sec_code === undefined ? DEFAULT_SEC_CODE : checkedSecCode(input.sec_code) };
}

function checkAccountType(text: string): void {
  if (accountTypeOf(text) === null) failOn('account_type', 'invalid_request', 'account_type must be checking or savings (any case)');
}

function checkedSecCode(text: string): SecCode {
  const code = secCodeOf(text);
  if (code === null) failOn('sec_code', 'invalid_request', 'sec_code must be PPD, CCD, TEL or WEB');
  return code;
}

/**
 * The account's fingerprint: the card fingerprint's keyed hash (per
 * merchant) over routing and account number. The prefix keeps it apart from
 * any card number's.
 */
export function checkFingerprint(cipher: CardCipher, merchantId: string, routingNumber: string, account: Secret<string>): string {
  return cipher.fingerprint(new Secret(`ach:${routingNumber}:${account.reveal()}`), merchantId);
}

export async function saveCheck(
  vault: VaultContext,
  owner: Owner,
  customerId: string,
  input: SaveCardInput,
  idempotencyKey: string | null = null,
): Promise<Created<MethodView>> {
  const customerPk = idOf('customer', customerId);
  const check = checkedCheck(input);
  const cipher = cipherOf(vault);
  const fingerprint = checkFingerprint(cipher, owner.merchantId, check.routingNumber, check.account);
  const method = {
    merchant_id: owner.merchantId,
    customer_pk: customerPk,
    source_id: owner.sourceId,
    // Sealed as a card number is, for the source that saves it: a `pm-` charge opens it as a saved card's.
    card_number_enc: cipher.seal(check.account, 'card_number', owner.sourceId),
    fingerprint,
    last4: check.account.reveal().slice(-4),
    name: check.name,
    routing_number: check.routingNumber,
    account_type: check.accountType,
    sec_code: check.secCode,
  };
  // The key's request hash names the account by its fingerprint, never by its number.
  const body = {
    customer: customerPk,
    name: check.name,
    routing_number: check.routingNumber,
    account: fingerprint,
    account_type: check.accountType,
    sec_code: check.secCode,
  };
  return createOnce(vault.clock, owner, { key: idempotencyKey, operation: 'save-check', body }, async (key) => {
    const answer = await saveCheckOnce(vault.db, {
      key,
      methodsMax: PAYMENT_METHODS_PER_CUSTOMER_MAX,
      method,
      nowMs: vault.clock.nowMs(),
      render: methodViewFor(owner.wireDialect),
    });
    return answered(answer, (refusal) => refuseCheck(refusal, customerPk));
  });
}

function refuseCheck(refusal: SaveCheckRefusal, customerPk: number): never {
  switch (refusal.kind) {
    case 'no-customer':
      return fail('not_found', `customer ${customerPk} not found`);
    case 'too-many':
      return fail('invalid_request', `a customer may have at most ${PAYMENT_METHODS_PER_CUSTOMER_MAX} saved payment methods; delete one first`);
    case 'duplicate':
      throw new DuplicateMethodError(`this bank account is already saved for customer ${customerPk} as payment method ${refusal.of.pk}`, refusal.of);
  }
}

/** A PATCH body: a card's Base fields, a check's, and account_number (named only to be refused). */
export interface AnyMethodChange extends MethodChange {
  readonly routing_number?: string | undefined;
  readonly account_type?: string | undefined;
  readonly sec_code?: string | undefined;
  readonly account_number?: string | undefined;
}

const CARD_CHANGE_FIELDS = ['expiry_month', 'expiry_year', 'avs_address', 'avs_zip'] as const;
const CHECK_CHANGE_FIELDS = ['routing_number', 'account_type', 'sec_code'] as const;

/** Changes a saved card (as before checks existed) or a saved check, by what the method is. */
export async function changeAnyPaymentMethod(vault: VaultContext, owner: Owner, id: string, input: AnyMethodChange): Promise<MethodView> {
  // A new account is a new payment method: its number is never changed in place (accept.blue's BaseCheckPM has none).
  if (input.account_number !== undefined) failOn('account_number', 'invalid_request', 'account_number cannot be changed; save a new payment method');
  const pk = idOf('payment method', id);
  const current = await queryPaymentMethod(vault.db, { merchantId: owner.merchantId, pk });
  if (current === undefined) fail('not_found', `payment method ${pk} not found`);
  if (current.method_type === 'check') return changeCheck(vault, owner, pk, input);
  const checkField = CHECK_CHANGE_FIELDS.find((name) => input[name] !== undefined);
  if (checkField !== undefined) failOn(checkField, 'invalid_request', `${checkField} applies to check payment methods only`);
  return changePaymentMethod(vault, owner, id, input);
}

async function changeCheck(vault: VaultContext, owner: Owner, pk: number, input: AnyMethodChange): Promise<MethodView> {
  const cardField = CARD_CHANGE_FIELDS.find((name) => input[name] !== undefined);
  if (cardField !== undefined) failOn(cardField, 'invalid_request', `${cardField} does not apply to a check payment method`);
  if (input.name !== undefined && input.name.trim() === '') failOn('name', 'invalid_request', 'name must not be empty for a check payment method');
  if (input.routing_number !== undefined) {
    const problem = routingNumberProblem(input.routing_number);
    if (problem !== null) failOn('routing_number', 'invalid_request', problem);
  }
  if (input.account_type !== undefined) checkAccountType(input.account_type);
  const secCode = input.sec_code === undefined ? undefined : checkedSecCode(input.sec_code);
  const cipher = cipherOf(vault);
  const answer = await editCheckMethod(vault.db, {
    merchantId: owner.merchantId,
    pk,
    fields: { name: input.name, routing_number: input.routing_number, account_type: input.account_type, sec_code: secCode },
    fingerprintOf: (sealed, routingNumber) =>
      checkFingerprint(cipher, owner.merchantId, routingNumber, cipher.open(sealed.card_number_enc, 'card_number', sealed.source_id)),
    nowMs: vault.clock.nowMs(),
  });
  if (answer.kind === 'absent') fail('not_found', `payment method ${pk} not found`);
  if (answer.kind === 'duplicate') {
    throw new DuplicateMethodError(`this bank account is already saved for customer ${answer.of.customer_pk} as payment method ${answer.of.pk}`, answer.of);
  }
  return methodViewFor(owner.wireDialect)(answer.row);
}
