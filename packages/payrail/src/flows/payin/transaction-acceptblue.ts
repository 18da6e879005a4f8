// The transaction object in the accept.blue dialect: accept.blue's full
// Transaction (docs/acceptblue-compatibility.md), the `transaction` member of
// an accept.blue charge answer, GET /api/v2/transactions/:id's body and a
// list's item. Pure: the same row always renders the same object. Shop
// plugins read `status_details.status` to decide between void and refund,
// `transaction_details.schedule_id` as an integer and `custom_fields.custom1`.
import { amountBreakdown } from '../../domain/amount-details.ts';
import { acceptBlueCardType } from '../../domain/acceptblue-card-type.ts';
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { transactionStatusOf, utcDate } from '../../domain/card-lifecycle.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import { fundingCustomFields } from '../transfers/funding.ts';
import type { ChargeView, StoredChargeRequest } from './charge-view.ts';
import type { Address } from './charge-extras.ts';
import { checkDetailsOf, checkErrorOf, checkOf, checkSettledDateOf, checkStatusOf } from '../ach/check-view.ts';

/** The funding type of card_details.bin_details (C: credit): no BIN table says otherwise, as in the spec dialect. */
const BIN_TYPE = 'C';

const ADDRESS_FIELDS = ['first_name', 'last_name', 'street', 'street2', 'city', 'state', 'zip', 'country', 'phone'] as const;

/** An address with every member present: null where nothing (or "") was given. */
export function addressOf(address: Address | undefined): Record<(typeof ADDRESS_FIELDS)[number], string | null> {
  const shown = {} as Record<(typeof ADDRESS_FIELDS)[number], string | null>;
  for (const field of ADDRESS_FIELDS) {
    const value = address?.[field];
    shown[field] = value === undefined || value === '' ? null : value;
  }
  return shown;
}

const orNull = <T>(value: T | undefined): T | null => (value === undefined || value === '' ? null : value);

/**
 * accept.blue's status_details.status: an authorization not yet captured is
 * "queued" (the integrations void queued, captured and pending transactions
 * and refund settled ones); every other status reads as in the spec dialect.
 */
export function acceptBlueStatusOf(charge: Pick<ChargeView, 'kind' | 'status' | 'stage' | 'op' | 'check'>): string {
  const check = checkOf(charge);
  if (check !== null) return checkStatusOf(check);
  const status = transactionStatusOf(charge);
  return status === 'approved' && charge.kind === 'charge' ? 'queued' : status;
}

/** The amount asked for: what a partial approval authorized less than (rows stored before have no note of it). */
export function requestedCentsOf(charge: Pick<ChargeView, 'amount_cents'>, request: StoredChargeRequest): number {
  return request.requested_cents ?? charge.amount_cents;
}

/** The merchant's surcharge in a charge's amount (flows/payin/surcharge.ts); a refund's row carries its charge's request, not its surcharge. */
export function surchargeCentsOf(charge: Pick<ChargeView, 'kind'>, request: StoredChargeRequest): number {
  return charge.kind === 'charge' ? (request.surcharge_cents ?? 0) : 0;
}

/** The amount details a transaction shows: a mandatory surcharge overwrites the one sent, as accept.blue's does. */
export function figuresOf(request: StoredChargeRequest, surchargeCents: number): StoredChargeRequest['amount_details'] {
  return surchargeCents > 0 ? { ...request.amount_details, surcharge: surchargeCents / 100 } : request.amount_details;
}

export function renderAcceptBlueTransaction(charge: ChargeView, funded: readonly FundedTransferRow[]): Record<string, unknown> {
  const request = JSON.parse(charge.request_json) as StoredChargeRequest;
  const approved = charge.status === 'approved';
  // A capture or refund shows the amount it moved, as in the spec dialect.
  const amountCents = charge.captured_cents > 0 ? charge.captured_cents : charge.amount_cents;
  const surchargeCents = surchargeCentsOf(charge, request);
  const figures = amountBreakdown(amountCents, figuresOf(request, surchargeCents));
  const details = request.transaction_details;
  const billing = request.billing_info;
  // A check (accept.blue's CheckTransaction): check_details in place of card_details, its entry's status, no batch.
  const check = checkOf(charge);
  const error = check === null ? { code: charge.error_code, message: charge.error_message } : checkErrorOf(check, charge);
  return {
    id: charge.pk,
    created_at: isoTime(charge.created_at_ms),
    settled_date: check !== null ? checkSettledDateOf(check) : charge.settled_at_ms === null ? null : utcDate(charge.settled_at_ms),
    amount_details: {
      amount: centsToDollarNumber(amountCents),
      tax: centsToDollarNumber(figures.taxCents),
      tax_percent: figures.taxPercent,
      surcharge: centsToDollarNumber(figures.surchargeCents),
      shipping: centsToDollarNumber(figures.shippingCents),
      tip: centsToDollarNumber(figures.tipCents),
      discount: centsToDollarNumber(figures.discountCents),
      subtotal: centsToDollarNumber(figures.subtotalCents),
      original_requested_amount: centsToDollarNumber(requestedCentsOf(charge, request) - surchargeCents),
      original_authorized_amount: approved ? centsToDollarNumber(charge.amount_cents) : 0,
    },
    transaction_details: {
      description: details.description,
      clerk: details.clerk,
      terminal: details.terminal,
      client_ip: details.client_ip,
      signature: null,
      invoice_number: details.invoice_number,
      po_number: details.po_number,
      order_number: details.order_number,
      batch_id: check === null ? charge.batch_id : null,
      source: 'api',
      terminal_name: null,
      terminal_id: null,
      username: null,
      type: charge.kind === 'refund' ? 'credit' : 'charge',
      // A refund names the transaction it refunds.
      reference_number: charge.parent_pk,
      schedule_id: charge.schedule_pk,
    },
    customer: {
      identifier: orNull(request.customer?.identifier),
      email: orNull(request.customer?.email),
      fax: orNull(request.customer?.fax),
      customer_id: charge.customer_pk,
    },
    status_details: {
      status: acceptBlueStatusOf(charge),
      error_code: error.code,
      error_message: error.message,
    },
    billing_info: addressOf(billing),
    shipping_info: addressOf(request.shipping_info),
    custom_fields: { ...request.custom_fields, ...fundingCustomFields(funded) },
    line_items: request.line_items ?? [],
    ...(check === null ? { card_details: cardDetailsOf(charge, request) } : { check_details: checkDetailsOf(check, charge.last4) }),
  };
}

/** accept.blue's card_details of a card transaction. */
function cardDetailsOf(charge: ChargeView, request: StoredChargeRequest): Record<string, unknown> {
  const avs = avsResultOf(charge.avs_result_code);
  const billing = request.billing_info;
  return {
    name: orNull(request.name),
    last4: charge.last4,
    expiry_month: charge.expiry_month,
    expiry_year: charge.expiry_year,
    card_type: acceptBlueCardType(charge.card_type),
    avs_street: orNull(request.avs_address ?? billing.street),
    avs_zip: orNull(request.avs_zip ?? billing.zip),
    auth_code: orNull(charge.auth_code ?? undefined),
    bin: charge.bin,
    bin_details: { type: BIN_TYPE },
    avs_result: orNull(avs.text),
    avs_result_code: orNull(charge.avs_result_code ?? undefined),
    cvv_result: orNull(cvvResultOf(charge.cvv_result_code)),
    cvv_result_code: orNull(charge.cvv_result_code ?? undefined),
    cavv_result: null,
    cavv_result_code: null,
  };
}
