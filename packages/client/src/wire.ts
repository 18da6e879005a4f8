// Wire shapes of the two APIs, as the specification gives them. The SDK reads
// these defensively (both forms of `success`, numbers sent as strings) and
// hands callers the normalised types of types.ts instead.

import type { ChargeExtrasWire, NotOfferedWire } from './charge-extras.ts';

export interface Attribute {
  name: string;
  value: string;
}

// ---- Transfer API -------------------------------------------------------

/** Body of POST /api/checkTransfer and POST /api/transfer: the one place a transfer request's fields are written. */
export interface TransferRequestWire {
  /** Digits only; the same id for check and execute. */
  id: string;
  /** Any accepted form: "+15551234567", "15551234567", or a US national number. */
  sender_phone: string;
  /** Any accepted form; a national number is read in receiver_country. */
  receiver_phone: string;
  /** Dollars as a decimal string. */
  amount: string;
  /** Corridor id, e.g. "1001". */
  service: string;
  receiver_country: string;
  receiver_currency: string;
  attribute: Attribute[];
}

/** What a listed transfer repeats of its request. */
export type SentTransferWire = Pick<TransferRequestWire, 'amount' | 'receiver_phone' | 'service' | 'receiver_country' | 'receiver_currency'>;

/** Failure envelope: `success` is the string "false" (tolerated: boolean false). */
export interface TransferFailureWire {
  success: 'false' | false;
  error: { message: string; code: string };
}

interface TransferSuccessEnvelope {
  /** true (tolerated: the string "true"). */
  success: true | 'true';
  error: '';
}

export interface PaymentResponseWire {
  id: string;
  payment_id: string | null;
  state: string;
  substate: string;
  code: string;
}

export interface ExecuteResponseWire extends TransferSuccessEnvelope {
  payment_response: PaymentResponseWire;
}

export interface CheckResponseWire extends TransferSuccessEnvelope {
  attribute: Attribute[];
}

export interface StatusResultWire {
  id: string;
  state: number;
  substate: number;
  final: 0 | 1;
  code: number;
  attribute: Attribute[];
  server_time: string | null;
  trans: string | null;
  sum_prov: string | null;
}

/** GET /api/status/:id; an unknown id answers in ExecuteResponseWire's shape with state "-2". */
export interface StatusResponseWire extends TransferSuccessEnvelope {
  status: { result: StatusResultWire };
}

/** One item of GET /api/transfers: a status result plus what was sent and when. */
export interface ListedTransferWire extends StatusResultWire, SentTransferWire {
  created_at: string;
}

/** GET /api/transfers?state=&created_from=&created_to=&limit=&starting_after= (a Payrail extension). */
export interface TransferListResponseWire extends TransferSuccessEnvelope {
  transfers: ListedTransferWire[];
  has_more: boolean;
}

export interface KycResponseWire extends TransferSuccessEnvelope {
  kyc_verify: boolean;
  /** Dollars per single transfer as a decimal string; "0" means none. */
  money_limit: string;
  kyc_url: string;
}

export interface BalanceResponseWire extends TransferSuccessEnvelope {
  /** Both in cents. Available funds = balance + overdraft. */
  balance: { balance: number; overdraft: number };
}

// ---- Card payin API -----------------------------------------------------

export interface BillingInfo {
  first_name: string;
  last_name: string;
  street: string;
  street2?: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  phone?: string;
}

export interface TransactionDetails {
  description?: string;
  clerk?: string;
  terminal?: string;
  client_ip?: string;
  signature?: string;
  invoice_number?: string;
  po_number?: string;
  order_number?: string;
}

/** Body of POST /api/v2/transactions/charge. */
export interface ChargeRequestWire extends ChargeExtrasWire, NotOfferedWire {
  /** Dollars as a JSON number with at most 2 decimals. */
  amount: number;
  /** A nonce, `pm-<payment method id>`, `ref-<reference number>` or `tkn-<card_ref>`; or send `card` instead. */
  source?: string;
  /** The card number itself (digits), instead of source; with expiry_month and expiry_year. */
  card?: string;
  /** The security code of `card`; ignored with a source. */
  cvv2?: string;
  /** true: an approval answers `card_ref`, a token to charge later as `tkn-<card_ref>`. */
  save_card?: boolean;
  /** Required with a nonce or a card; a saved card or an earlier transaction brings its own. */
  expiry_month?: number;
  expiry_year?: number;
  billing_info?: BillingInfo;
  transaction_details?: TransactionDetails;
  /** false authorizes only; capture it later with capture(). */
  capture?: boolean;
  /** A bank account instead of a card (a check; with `name`): send these through chargeCheck(). */
  routing_number?: string;
  account_number?: string;
  account_type?: string;
  sec_code?: string;
}

/** Body of POST /api/v2/transactions/capture, void, refund and reversal. */
export interface OperationRequestWire {
  reference_number: number;
  /** Dollars; absent: the whole amount. */
  amount?: number;
}

/** accept.blue's customer of an operation after a charge: shown on the transaction. */
export interface OperationCustomerWire {
  send_receipt?: boolean;
  email?: string;
  fax?: string;
  identifier?: string;
}

/** accept.blue's base transaction details (void, refund, reversal). */
export type OperationDetailsWire = Pick<TransactionDetails, 'description' | 'clerk' | 'terminal' | 'client_ip' | 'signature'>;

/** accept.blue's transaction flags: accepted on refunds and credits, where they change nothing. */
export interface TransactionFlagsWire {
  allow_partial_approval?: boolean;
  is_recurring?: boolean;
  is_installment?: boolean;
  is_customer_initiated?: boolean;
  cardholder_present?: boolean;
  card_present?: boolean;
  terminal?: Record<string, unknown>;
}

