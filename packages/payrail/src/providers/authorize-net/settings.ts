// What the Authorize.net connector is configured with (behaviour.md section
// 18: PAYRAIL_AUTHORIZE_NET_*). The wiring reads the environment; this file
// only names the settings and the bounds the connector keeps.
import type { Secret } from '../../domain/secret.ts';

export interface AuthorizeNetSettings {
  /** Full endpoint, e.g. https://apitest.authorize.net/xml/v1/request.api (production: https://api.authorize.net/xml/v1/request.api). */
  readonly url: string;
  /** The API Login ID (merchantAuthentication.name). */
  readonly loginId: string;
  /** The Transaction Key (merchantAuthentication.transactionKey); revealed only into the request body. */
  readonly transactionKey: Secret<string>;
  /** The Signature Key of webhooks (X-ANET-Signature); null: every callback is refused. */
  readonly signatureKey: Secret<string> | null;
  /** A deadline shorter than Payrail's CARD_PROCESSOR_TIMEOUT_MS for each call, when wanted. */
  readonly callTimeoutMs?: number;
}

/** Authorize.net's name for the connector, as PAYRAIL_CARD_PROCESSOR and the callback path spell it. */
export const CONNECTOR_NAME = 'authorize-net';

/**
 * The duplicate window sent with every money-moving request: 8 hours, the
 * documented maximum. A request re-sent within it with the same invoice
 * number, amount and card (Payrail re-asks after a crash or a timeout, well
 * within minutes) is refused as a duplicate (reason 11) and the answer names
 * the original transaction, which is then reported instead of charging twice.
 */
export const DUPLICATE_WINDOW_SECONDS = 28_800;

/** The largest response body read (bytes): transaction answers are a few kilobytes, a 1000-row transaction list well under 1 MB. */
export const RESPONSE_BODY_MAX_BYTES = 4 * 1024 * 1024;

/** When to poll a transaction held for review again (Authorize.net's fraud review is a person; minutes, not seconds). */
export const REVIEW_RETRY_AFTER_MS = 5 * 60_000;

/** Rows per getTransactionList page: the documented maximum. */
export const TRANSACTION_PAGE_LIMIT = 1000;

/** Pages read of one batch at most (1000 x 1000 rows); a larger batch is an error, not a silent truncation. */
export const TRANSACTION_PAGES_MAX = 1000;

/** getSettledBatchList answers at most 31 days per call. */
export const BATCH_LIST_SPAN_MS_MAX = 31 * 24 * 3_600_000;

/** Spans of 31 days read per settledBatches call at most (about 5 years). */
export const BATCH_LIST_SPANS_MAX = 60;

/**
 * How long after settlement Payrail keeps asking about an eCheck for a
 * return: NACHA lets a consumer's bank return an unauthorized debit (R07,
 * R10, R11) up to 60 calendar days after the settlement date, and the return
 * reaches Authorize.net's reports some business days after that. 60 days
 * plus 10 for the return's way back (weekends and bank holidays included)
 * covers the latest documented return; a return reported after it is left
 * to the merchant's own reconciliation (docs/authorize-net.md).
 */
export const ECHECK_RETURN_WATCH_MS = 70 * 24 * 3_600_000;

/** bankAccountType.nameOnAccount: up to 22 characters (API reference, "Debit a Bank Account"); a longer name is cut, not refused. */
export const NAME_ON_ACCOUNT_CHARS_MAX = 22;
