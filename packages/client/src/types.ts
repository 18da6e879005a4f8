// The SDK's own types: what callers pass in and the normalised results they
// get back. Wire field names are kept where they exist (snake_case); amounts
// are integer cents with the unit in the name.
import type { ChargeExtrasWire } from './charge-extras.ts';
import type { AmountInput } from './money.ts';
import type {
  Attribute,
  BillingInfo,
  ChargeApprovedWire,
  ChargeDeclinedWire,
  SentTransferWire,
  TokenizeRequestWire,
  TokenizeResponseWire,
  TransactionDetails,
  TransferRequestWire,
} from './wire.ts';
import type { FetchLike, Sleep } from './transport.ts';

export interface PayrailOptions {
  /** Base URL of the transfer API (and of the payin API unless payin.base_url is set). */
  base_url: string;
  /** Transfer API key, sent as the API-KEY header. */
  api_key?: string;
  /** Card payin credentials of one source. */
  payin?: {
    /** Source API key; with the PIN it forms the Basic Authorization of charges. */
    api_key?: string;
    pin?: string;
    /** Public tokenization token; used only by tokenize(), for sandbox tests. */
    tokenization_token?: string;
    /** Base URL of the card payin API when it differs from base_url. */
    base_url?: string;
  };
  /** Time allowed for one HTTP attempt. Default 30000. */
  timeout_ms?: number;
  /** Further attempts after a network error or internal_server_error. Default 2, at most 10. */
  max_retries?: number;
  /** Wait before the first retry, doubled for each further one (capped at 5 s). Default 500. */
  retry_delay_ms?: number;
  /** A WHATWG fetch; defaults to the global one. */
  fetch?: FetchLike;
  /** Injectable for tests: how to wait. */
  sleep?: Sleep;
  /** Injectable for tests: the current time in ms. */
  now_ms?: () => number;
  /** Injectable for tests: makes the Idempotency-Key of a charge. */
  idempotency_key?: () => string;
}

export type { AmountInput };

/**
 * A transfer as the caller gives it to check, execute and send: the wire
 * request with the amount in either unit and the attributes in either form.
 * send() makes the id when absent.
 */
export type TransferInput = Omit<TransferRequestWire, 'amount' | 'attribute'> & {
  /** Corridor attributes, as a name-to-value map or the wire's array. */
  attributes?: Record<string, string> | Attribute[];
  /** Reference number of the card charge paying for this transfer (sent as attribute gatewayId). */
  gateway_id?: string | number;
  /**
   * The same reference under CashQ's name (sent as attribute approvelyId,
   * which the server reads as gatewayId); with gateway_id, both must name
   * the same charge.
   */
  approvely_id?: string | number;
} & AmountInput;

export interface Balance {
  balance_cents: number;
  overdraft_cents: number;
  /** balance + overdraft: what a transfer may use. */
  available_cents: number;
}

export interface KycResult {
  /** The E.164 digits (no +) that were looked up. */
  account: string;
  /** false when the receiver is new to the network (the API's account_not_found). */
  registered: boolean;
  /** true when the receiver is fully verified. */
  verified: boolean;
  /** Largest single transfer the receiver may get; 0 when none (or not registered). */
  money_limit_cents: number;
  /** The wire's decimal text, e.g. "100.00". */
  money_limit: string;
  /** Where the receiver completes verification; null when verified or unregistered. */
  kyc_url: string | null;
}

export interface CheckResult {
  /** Rate from USD to the receiver's currency, as decimal text. */
  fx_rate: string;
  /** Amount in the receiver's currency, as decimal text, when the server gives it. */
  received_amount: string | null;
  /** `unregistered` means execute will send the receiver a payment invitation. */
  receiver_status: 'registered' | 'unregistered' | null;
  /** Every returned attribute by name. */
  attributes: Record<string, string>;
}

/** new: just created; processing: on its way; waiting: held for an invitation or reconciliation. */
export type TransferOutcome = 'new' | 'processing' | 'waiting' | 'succeeded' | 'failed' | 'not_found';

export interface TransferStatus {
  id: string;
  state: number;
  substate: number;
  code: number;
  /** true when the status will not change any more. */
  final: boolean;
  outcome: TransferOutcome;
  /** Why a waiting transfer waits (state 0, substate 9). */
  waiting_for: 'invitation' | 'reconciliation' | null;
  /** In the sandbox, the page where a new receiver accepts the invitation. */
  invitation_url: string | null;
  /** Reference number of the card charge paying for the transfer, once linked (gatewayId, reconciliation or an operator). */
  gateway_id: string | null;
  /** The provider's reason for a failed transfer. */
  provider_error: { text: string; code: string } | null;
  attributes: Record<string, string>;
  payment_id: string | null;
  server_time: string | null;
  trans: string | null;
  sum_prov: string | null;
}

