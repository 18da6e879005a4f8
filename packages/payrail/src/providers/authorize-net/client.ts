// The transport: one POST of one API request to Authorize.net's JSON
// endpoint, and its answer parsed. Anything short of a parsed answer throws
// (a non-2xx status, a network error, an abort, a body that is not JSON):
// Payrail cannot know then whether the request was applied, so the outcome
// is unknown and Payrail asks again later with the same invoice number.
//
// Errors carry the request name and what went wrong, never the body sent:
// it holds the transaction key and, for card requests, the card.
import type { AuthorizeNetSettings } from './settings.ts';
import { RESPONSE_BODY_MAX_BYTES } from './settings.ts';
import { firstMessageCode, listOf, type WireEnvelope } from './wire.ts';
import { callErrorWords, readBoundedText } from '../http-answer.ts';

/** A call whose outcome Payrail cannot know: the request may or may not have been applied. */
export class AuthorizeNetUnknownOutcome extends Error {
  override readonly name: string = 'AuthorizeNetUnknownOutcome';
}

/**
 * An unknown outcome that Authorize.net did answer: a transaction held for
 * review, a status or response code Payrail does not know, an answer that
 * contradicts itself. The gateway is up, so a circuit breaker must not count
 * it as unavailability (`countsAgainstBreaker` is false); Payrail still
 * treats it as an unknown outcome and asks again later.
 */
export class AuthorizeNetAnswerUnusable extends AuthorizeNetUnknownOutcome {
  override readonly name: string = 'AuthorizeNetAnswerUnusable';
  readonly countsAgainstBreaker = false;
}

/**
 * The answers Authorize.net gives with resultCode "Error" (and no
 * transaction) that refuse the request as written before anything is
 * processed: a request an earlier send of the same request got too. Any other
 * code (the gateway's own failure E00001, "server too busy" E00053,
 * maintenance E00104, refused credentials E00007/E00008/E00011, or a code
 * Payrail does not know) says nothing about the request's fate.
 * Authorize.net's response code list: E00002 content-type not supported,
 * E00003 the request could not be parsed, E00004 the API method name is
 * invalid, E00013 a field is invalid, E00014 a required field is missing,
 * E00015 a field's length is invalid, E00016 a field's type is invalid,
 * E00045 the root node's namespace is invalid.
 */
/**
 * The unknown-outcome codes that say the gateway cannot serve now (its own
 * failure E00001, too busy E00053, maintenance E00104) or will not take these
 * credentials (E00007, E00008, E00011): a circuit breaker counts them. Any
 * other unknown code is an answer Payrail cannot use (AuthorizeNetAnswerUnusable).
 */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set(['E00001', 'E00007', 'E00008', 'E00011', 'E00053', 'E00104']);

const REFUSED_AS_WRITTEN_CODES: ReadonlySet<string> = new Set(['E00002', 'E00003', 'E00004', 'E00013', 'E00014', 'E00015', 'E00016', 'E00045']);

/**
 * Posts `{ [root]: { merchantAuthentication, ...fields } }` and answers the
 * parsed body. `fields` keeps its key order on the wire: the JSON API is a
 * translation of the XML schema and refuses elements out of order.
 */
export async function postApi<T extends WireEnvelope>(
  settings: AuthorizeNetSettings,
  root: string,
  fields: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
): Promise<T> {
  const body = JSON.stringify({
    [root]: { merchantAuthentication: { name: settings.loginId, transactionKey: settings.transactionKey.reveal() }, ...fields },
  });
  let response: Response;
  try {
    response = await fetch(settings.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body, signal });
  } catch (error) {
    throw new AuthorizeNetUnknownOutcome(`authorize-net ${root}: no answer (${callErrorWords(error, signal)})`);
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => undefined);
    throw new AuthorizeNetUnknownOutcome(`authorize-net ${root}: HTTP ${response.status}`);
  }
  const text = await readText(response, root, signal);
  return parseAnswer<T>(text, root);
}

/** The answer's JSON, after the UTF-8 byte order mark Authorize.net puts before it; throws when it is not a JSON object. */
export function parseAnswer<T>(text: string, root: string): T {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new AuthorizeNetUnknownOutcome(`authorize-net ${root}: the answer is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AuthorizeNetUnknownOutcome(`authorize-net ${root}: the answer is not an object`);
  return parsed as T;
}

/**
 * Throws when an answer without a transaction says nothing definite: an
 * "Error" whose code is not one of REFUSED_AS_WRITTEN_CODES, or an answer
 * without messages. Only those refusals of the request as written may be
 * reported as failed by the caller.
 */
export function assertDefinite(envelope: WireEnvelope, root: string): void {
  const code = firstMessageCode(envelope);
  if (code === '' || envelope.messages?.resultCode === undefined) throw new AuthorizeNetUnknownOutcome(`authorize-net ${root}: an answer without messages`);
  if (envelope.messages.resultCode !== 'Ok' && !REFUSED_AS_WRITTEN_CODES.has(code)) {
    const Unknown = UNAVAILABLE_CODES.has(code) ? AuthorizeNetUnknownOutcome : AuthorizeNetAnswerUnusable;
    throw new Unknown(`authorize-net ${root}: ${code} ${messageText(envelope)}`);
  }
}

/** The answer's first message text, for errors and logs (Authorize.net's texts name fields, never their values). */
export function messageText(envelope: WireEnvelope): string {
  return listOf(envelope.messages?.message)[0]?.text ?? '';
}

async function readText(response: Response, root: string, signal: AbortSignal): Promise<string> {
  return readBoundedText(response, RESPONSE_BODY_MAX_BYTES, (problem) =>
    problem.kind === 'too_large'
      ? new AuthorizeNetUnknownOutcome(`authorize-net ${root}: the answer exceeds ${problem.maxBytes} bytes`)
      : new AuthorizeNetUnknownOutcome(`authorize-net ${root}: the answer broke off (${callErrorWords(problem.cause, signal)})`),
  );
}
