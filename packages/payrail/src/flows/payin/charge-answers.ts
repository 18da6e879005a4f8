// The charge API's reply bodies (docs/interface-spec.md section 2.2, docs/api-decisions.md section 8), built from a
// charge row. Shape A for approved and pending charges, shape B for declined
// and failed ones. Every field is always present: fields the spec types as
// nullable are null when empty, all other strings are "". Pure functions: the
// same row always renders the same body, which is what an idempotent replay
// and GET /api/v2/transactions/:id rely on.
import { avsResultOf, cvvResultOf } from '../../domain/card-results.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import type { FundedTransferRow } from '../../store/transfers.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';
import type { Billing } from '../../store/payin/card-source.ts';
import { renderTransaction } from './transaction-view.ts';

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
  // Saved-card tokens (docs/acceptblue-compatibility.md).
  | 'save_card_ref'
  | 'card_ref'
>;

/** `funded`: the transfers the charge pays for, shown in custom_fields (see transfers/funding.ts). */
export function renderCharge(charge: ChargeView, funded: readonly FundedTransferRow[] = [], _dialect: WireDialect = 'spec'): Record<string, unknown> {
  return charge.status === 'approved' || charge.status === 'pending' ? renderAcceptedCharge(charge, funded) : renderRefusedCharge(charge);
}

/** An approved or pending charge: the full transaction body with card, AVS and CVV results (spec shape A). */
function renderAcceptedCharge(charge: ChargeView, funded: readonly FundedTransferRow[]): Record<string, unknown> {
  const approved = charge.status === 'approved';
  const authorized = approved ? centsToDollarNumber(charge.amount_cents) : 0;
  const authCode = charge.auth_code ?? '';
  const avs = avsResultOf(charge.avs_result_code);
  const avsCode = charge.avs_result_code ?? '';
  const cvvText = cvvResultOf(charge.cvv_result_code);
  const cvvCode = charge.cvv_result_code ?? '';
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
    transaction: renderTransaction(charge, funded),
    // Only a request with save_card shows it: every other answer stays as it was.
    ...(charge.save_card_ref === null ? {} : { card_ref: charge.card_ref }),
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