export interface ExecuteResult extends TransferStatus {
  /**
   * true when a retried execute was answered with an error because the first
   * attempt had already created the transfer, and the transfer was read back
   * through status instead of being sent twice.
   */
  resolved_by_status: boolean;
}

/** What transfers.list() asks for; every field is optional. */
export interface TransferListOptions {
  /** Only transfers in this state. */
  state?: 0 | 40 | 60 | 80;
  /** Only transfers created at or after this time (an ISO 8601 timestamp with a zone, or a Date). */
  created_from?: string | Date;
  /** Only transfers created at or before this time. */
  created_to?: string | Date;
  /** Transfers per page, 1 to 100. Default 10. */
  limit?: number;
  /** Start after this transfer id (the last one of a page already seen). */
  starting_after?: string;
}

/** A transfer as the list shows it: its status plus what was sent (amount as the wire's decimal text, receiver_phone E.164) and when. */
export interface ListedTransfer extends TransferStatus, SentTransferWire {
  amount_cents: number;
  /** ISO 8601 (UTC). */
  created_at: string;
}

export interface TransferPage {
  /** Newest first. */
  transfers: ListedTransfer[];
  /** Another page follows. */
  has_more: boolean;
}

export interface WaitOptions {
  /** Total time to wait for a final state. Default 300000 (5 minutes). */
  timeout_ms?: number;
}

export interface SendOptions extends WaitOptions {
  /** Poll until final (default true); false returns right after execute. */
  wait?: boolean;
  /** Send to a receiver new to the network, which invites them (default true). */
  invite?: boolean;
}

interface SendOutcomeBase {
  id: string;
  amount_cents: number;
  balance: Balance;
  kyc: KycResult;
}

export type SendResult =
  /** Nothing was sent: the receiver's limit is below the amount; show them kyc.kyc_url. */
  | (SendOutcomeBase & { outcome: 'kyc_required' })
  /** Nothing was sent: the receiver is new to the network and invite was false. */
  | (SendOutcomeBase & { outcome: 'receiver_not_registered' })
  | (SendOutcomeBase & {
      /**
       * succeeded / failed: final. invitation_sent: the new receiver must
       * accept the invitation (it expires after 6 hours, then the transfer
       * fails and the funds return). waiting_for_reconciliation: the transfer
       * waits to be linked to a card payin. pending: not final within the wait.
       */
      outcome: 'succeeded' | 'failed' | 'invitation_sent' | 'waiting_for_reconciliation' | 'pending';
      check: CheckResult;
      transfer: TransferStatus;
    });

/** A card charge request. */
export type ChargeInput = {
  /**
   * The single-use nonce from tokenization, a saved card's `pm-<id>`
   * (PaymentMethod.source) or `ref-<reference number>` (the card of an
   * earlier approved charge).
   */
  source: string;
  /** Required with a nonce; a saved card or an earlier transaction brings its own. */
  expiry_month?: number;
  expiry_year?: number;
  billing_info?: BillingInfo;
  transaction_details?: TransactionDetails;
  /** accept.blue's members (amount details, line items, custom fields, customer, flags...), sent as given. */
  extras?: ChargeExtrasWire;
  /**
   * Makes retries of this charge safe across process restarts (e.g. your
   * order id). Default: a fresh random key per charge() call, reused by its
   * own retries.
   */
  idempotency_key?: string;
} & AmountInput;

export type ChargeStatus = 'approved' | 'declined' | 'pending' | 'failed';

export interface Charge {
  /** The charge's reference number: what a transfer's gateway_id names. */
  reference_number: string;
  status: ChargeStatus;
  amount_cents: number;
  currency: string;
  card_type: string;
  last_4: string;
  auth_code: string | null;
  avs_result_code: string | null;
  cvv2_result_code: string | null;
  /** Why a charge was declined or failed; null otherwise. */
  error: { code: string; message: string } | null;
  created_at: string | null;
  /** The answer as received: shape A (approved, pending) or shape B (declined, failed). */
  raw: ChargeApprovedWire | ChargeDeclinedWire;
}

/** The card data tokenize() sends. */
export type CardInput = TokenizeRequestWire;

/** A single-use card token, as the server answers it. */
export type Nonce = TokenizeResponseWire;
