// The view of a charge row the answers are rendered from, and what a charge
// keeps of its request (never card data: that is sealed separately). Its own
// file, so that the renderers of both dialects (charge-answers.ts,
// charge-acceptblue.ts, transaction-view.ts, transaction-acceptblue.ts) share
// it without importing each other.
import type { Billing } from '../../store/payin/card-source.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import type { StoredChargeExtras } from './charge-extras.ts';

/** What a charge keeps of its request (never card data: that is sealed separately). */
export interface StoredChargeRequest extends StoredChargeExtras {
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
  /** The merchant's surcharge included in the charge's amount_cents (flows/payin/surcharge.ts); absent: none. */
  readonly surcharge_cents?: number;
}

/** The fields of a charge row a reply is built from; a check's entry facts in `check` (absent or null: a card). */
export type ChargeView = Partial<Pick<TransactionRow, 'check'>> &
  Pick<
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
