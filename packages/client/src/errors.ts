// The one error class of the SDK. Every failure, whether Payrail answered it
// or the SDK found it before sending anything, is a PayrailError carrying the
// wire code, the HTTP status (0 when no HTTP answer exists) and a message.

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
} as const;

export class PayrailError extends Error {
  override readonly name = 'PayrailError';
  /** The wire code (for example `insufficient_funds`), or one of CLIENT_ERROR_CODES. */
  readonly code: string;
  /** HTTP status of the answer; 0 when the error was found without one. */
  readonly status: number;

  constructor(code: string, status: number, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = status;
  }

  /**
   * Whether repeating the same call can succeed and is safe: the request may
   * not have arrived (network_error), or the server reported a transient
   * failure (internal_server_error).
   */
  get retryable(): boolean {
    return this.code === CLIENT_ERROR_CODES.network_error || this.code === 'internal_server_error';
  }
}

export function isPayrailError(value: unknown): value is PayrailError {
  return value instanceof PayrailError;
}

/** An error the SDK found in the caller's input, before any request. */
export function inputError(code: 'invalid_amount' | 'invalid_phone_number' | 'invalid_request', message: string): PayrailError {
  return new PayrailError(code, 0, message);
}
