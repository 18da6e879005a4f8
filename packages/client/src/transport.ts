// One HTTP attempt and the bounded retry loop around it. Each API's answer
// is read into its data or a PayrailError here, so the client methods only
// see typed data. Retries cover exactly two cases: no answer arrived
// (network_error) and the server said internal_server_error.
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
  text(): Promise<string>;
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
  readonly method: 'GET' | 'POST';
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

  /** One attempt: sends the call and reads the answer of its API into data or a PayrailError. */
  async once(call: Call): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    let status: number;
    let text: string;
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
      text = await response.text();
    } catch (error) {
      const timedOut = (error as { name?: string } | null)?.name === 'TimeoutError';
      const reason = timedOut ? `no answer within ${this.options.timeout_ms} ms` : String((error as Error | null)?.message ?? error);
      throw new PayrailError(CLIENT_ERROR_CODES.network_error, 0, `${call.method} ${call.url}: ${reason}`, { cause: error });
    }
    return call.api === 'transfer' ? readTransferAnswer(status, text) : readPayinAnswer(status, text);
  }
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
function unexpected(status: number, text: string): PayrailError {
  if (status >= 500) return new PayrailError('internal_server_error', status, `HTTP ${status} without a Payrail error body`);
  return new PayrailError(CLIENT_ERROR_CODES.unexpected_response, status, `HTTP ${status} with an unexpected body: ${text.slice(0, QUOTE_CHARS_MAX)}`);
}

/**
 * Transfer API: the body's `success` decides, whatever the HTTP status. It is
 * `true` on success and the string "false" on failure; the other spellings
 * (boolean false, string "true") are accepted too.
 */
export function readTransferAnswer(status: number, text: string): Record<string, unknown> {
  const body = parseJson(text);
  if (!isObject(body)) throw unexpected(status, text);
  const success = body.success;
  if (success === true || success === 'true') return body;
  if (success === false || success === 'false') {
    const error = body.error;
    if (isObject(error) && typeof error.code === 'string') {
      return throwWire(error.code, status, typeof error.message === 'string' ? error.message : error.code);
    }
    // The spec types `error` as a string in one place; keep its text.
    if (typeof error === 'string' && error !== '') return throwWire(status >= 500 ? 'internal_server_error' : CLIENT_ERROR_CODES.unexpected_response, status, error);
  }
  throw unexpected(status, text);
}

/** Card payin API: 200 carries shape A or B; anything else is shape C `{error: {code, message}}`. */
export function readPayinAnswer(status: number, text: string): Record<string, unknown> {
  const body = parseJson(text);
  if (!isObject(body)) throw unexpected(status, text);
  if (status >= 200 && status < 300) return body;
  const error = body.error;
  if (isObject(error) && typeof error.code === 'string') {
    return throwWire(error.code, status, typeof error.message === 'string' ? error.message : error.code);
  }
  throw unexpected(status, text);
}

function throwWire(code: string, status: number, message: string): never {
  throw new PayrailError(code, status, message);
}
