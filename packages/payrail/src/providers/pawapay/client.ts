// The transport: one call to pawaPay's Merchant API v2 and its answer read.
// Anything short of an answer Payrail can read throws (a network error, an
// abort, a 5xx, a body that is not JSON): Payrail cannot know then whether a
// payout was taken, so the outcome is unknown and it asks again later under
// the same payoutId, which pawaPay answers DUPLICATE_IGNORED when it has it.
//
// Errors carry the call and what went wrong, never the token or the body.
import { RESPONSE_BODY_MAX_BYTES, type PawaPaySettings } from './settings.ts';
import { callErrorWords, readBoundedText } from '../http-answer.ts';

/** A call whose outcome Payrail cannot know: the request may or may not have been taken. */
export class PawaPayUnknownOutcome extends Error {
  override readonly name: string = 'PawaPayUnknownOutcome';
}

/**
 * An unknown outcome pawaPay did answer (a status Payrail does not know, a
 * payout it says it does not have although it took it): the API is up, so a
 * circuit breaker must not count it as unavailability.
 */
export class PawaPayAnswerUnusable extends PawaPayUnknownOutcome {
  override readonly name: string = 'PawaPayAnswerUnusable';
  readonly countsAgainstBreaker = false;
}

/** An answer: its HTTP status and its JSON body (null when it had none or none that parses). */
export interface ApiAnswer {
  readonly status: number;
  readonly json: unknown;
}

/**
 * Calls `method path` with the bearer token and an optional JSON body.
 * Answers any HTTP status below 500 with its parsed body (the caller decides
 * what a 4xx means); throws on 5xx, network errors and aborts.
 */
export async function callApi(settings: PawaPaySettings, method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<ApiAnswer> {
  const what = `pawapay ${method} ${path.replace(/\/[0-9a-f-]{36}$/i, '/{id}')}`;
  const headers: Record<string, string> = { authorization: `Bearer ${settings.token.reveal()}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(new URL(path, withSlash(settings.url)), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
      redirect: 'error',
    });
  } catch (error) {
    throw new PawaPayUnknownOutcome(`${what}: no answer (${callErrorWords(error, signal)})`);
  }
  if (response.status >= 500) {
    await response.body?.cancel().catch(() => undefined);
    throw new PawaPayUnknownOutcome(`${what}: HTTP ${response.status}`);
  }
  const text = await readText(response, what, signal);
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, json };
}

/** `new URL(path, base)` drops the base's last segment unless it ends in a slash; paths are given without a leading one. */
function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

async function readText(response: Response, what: string, signal: AbortSignal): Promise<string> {
  return readBoundedText(response, RESPONSE_BODY_MAX_BYTES, (problem) =>
    problem.kind === 'too_large'
      ? new PawaPayUnknownOutcome(`${what}: the answer exceeds ${problem.maxBytes} bytes`)
      : new PawaPayUnknownOutcome(`${what}: the answer broke off (${callErrorWords(problem.cause, signal)})`),
  );
}

/** `signal` and a deadline of `timeoutMs` (when given): fires at whichever comes first. */
export function withTimeout(signal: AbortSignal | undefined, timeoutMs: number | undefined): AbortSignal {
  const signals: AbortSignal[] = [];
  if (signal !== undefined) signals.push(signal);
  if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs));
  if (signals.length === 0) throw new Error('pawapay: a call needs a signal or a deadline');
  return signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
}

/** The value as a record, or null. */
export function recordOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A short text field, or null (pawaPay's codes and ids are short; anything else is not what was asked for). */
export function textOf(value: unknown, maxChars = 200): string | null {
  return typeof value === 'string' && value !== '' && value.length <= maxChars ? value : null;
}
