// The one error class of the SDK. Every failure, whether Payrail answered it
// or the SDK found it before sending anything, is a PayrailError carrying the
// wire code, the HTTP status (0 when no HTTP answer exists) and a message,
// plus the answer's request id (the server's X-Request-Id, to quote to
// support or find in its logs) and, from send(), the transfer id.

/** Codes the SDK raises itself, beside the wire codes the server sends. */
export const CLIENT_ERROR_CODES = {
  /** The request could not be sent or no answer arrived in time. */
  network_error: 'network_error',
  /** The server answered something that is not the documented shape. */
  unexpected_response: 'unexpected_response',
  /** waitForFinal ran out of time before the transfer reached a final state. */
  wait_timeout: 'wait_timeout',
  /** The client is missing a credential needed by the call. */
  missing_credentials: 'missing_credentials',
  /** send() met an error that is not a PayrailError (from a function given in the options, say); `cause` holds it. */
  unexpected_error: 'unexpected_error',
} as const;

export class PayrailError extends Error {
  override readonly name = 'PayrailError';
  /** The wire code (for example `insufficient_funds`), or one of CLIENT_ERROR_CODES. */
  readonly code: string;
  /** HTTP status of the answer; 0 when the error was found without one. */
  readonly status: number;
  /** The X-Request-Id of the answer this error comes from; null when no answer arrived (or it had none). */
  readonly requestId: string | null;
  /** The transfer this error is about: set on every error send() raises (send makes an id when none is given). */
  readonly transferId: string | null;
  /**
   * What the answer said beside the error: a duplicate_payment_method (409)
   * carries the `id` of the payment method that has the card already.
   */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: string,
    status: number,
    message: string,
    options?: { cause?: unknown; requestId?: string | null; transferId?: string | null; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = status;
    this.requestId = options?.requestId ?? null;
    this.transferId = options?.transferId ?? null;
    this.details = options?.details ?? {};
  }

  /**
   * Whether repeating the same call can succeed and is safe: the request may
   * not have arrived (network_error), the server reported a transient
   * failure (internal_server_error), or a provider the call needs was
   * unreachable before anything was written (service_unavailable, 503).
   */
  get retryable(): boolean {
    return this.code === CLIENT_ERROR_CODES.network_error || this.code === 'internal_server_error' || this.code === 'service_unavailable';
  }
}

export function isPayrailError(value: unknown): value is PayrailError {
  return value instanceof PayrailError;
}

/** An error the SDK found in the caller's input, before any request. */
export function inputError(code: 'invalid_amount' | 'invalid_phone_number' | 'invalid_request', message: string): PayrailError {
  return new PayrailError(code, 0, message);
}

/** The same error, naming the transfer it is about (kept as is when it already names one). */
export function aboutTransfer(error: PayrailError, transferId: string): PayrailError {
  if (error.transferId !== null) return error;
  (error as { transferId: string | null }).transferId = transferId;
  return error;
}

/** The same error, naming the answer it comes from (kept as is when it already names one). */
export function fromAnswer(error: PayrailError, requestId: string | null): PayrailError {
  if (error.requestId !== null || requestId === null) return error;
  (error as { requestId: string | null }).requestId = requestId;
  return error;
}
