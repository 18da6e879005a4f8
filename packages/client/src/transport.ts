// One HTTP attempt and the bounded retry loop around it. Each API's answer
// is read into its data or a PayrailError here, so the client methods only
// see typed data. Retries cover exactly two cases: no answer arrived
// (network_error) and the server said internal_server_error. Every error
// from an answer carries its X-Request-Id; a network error names the
// request, the underlying cause (ECONNREFUSED, a timeout) and how many
// attempts were made.
import { CLIENT_ERROR_CODES, PayrailError, isPayrailError } from './errors.ts';

/**
 * The runtime's AbortSignal when its types are present (DOM or Node), so the
 * declarations also compile in a project that has neither.
 */
type AbortSignalLike = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : never;

/** The part of `fetch` the SDK uses; any WHATWG fetch satisfies it. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignalLike },
) => Promise<ResponseLike>;

export interface ResponseLike {
  readonly status: number;
  /** Read for X-Request-Id; optional so a minimal fetch stand-in still fits. */
  readonly headers?: { get(name: string): string | null };
  text(): Promise<string>;
}

/** A successful answer's body and the request id the server gave it. */
export interface Answer {
  readonly body: Record<string, unknown>;
  readonly requestId: string | null;
}

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RetryPolicy {
  /** Further attempts after the first; 0 disables retries. */
  readonly max_retries: number;
  /** Wait before the first retry; doubled for each further one. */
  readonly retry_delay_ms: number;
  /** No wait between attempts is longer than this. */
  readonly retry_delay_max_ms: number;
}

export const MAX_RETRIES_LIMIT = 10;

export interface Call {
  readonly api: 'transfer' | 'payin';
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

export interface TransportOptions {
  readonly fetch: FetchLike;
  readonly timeout_ms: number;
  readonly retry: RetryPolicy;
  readonly sleep: Sleep;
}

/** Bytes of a response body quoted in an unexpected_response message, at most. */
const QUOTE_CHARS_MAX = 200;

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /** Runs `run` once, then again after each retryable failure, up to the policy's bound. */
  async retrying<T>(run: (attempt: number) => Promise<T>): Promise<T> {
    const { max_retries, retry_delay_ms, retry_delay_max_ms } = this.options.retry;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await run(attempt);
      } catch (error) {
        if (!isPayrailError(error) || !error.retryable || attempt >= max_retries) throw error;
        await this.options.sleep(Math.min(retry_delay_max_ms, retry_delay_ms * 2 ** attempt));
      }
    }
  }

  /** One attempt (`attempt` counts from 0): sends the call and reads the answer of its API into data or a PayrailError. */
  async once(call: Call, attempt = 0): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    let status: number;
    let text: string;
    let requestId: string | null;
    // Called without a receiver: browsers refuse a fetch bound to another object.
    const fetchFn = this.options.fetch;
    try {
      const response = await fetchFn(call.url, {
        method: call.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(this.options.timeout_ms) as AbortSignalLike,
      });
      status = response.status;
      requestId = response.headers?.get('x-request-id') ?? null;
      text = await response.text();
    } catch (error) {
      const attempts = attempt + 1;
      throw new PayrailError(
        CLIENT_ERROR_CODES.network_error,
        0,
        `${call.method} ${call.url} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${networkReason(error, this.options.timeout_ms)}`,
        { cause: error },
      );
    }
    const data = call.api === 'transfer' ? readTransferAnswer(status, text, requestId) : readPayinAnswer(status, text, requestId);
    return { body: data, requestId };
  }
}

/**
 * What went wrong below HTTP, as precisely as the runtime says: Node's fetch
 * throws "fetch failed" with the system error (code ECONNREFUSED, ENOTFOUND,
 * ...) as its cause; browsers say less.
 */
export function networkReason(error: unknown, timeoutMs: number): string {
  if ((error as { name?: string } | null)?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  const causeMessage = typeof cause?.message === 'string' && cause.message !== '' ? cause.message : null;
  if (causeMessage !== null) return code !== null && !causeMessage.includes(code) ? `${code} ${causeMessage}` : causeMessage;
  if (code !== null) return code;
  return String((error as Error | null)?.message ?? error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An answer in no documented shape: a 5xx is the server's (retryable) failure, anything else is unexpected. */
function unexpected(status: number, text: string, requestId: string | null): PayrailError {
  if (status >= 500) return new PayrailError('internal_server_error', status, `HTTP ${status} without a Payrail error body`, { requestId });
  return new PayrailError(CLIENT_ERROR_CODES.unexpected_response, status, `HTTP ${status} with an unexpected body: ${text.slice(0, QUOTE_CHARS_MAX)}`, {
    requestId,
  });
}

/**
 * Transfer API: the body's `success` decides, whatever the HTTP status. It is
 * `true` on success and the string "false" on failure; the other spellings
 * (boolean false, string "true") are accepted too.
 */
export function readTransferAnswer(status: number, text: string, requestId: string | null = null): Record<string, unknown> {
  const body = parseJson(text);
  if (!isObject(body)) throw unexpected(status, text, requestId);
  const success = body.success;
  if (success === true || success === 'true') return body;
  if (success === false || success === 'false') {
    const error = body.error;
    if (isObject(error) && typeof error.code === 'string') {
      return throwWire(error.code, status, typeof error.message === 'string' ? error.message : error.code, requestId);
    }
    // The spec types `error` as a string in one place; keep its text.
    if (typeof error === 'string' && error !== '')
      return throwWire(status >= 500 ? 'internal_server_error' : CLIENT_ERROR_CODES.unexpected_response, status, error, requestId);
  }
  throw unexpected(status, text, requestId);
}

/** Card payin API: 200 carries shape A or B; anything else is shape C `{error: {code, message}}`. */
export function readPayinAnswer(status: number, text: string, requestId: string | null = null): Record<string, unknown> {
  const body = parseJson(text);
  // A list (GET /api/v2/transactions, /api/v2/batches) is a JSON array, handed on as {items}.
  if (status >= 200 && status < 300 && Array.isArray(body)) return { items: body };
  if (!isObject(body)) throw unexpected(status, text, requestId);
  if (status >= 200 && status < 300) return body;
  const error = body.error;
  if (isObject(error) && typeof error.code === 'string') {
    return throwWire(error.code, status, typeof error.message === 'string' ? error.message : error.code, requestId);
  }
  throw unexpected(status, text, requestId);
}

function throwWire(code: string, status: number, message: string, requestId: string | null): never {
  throw new PayrailError(code, status, message, { requestId });
}
