// The transaction object: how one card transaction reads, as the `transaction`
// member of a charge answer, in transaction lists and in events. Pure: the
// same row always renders the same object. The accept.blue dialect's object
// is built in transaction-acceptblue.ts; the spec dialect's is here, and
// shows the accept.blue request fields a charge kept (amount details,
// custom fields, customer, shipping address, name) in its own members.
import { amountBreakdown } from '../../domain/amount-details.ts';
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { transactionStatusOf, utcDate } from '../../domain/card-lifecycle.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import { fundingCustomFields } from '../transfers/funding.ts';
import { checkDetailsOf, checkOf, checkSettledDateOf, checkStatusOf } from '../ach/check-view.ts';
import type { ChargeView, StoredChargeRequest } from './charge-view.ts';
import { addressOf, figuresOf, renderAcceptBlueTransaction, requestedCentsOf, surchargeCentsOf } from './transaction-acceptblue.ts';

/** The funding type we report in card_details.bin_details.type: no BIN table says otherwise. */
const BIN_TYPE = 'credit';

/**
 * `funded`: the transfers the charge pays for, shown in custom_fields (see transfers/funding.ts).
 * `dialect`: the caller's wire dialect (accept.blue's Transaction object in `acceptblue`).
 */
export function renderTransaction(charge: ChargeView, funded: readonly FundedTransferRow[] = [], dialect: WireDialect = 'spec'): Record<string, unknown> {
  return dialect === 'acceptblue' ? renderAcceptBlueTransaction(charge, funded) : renderSpecTransaction(charge, funded);
}

function renderSpecTransaction(charge: ChargeView, funded: readonly FundedTransferRow[]): Record<string, unknown> {
  const request = JSON.parse(charge.request_json) as StoredChargeRequest;
  const approved = charge.status === 'approved';
  // A capture or refund shows the amount it moved (docs/api-decisions.md section 14).
  const amountCents = charge.captured_cents > 0 ? charge.captured_cents : charge.amount_cents;
  const amount = centsToDollarNumber(amountCents);
  // What was authorized: less than asked for after a partial approval.
  const authorized = approved ? centsToDollarNumber(charge.amount_cents) : 0;
  const surchargeCents = surchargeCentsOf(charge, request);
  const figures = amountBreakdown(amountCents, figuresOf(request, surchargeCents));
  const authCode = charge.auth_code ?? '';
  const avs = avsResultOf(charge.avs_result_code);
  const avsCode = charge.avs_result_code ?? '';
  const cvvText = cvvResultOf(charge.cvv_result_code);
  const cvvCode = charge.cvv_result_code ?? '';
  const details = request.transaction_details;
  // A check shows its account (check_details) in place of a card, its entry's status, and no batch (behaviour section 17).
  const check = checkOf(charge);
  const cardDetails = {
    card_type: charge.card_type,
    last4: charge.last4,
    bin: charge.bin,
    auth_code: authCode,
    avs_result: avs.text,
    avs_result_code: avsCode,
    avs_street: avs.street,
    avs_zip: avs.zip,
    cvv_result: cvvText,
    cvv_result_code: cvvCode,
    cavv_result: '',
    cavv_result_code: null,
    expiry_month: charge.expiry_month,
    expiry_year: charge.expiry_year,
    bin_details: { type: BIN_TYPE },
    name: request.name ?? null,
  };
  return {
    id: charge.pk,
    created_at: isoTime(charge.created_at_ms),
    status_details: { status: check === null ? transactionStatusOf(charge) : checkStatusOf(check) },
    amount_details: {
      amount,
      subtotal: centsToDollarNumber(figures.subtotalCents),
      tax: centsToDollarNumber(figures.taxCents),
      tax_percent: figures.taxPercent,
      shipping: centsToDollarNumber(figures.shippingCents),
      discount: centsToDollarNumber(figures.discountCents),
      tip: centsToDollarNumber(figures.tipCents),
      surcharge: centsToDollarNumber(figures.surchargeCents),
      original_requested_amount: centsToDollarNumber(requestedCentsOf(charge, request) - surchargeCents),
      original_authorized_amount: authorized,
    },
    ...(check === null ? { card_details: cardDetails } : { check_details: checkDetailsOf(check, charge.last4) }),
    billing_info: { ...request.billing_info },
    shipping_info: addressOf(request.shipping_info),
    transaction_details: {
      type: charge.kind,
      source: 'api',
      // Not in a batch (yet): 0, as the field is an integer that is never null for a card; a check is never in one (null).
      batch_id: check === null ? (charge.batch_id ?? 0) : null,
      description: details.description,
      order_number: details.order_number,
      invoice_number: details.invoice_number,
      po_number: details.po_number,
      // A refund names the transaction it refunds.
      reference_number: charge.parent_pk === null ? null : String(charge.parent_pk),
      clerk: details.clerk,
      terminal: details.terminal,
      client_ip: details.client_ip,
      schedule_id: charge.schedule_pk === null ? null : String(charge.schedule_pk),
    },
    customer: {
      customer_id: charge.customer_pk === null ? null : String(charge.customer_pk),
      identifier: request.customer?.identifier ?? null,
      email: request.customer?.email ?? null,
      fax: request.customer?.fax ?? null,
    },
    custom_fields: { ...request.custom_fields, ...fundingCustomFields(funded) },
    settled_date: check !== null ? checkSettledDateOf(check) : charge.settled_at_ms === null ? null : utcDate(charge.settled_at_ms),
  };
}
