// The transport: one HTTP call to MoMo's API root and its answer, read
// within a deadline (the caller's AbortSignal or the connector's own
// callTimeoutMs, whichever ends first) and a size bound. Anything short of
// an answer throws MtnMomoUnknownOutcome (a network error, an abort, a body
// cut off): MoMo may or may not have taken a request that got no answer.
// What a status code means is the operations' business, not this file's.
//
// Errors carry the call's name and what went wrong, never a header: they
// hold the subscription key, the API key or a bearer token.
import { RESPONSE_BODY_MAX_BYTES } from './settings.ts';
import { callErrorWords, readBoundedText } from '../http-answer.ts';

/** A call whose outcome Payrail cannot know: the request may or may not have been taken. */
export class MtnMomoUnknownOutcome extends Error {
  override readonly name: string = 'MtnMomoUnknownOutcome';
}

/**
 * MoMo answered, but not in a way Payrail can act on (a status it does not
 * document, a 404 for a transfer it took, a body without its fields). MoMo
 * is up, so a circuit breaker must not count it as unavailability; the
 * outcome stays unknown and Payrail asks again later.
 */
export class MtnMomoAnswerUnusable extends MtnMomoUnknownOutcome {
  override readonly name: string = 'MtnMomoAnswerUnusable';
  readonly countsAgainstBreaker = false;
}

export interface MomoCall {
  /** For errors and logs: `transfer`, `transfer status`, `token`. */
  readonly name: string;
  readonly method: 'GET' | 'POST';
  /** Appended to the API root: a documented path, its parameters already encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface MomoAnswer {
  readonly status: number;
  /** The parsed JSON body; null for an empty body or one that is not JSON (MoMo answers 202 and 409 with no body). */
  readonly body: unknown;
}

/** Sends one call; answers any HTTP status, throws MtnMomoUnknownOutcome when no whole answer arrived. */
export async function callMomo(baseUrl: string, call: MomoCall, signal: AbortSignal, timeoutMs: number): Promise<MomoAnswer> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  const both = AbortSignal.any([signal, deadline.signal]);
  try {
    let response: Response;
    try {
      response = await fetch(`${baseUrl.replace(/\/+$/, '')}${call.path}`, {
        method: call.method,
        headers: { accept: 'application/json', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
        ...(call.body === undefined ? {} : { body: call.body }),
        signal: both,
        redirect: 'error',
      });
    } catch (error) {
      throw new MtnMomoUnknownOutcome(`mtn-momo ${call.name}: no answer (${callErrorWords(error, signal, deadline.signal)})`);
    }
    const text = await readText(response, call.name, signal, deadline.signal);
    return { status: response.status, body: parseJson(text) };
  } finally {
    clearTimeout(timer);
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
}

async function readText(response: Response, name: string, signal: AbortSignal, deadline: AbortSignal): Promise<string> {
  return readBoundedText(response, RESPONSE_BODY_MAX_BYTES, (problem) =>
    problem.kind === 'too_large'
      ? new MtnMomoAnswerUnusable(`mtn-momo ${name}: the answer exceeds ${problem.maxBytes} bytes`)
      : new MtnMomoUnknownOutcome(`mtn-momo ${name}: the answer broke off (${callErrorWords(problem.cause, signal, deadline)})`),
  );
}
