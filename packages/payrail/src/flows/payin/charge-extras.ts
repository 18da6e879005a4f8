// The accept.blue request fields a charge keeps and shows (docs/acceptblue-compatibility.md):
// amount details, line items, custom fields, the name on the card, the
// customer's details, shipping address, AVS fields, flags and 3-D Secure
// data. Kept with the charge's request (request_json) in both dialects, never
// card data; the transaction object shows them. Rows stored before these
// fields existed have none of them, so every member is optional.
import type { AmountFigures } from '../../domain/amount-details.ts';
import type { WireDialect } from '../../domain/wire-dialect.ts';

/** Reporting figures in dollars as sent; they never change the charged amount (one home: domain/amount-details.ts). */
export type AmountDetails = AmountFigures;

/** One line item (accept.blue's Item), kept as sent. */
export interface LineItem {
  readonly sku?: string | undefined;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly cost?: number | undefined;
  readonly quantity?: number | undefined;
  readonly tax_rate?: number | undefined;
  readonly tax_amount?: number | undefined;
  readonly unit_of_measure?: string | undefined;
  readonly commodity_code?: string | undefined;
  readonly discount_rate?: number | undefined;
  readonly discount_amount?: number | undefined;
}

/** An address where every member may be absent (accept.blue's Address). */
export interface Address {
  readonly first_name?: string | undefined;
  readonly last_name?: string | undefined;
  readonly street?: string | undefined;
  readonly street2?: string | undefined;
  readonly city?: string | undefined;
  readonly state?: string | undefined;
  readonly zip?: string | undefined;
  readonly country?: string | undefined;
  readonly phone?: string | undefined;
}

export interface ChargeCustomer {
  readonly send_receipt?: boolean | undefined;
  readonly email?: string | undefined;
  readonly fax?: string | undefined;
  readonly identifier?: string | undefined;
  /** Links the charge to this customer of the merchant (ignored when it is not the merchant's). */
  readonly customer_id?: number | undefined;
}

export interface TransactionFlags {
  readonly allow_partial_approval?: boolean | undefined;
  readonly is_recurring?: boolean | undefined;
  readonly is_installment?: boolean | undefined;
  readonly is_customer_initiated?: boolean | undefined;
  readonly cardholder_present?: boolean | undefined;
  readonly card_present?: boolean | undefined;
  readonly terminal?:
    | {
        readonly operating_environment?: number | undefined;
        readonly cardholder_authentication_method?: string | undefined;
        readonly cardholder_authentication_entity?: number | undefined;
        readonly print_capability?: boolean | undefined;
      }
    | undefined;
}

export interface ThreeDSecure {
  readonly eci?: string | undefined;
  readonly cavv?: string | undefined;
  readonly ds_trans_id?: string | undefined;
}

/** The accept.blue fields of a charge or verify request, as the request carries them. */
export interface ChargeExtrasRequest {
  readonly name?: string | undefined;
  readonly amount_details?: AmountDetails | undefined;
  readonly line_items?: readonly LineItem[] | undefined;
  readonly custom_fields?: Readonly<Record<string, string | undefined>> | undefined;
  readonly customer?: ChargeCustomer | undefined;
  readonly transaction_flags?: TransactionFlags | undefined;
  readonly ignore_duplicates?: boolean | undefined;
  readonly avs_address?: string | undefined;
  readonly avs_zip?: string | undefined;
  readonly shipping_info?: Address | undefined;
  readonly '3d_secure'?: ThreeDSecure | undefined;
  readonly save_card?: boolean | undefined;
}

/** What a charge keeps of them, with the dialect it was asked in and the amount it asked for. */
export interface StoredChargeExtras extends ChargeExtrasRequest {
  /** The caller's dialect: replays and the worker's recorded answers are written in it. */
  readonly wire_dialect?: WireDialect | undefined;
  /** The amount asked for, in cents: a partial approval authorizes less (amount_cents is what was authorized). */
  readonly requested_cents?: number | undefined;
}

/** The extras of a request, as kept: only the members it sent (absent ones stay absent). */
export function keptExtras(request: ChargeExtrasRequest): ChargeExtrasRequest {
  const kept: Record<string, unknown> = {};
  for (const name of EXTRA_FIELDS) {
    if (request[name] !== undefined) kept[name] = request[name];
  }
  return kept as ChargeExtrasRequest;
}

const EXTRA_FIELDS = [
  'name',
  'amount_details',
  'line_items',
  'custom_fields',
  'customer',
  'transaction_flags',
  'ignore_duplicates',
  'avs_address',
  'avs_zip',
  'shipping_info',
  '3d_secure',
  'save_card',
] as const satisfies readonly (keyof ChargeExtrasRequest)[];
