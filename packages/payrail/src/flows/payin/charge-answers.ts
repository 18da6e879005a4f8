// The charge API's reply bodies (docs/interface-spec.md section 2.2, docs/api-decisions.md section 8), built from a
// charge row. Shape A for approved and pending charges, shape B for declined
// and failed ones. Every field is always present: fields the spec types as
// nullable are null when empty, all other strings are "". Pure functions: the
// same row always renders the same body, which is what an idempotent replay
// and GET /api/v2/transactions/:id rely on.
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import { transactionStatusOf, utcDate } from '../../domain/card-lifecycle.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import { fundingCustomFields } from '../transfers/funding.ts';
import type { Billing } from '../../store/payin/card-source.ts';

/** The `version` field of every shape A reply: the payin API's version text. */
export const PAYIN_API_VERSION = '2.0';

/** What a charge keeps of its request (never card data: that is sealed separately). */
export interface StoredChargeRequest {
  readonly billing_info: Billing;
  readonly transaction_details: {
    readonly description: string | null;
    readonly clerk: string | null;
    readonly terminal: string | null;
    readonly client_ip: string | null;
    readonly invoice_number: string | null;
    readonly po_number: string | null;
    readonly order_number: string | null;
  };
}

/** The fields of a charge row a reply is built from. */
export type ChargeView = Pick<
  TransactionRow,
  | 'pk'
  | 'status'
  | 'amount_cents'
  | 'currency'
  | 'card_type'
  | 'last4'
  | 'bin'
  | 'expiry_month'
  | 'expiry_year'
  | 'auth_code'
  | 'avs_result_code'
  | 'cvv_result_code'
  | 'error_code'
  | 'error_message'
  | 'request_json'
  | 'created_at_ms'
  // The lifecycle (docs/api-decisions.md sections 10 and 14).
  | 'kind'
  | 'parent_pk'
  | 'stage'
  | 'op'
  | 'captured_cents'
  | 'batch_id'
  | 'settled_at_ms'
  // Stored customers and schedules (docs/api-decisions.md section 15).
  | 'customer_pk'
  | 'schedule_pk'
>;

/** The funding type we report in card_details.bin_details.type: no BIN table says otherwise. */
const BIN_TYPE = 'credit';

/** `funded`: the transfers the charge pays for, shown in custom_fields (see transfers/funding.ts). */
export function renderCharge(charge: ChargeView, funded: readonly FundedTransferRow[] = []): Record<string, unknown> {
  return charge.status === 'approved' || charge.status === 'pending' ? renderAcceptedCharge(charge, funded) : renderRefusedCharge(charge);
}

/** An approved or pending charge: the full transaction body with card, AVS and CVV results (spec shape A). */
function renderAcceptedCharge(charge: ChargeView, funded: readonly FundedTransferRow[]): Record<string, unknown> {
  const request = JSON.parse(charge.request_json) as StoredChargeRequest;
  const approved = charge.status === 'approved';
  const requested = centsToDollarNumber(charge.amount_cents);
  // A capture or refund shows the amount it moved (docs/api-decisions.md section 14).
  const amount = centsToDollarNumber(charge.captured_cents > 0 ? charge.captured_cents : charge.amount_cents);
  const authorized = approved ? requested : 0;
  const authCode = charge.auth_code ?? '';
  const avs = avsResultOf(charge.avs_result_code);
  const avsCode = charge.avs_result_code ?? '';
  const cvvText = cvvResultOf(charge.cvv_result_code);
  const cvvCode = charge.cvv_result_code ?? '';
  const details = request.transaction_details;
  return {
    status: approved ? 'Approved' : 'Pending',
    status_code: approved ? 'A' : 'P',
    reference_number: charge.pk,
    auth_code: authCode,
    auth_amount: authorized,
    card_type: charge.card_type,
    last_4: charge.last4,
    avs_result: avs.text,
    avs_result_code: avsCode,
    cvv2_result: cvvText,
    cvv2_result_code: cvvCode,
    version: PAYIN_API_VERSION,
    transaction: {
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
        surcharge: 0,
        original_requested_amount: requested,
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
    },
  };
}

/** A declined or failed charge: the short body with its error (spec shape B). */
function renderRefusedCharge(charge: ChargeView): Record<string, unknown> {
  return {
    id: String(charge.pk),
    status: charge.status,
    amount: centsToDollarNumber(charge.amount_cents),
    currency: charge.currency,
    error: { code: charge.error_code ?? '', message: charge.error_message ?? '' },
    card: { last_four: charge.last4, card_type: charge.card_type },
    created_at: isoTime(charge.created_at_ms),
  };
}
