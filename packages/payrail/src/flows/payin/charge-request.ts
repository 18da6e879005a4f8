// What a charge request is: its body, the checks the schema cannot make (the
// amount's exact form and bounds, the source, the expiry, the key's form), and
// what a charge keeps of it (docs/api-decisions.md sections 3, 8 and 15).
import { checkExpiry } from '../../domain/cards.ts';
import { parseDollarNumber, parseDollarString } from '../../domain/money.ts';
import { parsePaymentSource, type PaymentSource } from '../../domain/payment-source.ts';
import { fail } from '../../errors.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import { IDEMPOTENCY_KEY_PATTERN, type KeyedRequest, keyedRequest } from '../common/idempotency-replay.ts';
import type { StoredChargeRequest } from './charge-answers.ts';
import { type Address, type ChargeExtrasRequest, keptExtras } from './charge-extras.ts';
import { checkOffered, checkSpecBilling } from './charge-rules.ts';
import { checkCardOrSource } from './raw-card.ts';
import { type CheckFieldsRequest, sendsBankAccount } from '../ach/check-account.ts';

/** Charge amount bounds in cents (docs/api-decisions.md section 3 leaves them to us): 0.50 to 100,000.00 USD. */
export const CHARGE_AMOUNT_CENTS_MIN = 50;
export const CHARGE_AMOUNT_CENTS_MAX = 10_000_000;

type Text = string | undefined;

export interface ChargeRequest extends ChargeExtrasRequest, CheckFieldsRequest {
  readonly amount: number;
  /** Exactly one of source and card (raw-card.ts turns a card into a nonce source before the charge is reserved). */
  readonly source?: string | undefined;
  // A card sent as such, and saved-card tokens (docs/acceptblue-compatibility.md).
  readonly card?: string | undefined;
  /** true: an approval issues a saved-card token (card_ref) for a card, a nonce or a `tkn-` source. */
  readonly save_card?: boolean | undefined;
  /** false authorizes only (docs/api-decisions.md section 10); absent or true captures at once. */
  readonly capture?: boolean | undefined;
  /** Required with a nonce; with a `pm-` or `ref-` source taken from the stored card when absent (docs/api-decisions.md section 15). */
  readonly expiry_month?: number | undefined;
  readonly expiry_year?: number | undefined;
  /** Spec dialect: the interface spec's required members (checkSpecBilling); accept.blue dialect: any of them. */
  readonly billing_info?: Address | undefined;
  /** The security code of a card sent as such (raw-card.ts); never kept. With a source: accepted, unused (a nonce carries its own, a stored source needs none). */
  readonly cvv2?: Text;
  /** Charges Payrail does not offer (checkOffered). */
  readonly magstripe?: Text;
  readonly terminal_id?: string | number | undefined;
  readonly token?: unknown;
  readonly transaction_details?:
    | {
        readonly description?: Text;
        readonly clerk?: Text;
        readonly terminal?: Text;
        readonly client_ip?: Text;
        readonly signature?: Text;
        readonly invoice_number?: Text;
        readonly po_number?: Text;
        readonly order_number?: Text;
      }
    | undefined;
}

export interface ChargeInput {
  readonly request: ChargeRequest;
  /** The amount exactly as written in the JSON body, when the caller has it (exponents and extra decimals are refused). */
  readonly amountText: string | null;
  readonly idempotencyKey: string | null;
}

export interface Payer {
  readonly merchantId: string;
  readonly sourceId: string;
  /** The source's wire dialect (spec when absent): kept with the charge, its answers are written in it. */
  readonly wireDialect?: WireDialect | undefined;
}

/**
 * Checks what the schema cannot: what is offered, the spec dialect's billing
 * rules, the amount's exact form and bounds, the expiry date, the key's form.
 * Returns the amount to charge in cents: the one place it is computed.
 */
