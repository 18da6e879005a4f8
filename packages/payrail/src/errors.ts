// The one catalogue of errors Payrail reports on the wire. Code raises errors
// by name (`fail('duplicate_transfer', ...)`); the HTTP layer renders them in
// the envelope of the API that was called. Nothing else builds error bodies.

interface CatalogueEntry {
  /** The wire code; two entries may share one (403 vs 401 authentication_error). */
  readonly code: string;
  readonly status: number;
  readonly message: string;
}

export const ERRORS = {
  // Shared
  authentication_error: { code: 'authentication_error', status: 401, message: 'Invalid or missing credentials' },
  wrong_credential_kind: { code: 'authentication_error', status: 403, message: 'This credential is not allowed on this endpoint' },
  permission_denied: { code: 'permission_denied', status: 403, message: 'This credential is not allowed on this endpoint' },
  invalid_request: { code: 'invalid_request', status: 400, message: 'Missing or invalid parameters' },
  invalid_amount: { code: 'invalid_amount', status: 400, message: 'Amount invalid: must be positive and well formed' },
  internal_server_error: { code: 'internal_server_error', status: 500, message: 'Server error; retry' },
  not_found: { code: 'not_found', status: 404, message: 'Not found' },
  // The specification's status list has no 413 or 415: these are invalid requests, answered 400.
  payload_too_large: { code: 'invalid_request', status: 400, message: 'Request body too large' },
  unsupported_media_type: { code: 'invalid_request', status: 400, message: 'Content-Type must be application/json' },
  rate_limited: { code: 'rate_limited', status: 429, message: 'Too many requests' },
  // A request that arrives while the process is closing: retry, another process (or this one restarted) answers.
  shutting_down: { code: 'internal_server_error', status: 503, message: 'The server is shutting down; retry' },
  sandbox_only: { code: 'not_found', status: 404, message: 'This call exists in the sandbox only' },
  // Transfer API
  insufficient_funds: { code: 'insufficient_funds', status: 400, message: 'Merchant balance too low' },
  invalid_phone_number: { code: 'invalid_phone_number', status: 400, message: 'Phone format wrong' },
  kyc_not_verified: { code: 'kyc_not_verified', status: 400, message: "Receiver's KYC limit exceeded" },
  duplicate_transfer: { code: 'duplicate_transfer', status: 400, message: 'Transfer id already used' },
  transfer_not_found: { code: 'transfer_not_found', status: 404, message: 'Transfer id does not exist' },
  account_not_found: { code: 'account_not_found', status: 404, message: 'KYC account does not exist' },
  // behaviour.md section 16: a provider the request needs (receiver look-up, KYC, FX) did not answer; nothing was written.
  service_unavailable: { code: 'service_unavailable', status: 503, message: 'A provider this request needs is unreachable; nothing was written; retry' },
  // Provider callbacks (behaviour.md section 18): the connector's signature check refused the callback; nothing changed.
  invalid_signature: { code: 'invalid_signature', status: 401, message: 'The callback signature does not verify' },
  // Not an API of the specification, so the plain HTTP status: a provider reads 413 as "do not send this again".
  callback_too_large: { code: 'payload_too_large', status: 413, message: 'Callback body too large' },
  // Card payin API (shape C)
  invalid_nonce: { code: 'invalid_nonce', status: 400, message: 'Token invalid or expired' },
  invalid_card: { code: 'invalid_card', status: 400, message: 'Card number or details invalid' },
  // docs/api-decisions.md section 15: a `ref-` source whose transaction no longer keeps its card (voided, or past its 24 hours
  // or 13 months); the transaction itself exists, so not not_found. The caller saves the card (save_card, a payment method) to charge it later.
  reference_card_not_kept: {
    code: 'reference_card_not_kept',
    status: 400,
    message: 'The card of this reference is no longer kept; charge a saved card instead',
  },
  // docs/api-decisions.md section 15: the card is already saved for the customer; the reply names that method's id.
  duplicate_payment_method: { code: 'duplicate_payment_method', status: 409, message: 'This card is already saved for this customer' },
  // Behaviour section 16: accept.blue answers 409 to a second registration of a webhook_url.
  duplicate_webhook: { code: 'duplicate_webhook', status: 409, message: 'A webhook with this URL is already registered' },
  // accept.blue's deletes of a customer or payment method that active recurring schedules name (accept.blue dialect).
  linked_to_active_schedules: { code: 'invalid_state', status: 409, message: 'Linked to active recurring schedules' },
  // docs/acceptblue-compatibility.md: an accept.blue charge kind Payrail does not offer (wallets, magstripe, DAF cards, terminals).
  not_offered: { code: 'not_offered', status: 400, message: 'This kind of payment is not offered' },
  // accept.blue's /transactions/queue: the transaction is not an approved, unsettled authorization (docs/acceptblue-compatibility.md).
  invalid_state: { code: 'invalid_state', status: 422, message: 'The transaction is not in a state this call acts on' },
  // Behaviour section 17: this installation has no ACH network (PAYRAIL_ACH_NETWORK=none); nothing was written.
  check_payments_unavailable: { code: 'check_payments_unavailable', status: 400, message: 'Check (ACH) payments are not available on this installation' },
  // Card data sealed under a card-data key this process has not loaded yet (another process rotated keys): it is loading it; nothing was written.
  card_key_loading: { code: 'service_unavailable', status: 503, message: 'A card-data key is being loaded; nothing was written; retry' },
  idempotency_key_reused: {
    code: 'idempotency_key_reused',
    status: 400,
    message: 'This Idempotency-Key was used with another request body',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorName = keyof typeof ERRORS;

/**
 * Raised by a store that was closed: its process is shutting down, after the
 * server stopped taking requests. A request still running then (its client
 * may have left already) is answered shutting_down (503, retry), not an
 * unexpected 500: nothing of it was written. Not an ApiError, so code that
 * handles expected refusals does not take it for one.
 */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('store is closed');
  }
}

/** An expected, reportable failure. Programmer errors stay plain `Error`s (500). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: string;
  readonly status: number;
  constructor(
    readonly error: ErrorName,
    message?: string,
    /** Members the reply carries beside `error` (the existing method's `id` of a duplicate_payment_method). */
    readonly fields?: Readonly<Record<string, string | number>>,
    /** The request field the refusal is about (dotted path), when it is about one: accept.blue's error_details name it. */
    readonly field?: string,
  ) {
    const entry = ERRORS[error];
    super(message ?? entry.message);
    this.code = entry.code;
    this.status = entry.status;
  }
}

export function fail(error: ErrorName, message?: string): never {
  throw new ApiError(error, message);
}

/** fail() whose reply carries `fields` beside the error (payin API). */
export function failWith(error: ErrorName, message: string, fields: Readonly<Record<string, string | number>>): never {
  throw new ApiError(error, message, fields);
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
