// The transport: one call to Veriff's public API and its JSON answer. Anything
// short of a parsed 2xx answer throws: a network error, an abort, a 5xx or
// 429 (VeriffUnavailable: the provider cannot serve now, a circuit breaker
// counts it), or an answer Payrail cannot use (VeriffAnswerUnusable: another
// 4xx, a body that is not JSON; Veriff is up, so a breaker does not count
// it). Errors carry the call and the status, never a header or body: the
// headers hold the API key and a signature, the bodies personal data.
import { RESPONSE_BODY_MAX_BYTES, type VeriffSettings } from './settings.ts';
import { hmacSignature } from './signature.ts';
import { callErrorWords, readBoundedText } from '../http-answer.ts';

/** A call whose answer Payrail does not have: Veriff may or may not have acted on it. */
export class VeriffUnavailable extends Error {
  override readonly name: string = 'VeriffUnavailable';
}

/** Veriff answered, but not with something Payrail can use; not a sign the provider is down. */
export class VeriffAnswerUnusable extends Error {
  override readonly name: string = 'VeriffAnswerUnusable';
  readonly countsAgainstBreaker = false;
}

export interface VeriffCall {
  readonly method: 'GET' | 'POST';
  /** The documented path under the API root, e.g. /v1/sessions. */
  readonly path: string;
  /** A POST's JSON body. */
  readonly body?: unknown;
  /** What X-HMAC-SIGNATURE signs, when the endpoint asks for one (a GET: the session id). */
  readonly signed?: string;
  /** For errors and logs: which call this is. */
  readonly what: string;
}

/** Sends `call` and answers the parsed JSON object of a 2xx answer. */
export async function callVeriff(settings: VeriffSettings, call: VeriffCall, signal: AbortSignal): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-auth-client': settings.apiKey.reveal() };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.signed !== undefined) headers['x-hmac-signature'] = hmacSignature(settings.sharedSecret.reveal(), call.signed);
  const url = `${settings.url.replace(/\/+$/, '')}${call.path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal,
      redirect: 'error',
    });
  } catch (error) {
    throw new VeriffUnavailable(`veriff ${call.what}: no answer (${callErrorWords(error, signal)})`);
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => undefined);
    const Failure =
      response.status >= 500 || response.status === 429 || response.status === 401 || response.status === 403 ? VeriffUnavailable : VeriffAnswerUnusable;
    throw new Failure(`veriff ${call.what}: HTTP ${response.status}`);
  }
  const text = await readText(response, call.what, signal);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VeriffAnswerUnusable(`veriff ${call.what}: the answer is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new VeriffAnswerUnusable(`veriff ${call.what}: the answer is not an object`);
  return parsed as Record<string, unknown>;
}

async function readText(response: Response, what: string, signal: AbortSignal): Promise<string> {
  return readBoundedText(response, RESPONSE_BODY_MAX_BYTES, (problem) =>
    problem.kind === 'too_large'
      ? new VeriffAnswerUnusable(`veriff ${what}: the answer exceeds ${problem.maxBytes} bytes`)
      : new VeriffUnavailable(`veriff ${what}: the answer broke off (${callErrorWords(problem.cause, signal)})`),
  );
}
