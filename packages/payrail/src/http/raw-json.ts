// The payin API reads a charge amount as a JSON number, but JSON.parse
// forgets how it was written: 1e2, 100.000 and 100 all become 100, while
// docs/api-decisions.md section 3 refuses exponents and more than two decimals. So routes
// under this parser keep the raw body text, and rawMemberText() finds the
// text of one top-level member without a second full parse.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as received, on routes registered after keepRawJson(). */
    rawJson?: string;
  }
}

/**
 * The JSON parser of the whole API: Fastify's own safe parser (a body with a
 * `__proto__` or `constructor.prototype` key is refused, never merged into
 * an object), with two differences. An empty body reads as no body, as a
 * POST or DELETE without a body does: many HTTP clients send
 * `Content-Type: application/json` on every request, and a route that needs
 * a body still refuses its absence through its schema ("body must be of
 * type object"). And a body refused only for such a key says so, instead of
 * "not valid JSON".
 */
export function parseJsonBodies(app: FastifyInstance, options: { readonly keepRaw: boolean } = { keepRaw: false }): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const unreadable = unreadableBody(request);
    if (unreadable !== null) {
      done(new ApiError('unsupported_media_type', unreadable), undefined);
      return;
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (options.keepRaw) request.rawJson = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, (error, value) => {
      if (error !== null && parsesAsPlainJson(text)) {
        done(new ApiError('invalid_request', 'request body may not contain a "__proto__" key or a "constructor" key holding "prototype"'), undefined);
        return;
      }
      done(error, value);
    });
  });
}

/**
 * Why a JSON body cannot be read as sent, or null: bodies are read as plain
 * UTF-8, so a compressed body or another charset is refused by name rather
 * than misread (or "not valid JSON").
 */
function unreadableBody(request: FastifyRequest): string | null {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return `Content-Encoding ${encoding.slice(0, 40)} is not supported; send the body uncompressed`;
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) return `charset ${charset.slice(0, 40)} is not supported; send UTF-8 JSON`;
  return null;
}

/** Routes registered after this in the plugin's scope (only) keep the raw body text too (request.rawJson). */
export function keepRawJson(app: FastifyInstance): void {
  parseJsonBodies(app, { keepRaw: true });
}

/** True when plain JSON.parse accepts `text` (it makes an own "__proto__" property, so it is safe to try). */
function parsesAsPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The raw text of member `name` of the top-level object of a JSON text that
 * JSON.parse accepted, or null when absent. For a repeated name the last one
 * wins, as in JSON.parse. Nested values are skipped without being read.
 */
export function rawMemberText(json: string, name: string): string | null {
  let i = skipSpace(json, 0);
  if (json[i] !== '{') return null;
  i = skipSpace(json, i + 1);
  let found: string | null = null;
  while (i < json.length && json[i] !== '}') {
    const keyEnd = endOfString(json, i);
    const key = JSON.parse(json.slice(i, keyEnd)) as string;
    i = skipSpace(json, keyEnd);
    i = skipSpace(json, i + 1); // the colon
    const valueEnd = endOfValue(json, i);
    if (key === name) found = json.slice(i, valueEnd);
    i = skipSpace(json, valueEnd);
    if (json[i] === ',') i = skipSpace(json, i + 1);
  }
  return found;
}

function skipSpace(json: string, i: number): number {
  while (i < json.length && (json[i] === ' ' || json[i] === '\n' || json[i] === '\r' || json[i] === '\t')) i++;
  return i;
}

/** Index just past the string that starts at `i` (an opening quote). */
function endOfString(json: string, i: number): number {
  for (let j = i + 1; j < json.length; j++) {
    if (json[j] === '\\') j++;
    else if (json[j] === '"') return j + 1;
  }
  return json.length;
}

/** Index just past the value that starts at `i`. */
function endOfValue(json: string, i: number): number {
  const first = json[i];
  if (first === '"') return endOfString(json, i);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let j = i; j < json.length; j++) {
      const c = json[j];
      if (c === '"') j = endOfString(json, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return json.length;
  }
  let j = i;
  while (j < json.length && json[j] !== ',' && json[j] !== '}' && json[j] !== ' ' && json[j] !== '\n' && json[j] !== '\r' && json[j] !== '\t') j++;
  return j;
}
