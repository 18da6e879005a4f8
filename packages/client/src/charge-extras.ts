// accept.blue's charge fields (the server's docs/acceptblue-compatibility.md):
// what a charge or verify may carry besides the card and the amount, and the
// accept.blue dialect's answer. Kept with the charge and shown on its
// transaction in both dialects; none of them changes the amount charged.

/** An address where every member may be absent (accept.blue's Address). */
export interface Address {
  first_name?: string;
  last_name?: string;
  street?: string;
  street2?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  phone?: string;
}

/** Reporting figures in dollars; never validated against the amount, never change it. */
export interface AmountDetails {
  tax?: number;
  /** Percent; the tax is computed from it when `tax` is absent. */
  tax_percent?: number;
  surcharge?: number;
  shipping?: number;
  tip?: number;
  discount?: number;
}

export interface LineItem {
  sku?: string;
  name?: string;
  description?: string;
  cost?: number;
  quantity?: number;
  tax_rate?: number;
  tax_amount?: number;
  unit_of_measure?: string;
  /** Exactly 8 characters. */
  commodity_code?: string;
  discount_rate?: number;
  discount_amount?: number;
}

/** custom1 to custom20, strings of at most 255 characters. */
export type CustomFields = Partial<Record<`custom${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20}`, string>>;

export interface ChargeCustomer {
  send_receipt?: boolean;
  email?: string;
  fax?: string;
  identifier?: string;
  /** Links the transaction to this customer of yours (ignored if it is not yours). */
  customer_id?: number;
}

export interface TransactionFlags {
  /** The issuer may approve less than the amount; auth_amount says how much. */
  allow_partial_approval?: boolean;
  is_recurring?: boolean;
  is_installment?: boolean;
  is_customer_initiated?: boolean;
  cardholder_present?: boolean;
  card_present?: boolean;
  terminal?: {
    operating_environment?: number;
    cardholder_authentication_method?: '0' | '2' | '5' | '6' | 'S';
    cardholder_authentication_entity?: 0 | 2 | 4 | 5;
    print_capability?: boolean;
  };
}

export interface ThreeDSecure {
  eci?: '00' | '01' | '02' | '05' | '06' | '07';
  cavv?: string;
  ds_trans_id?: string;
}

/** The accept.blue members of a charge or verify request. */
export interface ChargeExtrasWire {
  name?: string;
  amount_details?: AmountDetails;
  line_items?: LineItem[];
  custom_fields?: CustomFields;
  customer?: ChargeCustomer;
  transaction_flags?: TransactionFlags;
  /** Accepted; the Idempotency-Key is the duplicate protection. */
  ignore_duplicates?: boolean;
  avs_address?: string;
  avs_zip?: string;
  shipping_info?: Address;
  '3d_secure'?: ThreeDSecure;
  save_card?: boolean;
  /** Accepted; a nonce carries its own security code. */
  cvv2?: string;
}

/** accept.blue charges Payrail refuses as not offered (400 not_offered): typed so the refusal can be asked for. */
export interface NotOfferedWire {
  magstripe?: string;
  terminal_id?: string | number;
  token?: string | Record<string, unknown>;
}

/** What a check transaction shows of its account (never the number) and of a return (transaction.check_details). */
export interface CheckDetails {
  name: string;
  routing_number: string;
  account_number_last4: string;
  /** As sent. */
  account_type: string;
  sec_code: string;
  /** YYYY-MM-DD when the bank returned it; null unless returned. */
  returned_at: string | null;
  /** The NACHA return code (R01...); null unless returned. */
  returned_code: string | null;
  returned_reason: string | null;
}

type NullableAddress = { [K in keyof Required<Address>]: string | null };

/** accept.blue's Transaction object (the accept.blue dialect). */
export interface AcceptBlueTransactionWire {
  id: number;
  created_at: string;
  settled_date: string | null;
  amount_details: Record<string, number>;
  transaction_details: Record<string, string | number | null>;
  customer: { identifier: string | null; email: string | null; fax: string | null; customer_id: number | null };
  status_details: { status: string; error_code: string | null; error_message: string | null };
  billing_info: NullableAddress;
  shipping_info: NullableAddress;
  custom_fields: Record<string, unknown>;
  line_items: LineItem[];
  /** A card transaction's. */
  card_details?: Record<string, unknown>;
  /** A check transaction's. */
  check_details?: CheckDetails;
}

/** accept.blue's CreditCardResponse: every charge answer in the accept.blue dialect. */
export interface AcceptBlueChargeWire {
  version: string;
  status: 'Approved' | 'Partially Approved' | 'Submitted' | 'Declined' | 'Error';
  status_code: 'A' | 'P' | 'D' | 'E';
  error_message: string | null;
  error_code: string | null;
  error_details: null;
  reference_number: number;
  auth_amount: number;
  auth_code: string | null;
  avs_result: string | null;
  avs_result_code: string | null;
  cvv2_result: string | null;
  cvv2_result_code: string | null;
  card_type: string;
  last_4: string;
  card_ref: string | null;
  bin_type: { type: string | null };
  transaction: AcceptBlueTransactionWire;
}
