// The transaction object: how one card transaction reads, as the `transaction`
// member of a charge answer, in transaction lists and in events. Pure: the
// same row always renders the same object.
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { transactionStatusOf, utcDate } from '../../domain/card-lifecycle.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import { fundingCustomFields } from '../transfers/funding.ts';
import type { ChargeView, StoredChargeRequest } from './charge-answers.ts';

/** The funding type we report in card_details.bin_details.type: no BIN table says otherwise. */
const BIN_TYPE = 'credit';

/**
 * `funded`: the transfers the charge pays for, shown in custom_fields (see transfers/funding.ts).
 * `dialect`: the caller's wire dialect (accept.blue's Transaction object in `acceptblue`).
 */
export function renderTransaction(charge: ChargeView, funded: readonly FundedTransferRow[] = [], _dialect: WireDialect = 'spec'): Record<string, unknown> {
  const request = JSON.parse(charge.request_json) as StoredChargeRequest;
  const approved = charge.status === 'approved';
  const requested = centsToDollarNumber(charge.amount_cents);
  // A capture or refund shows the amount it moved (docs/api-decisions.md section 14).
  const amount = centsToDollarNumber(charge.captured_cents > 0 ? charge.captured_cents : charge.amount_cents);
  const authorized = approved ? requested : 0;
  // A charge's amount includes the merchant's surcharge; a refund's row carries its charge's request, not its surcharge.
  const surchargeCents = charge.kind === 'charge' ? (request.surcharge_cents ?? 0) : 0;
  const authCode = charge.auth_code ?? '';
  const avs = avsResultOf(charge.avs_result_code);
  const avsCode = charge.avs_result_code ?? '';
  const cvvText = cvvResultOf(charge.cvv_result_code);
  const cvvCode = charge.cvv_result_code ?? '';
  const details = request.transaction_details;
  return {
    id: charge.pk,
    created_at: isoTime(charge.created_at_ms),
    status_details: { status: transactionStatusOf(charge) },
    amount_details: {
      amount,
      subtotal: amount,
      tax: 0,
      tax_percent: 0,
      shipping: 0,
      discount: 0,
      tip: 0,
      surcharge: centsToDollarNumber(surchargeCents),
      original_requested_amount: centsToDollarNumber(charge.amount_cents - surchargeCents),
      original_authorized_amount: authorized,
    },
    card_details: {
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
      name: null,
    },
    billing_info: { ...request.billing_info },
    shipping_info: {
      first_name: null,
      last_name: null,
      street: null,
      street2: null,
      city: null,
      state: null,
      zip: null,
      country: null,
      phone: null,
    },
    transaction_details: {
      type: charge.kind,
      source: 'api',
      // Not in a batch (yet): 0, as the field is an integer that is never null.
      batch_id: charge.batch_id ?? 0,
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
    customer: { customer_id: charge.customer_pk === null ? null : String(charge.customer_pk), identifier: null, email: null, fax: null },
    custom_fields: fundingCustomFields(funded),
    settled_date: charge.settled_at_ms === null ? null : utcDate(charge.settled_at_ms),
  };
}