/** custom1 to custom20. */
export type CustomFieldsWire = Partial<Record<`custom${number}`, string>>;

/** Body of POST /api/v2/transactions/void. */
export interface VoidRequestWire extends OperationRequestWire {
  customer?: OperationCustomerWire;
  transaction_details?: OperationDetailsWire;
}

/** Body of POST /api/v2/transactions/refund. */
export interface RefundRequestWire extends OperationRequestWire {
  /** Card-present terminals are not offered: refused. */
  terminal_id?: string;
  cvv2?: string;
  customer?: OperationCustomerWire;
  transaction_details?: OperationDetailsWire;
  transaction_flags?: TransactionFlagsWire;
  custom_fields?: CustomFieldsWire;
}

/** Body of POST /api/v2/transactions/reversal. */
export interface ReversalRequestWire extends OperationRequestWire {
  terminal_id?: string;
  customer?: OperationCustomerWire;
  transaction_details?: OperationDetailsWire;
}

/** What an adjust changes beside the amount (each absent member is left as it is; line items are replaced). */
export interface AdjustDetailsWire {
  customer?: OperationCustomerWire;
  transaction_details?: TransactionDetails;
  amount_details?: { tax?: number; tax_percent?: number; surcharge?: number; shipping?: number; tip?: number; discount?: number };
  billing_info?: Partial<BillingInfo>;
  shipping_info?: Partial<BillingInfo>;
  custom_fields?: CustomFieldsWire;
  line_items?: Array<Record<string, string | number>>;
}

/** Body of POST /api/v2/transactions/adjust and /adjust-capture: `amount` is the new total. */
export interface AdjustRequestWire extends OperationRequestWire, AdjustDetailsWire {}

/** Body of POST /api/v2/transactions/credit: money to the card of a source. */
export interface CreditRequestWire {
  amount: number;
  source?: string;
  card?: string;
  expiry_month?: number;
  expiry_year?: number;
  cvv2?: string;
  name?: string;
  avs_address?: string;
  avs_zip?: string;
  customer?: OperationCustomerWire;
  transaction_details?: TransactionDetails;
  transaction_flags?: TransactionFlagsWire;
  custom_fields?: CustomFieldsWire;
  /** A bank account instead of a card (a check credit; with `name`): send these through creditCheck(). */
  routing_number?: string;
  account_number?: string;
  account_type?: string;
  sec_code?: string;
}

/** Body of POST /api/v2/transactions/queue. */
export interface QueueRequestWire {
  reference_number: number;
}

/** An operation's answer to a caller in the accept.blue dialect (the SDK speaks the spec dialect; these are for reading such answers). */
export interface AcceptBlueAnswerWire {
  version: string;
  status: 'Approved' | 'Declined' | 'Error';
  status_code: 'A' | 'D' | 'E';
  error_message: string | null;
  error_code: string | null;
  error_details: Record<string, string[]> | null;
}
export interface AcceptBlueAdjustCaptureWire extends AcceptBlueAnswerWire {
  auth_amount: number;
  auth_code?: string;
  reference_number?: number;
}
export interface AcceptBlueRefundWire extends AcceptBlueAnswerWire {
  reference_number: number;
}
export interface AcceptBlueReversalWire extends AcceptBlueAnswerWire {
  type: 'Void' | 'Refund' | 'Adjustment';
  reference_number?: number;
  auth_amount?: number;
  auth_code?: string;
}

/** Body of POST /api/v2/transactions/verify: a charge's card fields without an amount. */
export type VerifyRequestWire = Required<Pick<ChargeRequestWire, 'expiry_month' | 'expiry_year'>> &
  Pick<ChargeRequestWire, 'source' | 'card' | 'cvv2' | 'save_card' | 'billing_info' | 'transaction_details'> &
  ChargeExtrasWire &
  NotOfferedWire;

/** Shape A: an approved (or pending) charge. */
export interface ChargeApprovedWire {
  status: string;
  status_code: string;
  reference_number: number;
  auth_code: string;
  auth_amount: number;
  card_type: string;
  last_4: string;
  avs_result: string;
  avs_result_code: string;
  cvv2_result: string;
  cvv2_result_code: string;
  version: string;
  /** With save_card: the token issued once approved (null until then). */
  card_ref?: string | null;
  transaction: {
    id: number;
    created_at: string;
    status_details: { status: string };
    amount_details: Record<string, number>;
    card_details: Record<string, unknown>;
    billing_info: Record<string, string>;
    shipping_info: Record<string, string | null>;
    transaction_details: Record<string, unknown>;
    customer: Record<string, string | null>;
    custom_fields: Record<string, unknown>;
    settled_date: string | null;
  };
}

/** Shape B: a declined or failed charge. */
export interface ChargeDeclinedWire {
  id: string;
  status: 'declined' | 'failed';
  amount: number;
  currency: string;
  error: { code: string; message: string };
  card: { last_four: string; card_type: string };
  created_at: string;
}

/** Shape C: a rejected request. */
export interface PayinErrorWire {
  error: { code: string; message: string };
}

/** Body of POST /api/v2/tokens (card tokenization). */
export interface TokenizeRequestWire {
  card_number: string;
  expiry_month: number;
  expiry_year: number;
  cvv2: string;
}

export interface TokenizeResponseWire {
  nonce: string;
  expires_at: string;
  card_type: string;
  last_4: string;
}
