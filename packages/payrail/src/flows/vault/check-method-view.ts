// A saved check as the payment method endpoints answer it, in both wire
// dialects: accept.blue's CheckPaymentMethod members (name, routing_number,
// account_type as the request wrote it, sec_code, last4, account_number
// always null), and the card members a reader of either kind indexes
// (Vendure's GraphQL type requires expiry_month and expiry_year; it reads
// card_type) present and null, so nothing reads as a card.
import { isoTime } from '../../domain/iso-time.ts';
import type { PaymentMethodRow } from '../../store/payment-methods.ts';

export interface CheckMethodView {
  id: number;
  customer_id: number;
  created_at: string;
  payment_method_type: 'check';
  name: string | null;
  routing_number: string | null;
  /** As the request wrote it: shop plugins compare it case-sensitively. */
  account_type: string | null;
  sec_code: string | null;
  last4: string;
  /** Never shown: only its last four digits. */
  account_number: null;
  card_type: null;
  expiry_month: null;
  expiry_year: null;
}

export function renderCheckMethod(row: PaymentMethodRow): CheckMethodView {
  return {
    id: row.pk,
    customer_id: row.customer_pk,
    created_at: isoTime(row.created_at_ms),
    payment_method_type: 'check',
    name: row.name,
    routing_number: row.routing_number,
    account_type: row.account_type,
    sec_code: row.sec_code,
    last4: row.last4,
    account_number: null,
    card_type: null,
    expiry_month: null,
    expiry_year: null,
  };
}
