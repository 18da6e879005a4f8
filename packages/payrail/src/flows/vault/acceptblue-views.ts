// Stored customers, payment methods and schedules as accept.blue's v2 API
// shows them (docs/acceptblue-compatibility.md), for callers in the
// `acceptblue` dialect: every member present (null when never given), card
// types spelled as accept.blue spells them, addresses with every key. The
// `spec` dialect keeps the section 15 views (customers.ts, schedule-view.ts).
import { isoTime } from '../../domain/iso-time.ts';
import type { CustomerRow } from '../../store/customers.ts';
import type { PaymentMethodRow } from '../../store/payment-methods.ts';
import type { ScheduleRow } from '../../store/schedules.ts';
import { type CheckMethodView, renderCheckMethod } from './check-method-view.ts';
import { renderSchedule, type ScheduleView } from './schedule-view.ts';

/** accept.blue's Address members (the request schema names the same). */
export const ADDRESS_FIELDS = ['first_name', 'last_name', 'street', 'street2', 'state', 'city', 'zip', 'country', 'phone'] as const;
export type Address = Partial<Record<(typeof ADDRESS_FIELDS)[number], string>>;
export type ShownAddress = Record<(typeof ADDRESS_FIELDS)[number], string | null>;

/** An address as kept (JSON of the members sent) shown with every key, null for those never given. */
export function shownAddress(json: string | null): ShownAddress {
  const kept = json === null ? {} : (JSON.parse(json) as Address);
  return Object.fromEntries(ADDRESS_FIELDS.map((name) => [name, kept[name] ?? null])) as ShownAddress;
}

export interface AcceptBlueCustomer {
  id: number;
  identifier: string;
  customer_number: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  website: string | null;
  phone: string | null;
  alternate_phone: string | null;
  billing_info: ShownAddress;
  shipping_info: ShownAddress;
  active: boolean;
  note: string | null;
  created_at: string;
}

export function acceptBlueCustomer(row: CustomerRow): AcceptBlueCustomer {
  return {
    id: row.pk,
    identifier: row.identifier,
    customer_number: row.customer_number,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    website: row.website,
    phone: row.phone,
    alternate_phone: row.alternate_phone,
    billing_info: shownAddress(row.billing_info_json),
    shipping_info: shownAddress(row.shipping_info_json),
    active: row.active === 1,
    note: row.note,
    created_at: isoTime(row.created_at_ms),
  };
}

/** Card brands as accept.blue's PaymentMethod spells them (Payrail's own names elsewhere). */
const ACCEPTBLUE_CARD_TYPES: Readonly<Record<string, string>> = { 'American Express': 'Amex', 'Diners Club': 'Diners' };

export function acceptBlueCardType(cardType: string): string {
  return ACCEPTBLUE_CARD_TYPES[cardType] ?? cardType;
}

export interface AcceptBluePaymentMethod {
  id: number;
  customer_id: number;
  created_at: string;
  payment_method_type: 'card';
  name: string | null;
  expiry_month: number;
  expiry_year: number;
  avs_address: string | null;
  avs_zip: string | null;
  card_type: string;
  bin: string;
  /** Credit or debit is not known without a BIN table: null, as accept.blue answers an unknown. */
  bin_details: { type: null };
  last4: string;
}

export function acceptBluePaymentMethod(row: PaymentMethodRow): AcceptBluePaymentMethod | CheckMethodView {
  if (row.method_type === 'check') return renderCheckMethod(row);
  return {
    id: row.pk,
    customer_id: row.customer_pk,
    created_at: isoTime(row.created_at_ms),
    payment_method_type: 'card',
    name: row.name,
    expiry_month: row.expiry_month,
    expiry_year: row.expiry_year,
    avs_address: row.avs_address,
    avs_zip: row.avs_zip,
    card_type: acceptBlueCardType(row.card_type),
    bin: row.bin,
    bin_details: { type: null },
    last4: row.last4,
  };
}

export interface AcceptBlueSchedule extends ScheduleView {
  prev_run_date: string | null;
  transaction_count: number;
}

export function acceptBlueSchedule(row: ScheduleRow): AcceptBlueSchedule {
  return { ...renderSchedule(row), prev_run_date: row.prev_run_date, transaction_count: row.transaction_count };
}
