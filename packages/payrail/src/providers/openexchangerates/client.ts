// The transport: one GET of {url}/latest.json with the currencies wanted,
// answered as parsed JSON. The App ID travels in the documented header
// `Authorization: Token <app id>`, never in the query, so it appears in no
// URL a proxy, an APM agent or an access log records. Anything short of a
// 2xx JSON answer throws OxrCallFailed, whose message names what went wrong
// and never the App ID.
//
// Open Exchange Rates' error answers (docs.openexchangerates.org, Errors)
// are JSON `{error: true, status, message, description}`, message one of
// not_found (404), missing_app_id (401), invalid_app_id (401), not_allowed
// (429: the plan does not include the route or feature), access_restricted
// (403, or 429 for repeated over-use), invalid_base (400). The message code
// and the description are kept for the log; the description is the
// provider's text, cut short and with the App ID blanked out should it ever
// appear there.
import { parseJsonKeepingNumbers } from './json-numbers.ts';
import type { OpenExchangeRatesSettings } from './settings.ts';
import { RESPONSE_BODY_MAX_BYTES } from './settings.ts';
import { callErrorWords, readBoundedText } from '../http-answer.ts';

export const LATEST_PATH = '/latest.json';

/** A fetch of the table that brought no table: unreachable, refused, or an answer that is not JSON. */
export class OxrCallFailed extends Error {
  override readonly name = 'OxrCallFailed';
  constructor(
    message: string,
    /** HTTP status, when there was an answer. */
    readonly status: number | null = null,
    /** The provider's error code (invalid_app_id, not_allowed...), when it sent one. */
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** The latest.json answer for `currencies` (ISO codes), parsed with each number as its source text (json-numbers.ts). */
export async function fetchLatest(settings: OpenExchangeRatesSettings, currencies: readonly string[], signal: AbortSignal): Promise<unknown> {
  const url = new URL(`${settings.url.replace(/\/+$/, '')}${LATEST_PATH}`);
  // Only the corridors' currencies: a small answer, read fast. The base is USD, the documented default.
  if (currencies.length > 0) url.searchParams.set('symbols', currencies.join(','));
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Token ${settings.appId.reveal()}` },
      signal,
      redirect: 'error',
    });
  } catch (error) {
    throw new OxrCallFailed(`no answer (${callErrorWords(error, signal)})`);
  }
  const text = await readText(response, signal);
  if (response.status < 200 || response.status > 299) throw refusal(response.status, text, settings);
  try {
    return parseJsonKeepingNumbers(text);
  } catch {
    throw new OxrCallFailed(`HTTP ${response.status}: the answer is not JSON`, response.status);
  }
}

/** The provider's error answer, in words for the log. */
function refusal(status: number, text: string, settings: OpenExchangeRatesSettings): OxrCallFailed {
  let body: { message?: unknown; description?: unknown } = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as typeof body;
  } catch {
    // An error page that is not JSON (a proxy's 502): the status says enough.
  }
  const code = typeof body.message === 'string' && /^[a-z_]{1,40}$/.test(body.message) ? body.message : null;
  const appId = settings.appId.reveal();
  const rawDescription = typeof body.description === 'string' ? body.description : '';
  const description = (appId === '' ? rawDescription : rawDescription.split(appId).join('[app id]')).replace(/[\r\n]+/g, ' ').slice(0, 200);
  const words = [`HTTP ${status}`, code ?? 'no error code', ...(description === '' ? [] : [description])];
  return new OxrCallFailed(words.join(': '), status, code);
}

async function readText(response: Response, signal: AbortSignal): Promise<string> {
  return readBoundedText(response, RESPONSE_BODY_MAX_BYTES, (problem) =>
    problem.kind === 'too_large'
      ? new OxrCallFailed(`HTTP ${response.status}: the answer exceeds ${problem.maxBytes} bytes`, response.status)
      : new OxrCallFailed(`HTTP ${response.status}: the answer broke off (${callErrorWords(problem.cause, signal)})`, response.status),
  );
}