export function validateCharge(input: ChargeInput, nowMs: number, dialect: WireDialect = 'spec'): number {
  checkOffered(input.request);
  if (dialect === 'spec') checkSpecBilling(input.request.billing_info);
  if (!(input.request.amount > 0)) fail('invalid_amount', 'amount must be greater than zero');
  const parsed = input.amountText !== null ? parseDollarString(input.amountText) : parseDollarNumber(input.request.amount);
  if (!parsed.ok) fail('invalid_amount', `amount ${parsed.reason}`);
  if (parsed.cents < CHARGE_AMOUNT_CENTS_MIN) fail('invalid_amount', 'amount must be at least 0.50');
  if (parsed.cents > CHARGE_AMOUNT_CENTS_MAX) fail('invalid_amount', 'amount must be at most 100000.00');
  const request = input.request;
  // A bank account sent as such is a check (behaviour section 17): exactly one way to pay, and no card rules apply.
  if (sendsBankAccount(request)) {
    if (request.card !== undefined || request.source !== undefined) {
      fail('invalid_request', 'send exactly one of card, source or a bank account (routing_number, account_number, name), not several');
    }
    checkKeyForm(input.idempotencyKey);
    return parsed.cents;
  }
  checkCardOrSource(request);
  const source = request.source === undefined ? { kind: 'card' as const } : parsePaymentSource(request.source);
  if (source === null) {
    const text = request.source ?? '';
    if (/^(pm|ref|tkn)-/.test(text)) fail('not_found', `source ${text.slice(0, 40)} names no payment method, reference or saved card`);
    fail('invalid_nonce', 'source is not a nonce from tokenization');
  }
  if (source.kind === 'nonce') {
    // Only a stored card knows its own expiry and billing (docs/api-decisions.md section 15); an
    // accept.blue caller may leave the billing address out, as accept.blue allows.
    const required = dialect === 'spec' ? (['expiry_month', 'expiry_year', 'billing_info'] as const) : (['expiry_month', 'expiry_year'] as const);
    for (const field of required) {
      if (request[field] === undefined) fail('invalid_request', `${field} is required`);
    }
  }
  if ((request.expiry_month === undefined) !== (request.expiry_year === undefined)) fail('invalid_request', 'expiry_month and expiry_year go together');
  if (request.expiry_month !== undefined && request.expiry_year !== undefined) {
    const expiryProblem = checkExpiry(request.expiry_month, request.expiry_year, nowMs);
    if (expiryProblem !== null) fail('invalid_card', expiryProblem);
  }
  checkKeyForm(input.idempotencyKey);
  return parsed.cents;
}

function checkKeyForm(idempotencyKey: string | null): void {
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    fail('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
}

/** The source of a request validate() accepted. */
export function sourceOf(request: Pick<ChargeRequest, 'source'>): PaymentSource {
  const source = request.source === undefined ? null : parsePaymentSource(request.source);
  if (source === null) throw new Error('charge source was not validated');
  return source;
}

/** What an Idempotency-Key remembers of a charge (exported for tests that reserve a charge themselves). */
export function chargeKeyedRequest(key: string, request: ChargeRequest): KeyedRequest {
  return keyedRequest(key, 'charge', request, 'body-only');
}

/** What the charge was asked in and for, kept with its request (absent for the spec dialect's full-amount charges' older rows). */
export interface StoredContext {
  readonly wireDialect: WireDialect;
  readonly requestedCents?: number | undefined;
}

/**
 * What a charge keeps of its request; verify (verify.ts) keeps the same. The
 * accept.blue members and the dialect are kept only when there are any, so a
 * spec-dialect charge keeps exactly what it kept before them.
 */
export function storedRequest(
  request: Omit<ChargeRequest, 'amount'>,
  billingOfCard?: StoredChargeRequest['billing_info'],
  context: StoredContext = { wireDialect: 'spec' },
): StoredChargeRequest {
  const billing = request.billing_info ?? billingOfCard ?? {};
  const details = request.transaction_details ?? {};
  return {
    ...(context.wireDialect === 'spec' ? {} : { wire_dialect: context.wireDialect }),
    ...(context.requestedCents === undefined ? {} : { requested_cents: context.requestedCents }),
    billing_info: {
      first_name: billing.first_name ?? '',
      last_name: billing.last_name ?? '',
      street: billing.street ?? '',
      street2: billing.street2 ?? '',
      city: billing.city ?? '',
      state: billing.state ?? '',
      zip: billing.zip ?? '',
      country: billing.country ?? '',
      phone: billing.phone ?? '',
    },
    transaction_details: {
      description: details.description ?? null,
      clerk: details.clerk ?? null,
      terminal: details.terminal ?? null,
      client_ip: details.client_ip ?? null,
      invoice_number: details.invoice_number ?? null,
      po_number: details.po_number ?? null,
      order_number: details.order_number ?? null,
    },
    ...keptExtras(request),
  };
}

/** The billing address as stored (optional fields as ""), when the request has one. */
export function billingOf(request: ChargeRequest): StoredChargeRequest['billing_info'] | undefined {
  return request.billing_info === undefined ? undefined : storedRequest(request).billing_info;
}
