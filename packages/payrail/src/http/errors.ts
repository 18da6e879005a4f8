// Renders every error in the envelope of the API it happened on: the
// transfer API's {"success":"false","error":{message,code}}, the card payin
// API's shape C {"error":{code,message}}, and shape C for everything else.
// That includes what the framework refuses before any route runs: a URL it
// cannot decode, a path segment over its length limit, and requests Node's
// HTTP parser rejects (an over-long request line or headers).
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ACCEPTBLUE_API_VERSION, type WireDialect } from '../domain/wire-dialect.ts';
import { ApiError, isApiError, StoreClosedError, type ErrorName } from '../errors.ts';

export type ApiFamily = 'transfer' | 'payin' | 'other';

export function apiFamily(url: string): ApiFamily {
  if (url.startsWith('/api/v2/')) return 'payin';
  if (url.startsWith('/api/') || url.startsWith('/sandbox/')) return 'transfer';
  return 'other';
}

/**
 * The caller's dialect on the payin API: its source's setting once its
 * credentials were accepted, `unknown` before (a 401 must read the same for
 * every failed credential, so it cannot depend on whose key was sent).
 */
export type RefusalDialect = WireDialect | 'unknown';

/** accept.blue's refusal body: BaseResponse with status "Error" (docs/acceptblue-compatibility.md). */
export function renderAcceptBlueRefusal(error: ApiError): Record<string, unknown> {
  return {
    version: ACCEPTBLUE_API_VERSION,
    status: 'Error',
    status_code: 'E',
    error_message: error.message,
    error_code: error.code,
    error_details: error.field === undefined ? null : { [error.field]: [error.message] },
    ...error.fields,
  };
}

export function renderError(family: ApiFamily, error: ApiError, dialect: RefusalDialect = 'spec'): unknown {
  if (family === 'transfer') return { success: 'false', error: { message: error.message, code: error.code } };
  const shapeC = { error: { code: error.code, message: error.message }, ...error.fields };
  if (family !== 'payin' || dialect === 'spec') return shapeC;
  if (dialect === 'acceptblue') return renderAcceptBlueRefusal(error);
  // Dialect unknown: both envelopes, so either kind of client reads it.
  return { ...shapeC, ...renderAcceptBlueRefusal(error) };
}

/** The dialect a refusal of this request is written in (see RefusalDialect). */
export function refusalDialectOf(request: FastifyRequest): RefusalDialect {
  return request.principal?.dialect ?? 'unknown';
}

/** Field names whose validation failures are amount errors, not generic ones. */
const AMOUNT_FIELDS = new Set(['amount']);
const PHONE_FIELDS = new Set(['sender_phone', 'receiver_phone']);

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  params?: { missingProperty?: string; additionalProperty?: string; type?: string; allowedValues?: unknown[] };
  message?: string;
}

/** Turns a schema validation failure into the catalogue error that names the field. */
export function validationError(error: FastifyError & { validation?: AjvIssue[]; validationContext?: string }): ApiError {
  const issue: AjvIssue = error.validation?.[0] ?? {};
  const context = error.validationContext ?? 'body';
  const pathParts = (issue.instancePath ?? '').split('/').filter((p) => p !== '');
  const missing = issue.params?.missingProperty;
  const field = missing !== undefined ? [...pathParts, missing].join('.') : pathParts.join('.');
  const leaf = missing ?? pathParts.at(-1) ?? '';
  const where = field === '' ? context : field;
  let message: string;
  if (missing !== undefined) message = `${where} is required`;
  else if (issue.keyword === 'type') message = `${where} must be of type ${issue.params?.type ?? 'valid'}`;
  // The choices, as the flows' own refusals name them (ajv's message says only that there are some).
  else if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues)) message = `${where} must be one of ${issue.params.allowedValues.join(', ')}`;
  else if (issue.keyword === 'additionalProperties')
    message = `${where === context ? '' : `${where}: `}unknown field ${issue.params?.additionalProperty ?? ''}`.trim();
  else message = `${where} ${issue.message ?? 'is invalid'}`;
  let name: ErrorName = 'invalid_request';
  if (missing === undefined && AMOUNT_FIELDS.has(leaf) && pathParts.length === 1) name = 'invalid_amount';
  if (missing === undefined && PHONE_FIELDS.has(leaf) && pathParts.length === 1) name = 'invalid_phone_number';
  return new ApiError(name, message, undefined, field === '' ? undefined : field);
}

export function toApiError(error: unknown): ApiError | null {
  if (isApiError(error)) return error;
  if (error instanceof StoreClosedError) return new ApiError('shutting_down');
  const fastifyError = error as FastifyError & { validation?: AjvIssue[] };
  if (fastifyError.validation !== undefined) return validationError(fastifyError);
  const status = fastifyError.statusCode;
  // Fastify raises these as 413 and 415; the catalogue answers them 400.
  if (status === 413) return new ApiError('payload_too_large');
  if (status === 415) return new ApiError('unsupported_media_type');
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new ApiError('invalid_request', 'request body is empty; send a JSON object');
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (error instanceof SyntaxError && status === 400)) {
    return new ApiError('invalid_request', 'request body is not valid JSON');
  }
  if (status !== undefined && status >= 400 && status < 500) return new ApiError('invalid_request', fastifyError.message);
  return null;
}

export function errorHandler(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  let apiError = toApiError(error);
  if (apiError === null) {
    request.log.error({ err: error }, 'unexpected error');
    apiError = new ApiError('internal_server_error');
  }
  void reply.code(apiError.status).send(renderError(apiFamily(request.url), apiError, refusalDialectOf(request)));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  const error = new ApiError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
  void reply.code(404).send(renderError(apiFamily(request.url), error, refusalDialectOf(request)));
}

/**
 * What every answer carries (src/http/security-headers.ts), set here for the
 * answers written before any hook runs.
 */
const REFUSAL_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** Fastify's refusals before routing (its `frameworkErrors` option): the URL is not one a route could take. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path segment of the URL is too long'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'the URL is not valid (bad percent-encoding)'
        : 'the request could not be routed';
  const apiError = new ApiError('invalid_request', message);
  void reply
    .code(apiError.status)
    .headers(REFUSAL_HEADERS)
    .send(renderError(apiFamily(request.url), apiError, 'unknown'));
}

/** Bytes of a rejected request looked at to find its URL. */
const RAW_REQUEST_LOOK_BYTES = 4096;

/**
 * Requests Node's HTTP parser rejects (Fastify's `clientErrorHandler`): no
 * route and no hook sees them, so the answer is written to the socket here,
 * in the envelope of the API its request line names (when it can be read),
 * with the headers every answer carries. The connection is closed after it.
 */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const head = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, RAW_REQUEST_LOOK_BYTES).toString('latin1') : '';
  const url = /^[A-Z]{1,16} (\/\S*)/.exec(head)?.[1] ?? '';
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'the request line or headers are too large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request took too long to arrive'
        : 'the request is not valid HTTP';
  const apiError = new ApiError('invalid_request', message);
  const body = JSON.stringify(renderError(apiFamily(url), apiError, 'unknown'));
  if (socket.writable) {
    const headers = Object.entries(REFUSAL_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${apiError.status} Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `${headers}connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
