// The payin API reads a charge amount as a JSON number, but JSON.parse
// forgets how it was written: 1e2, 100.000 and 100 all become 100, while
// docs/api-decisions.md section 3 refuses exponents and more than two decimals. So routes
// under this parser keep the raw body text, and rawMemberText() finds the
// text of one top-level member without a second full parse.
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as received, on routes registered after keepRawJson(). */
    rawJson?: string;
  }
}

/**
 * Replaces the JSON parser of this plugin's scope (only) with Fastify's own
 * safe parser that also keeps the raw text on the request.
 */
export function keepRawJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawJson = text;
    parse(request, text, done);
  });
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
