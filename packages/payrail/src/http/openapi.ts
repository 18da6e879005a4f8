// The OpenAPI 3.1 document of both APIs, generated from the route schemas
// (the same TypeBox schemas that validate requests), served at /openapi.json,
// and a docs page at /docs whose assets come from the installed package, so
// it works with no internet. /docs is served only when PAYRAIL_DOCS is on
// (the sandbox's default; production's is off), under its own content
// security policy. Registered before the routes so that every
// route is seen. Each route's error replies are added from the one error
// catalogue, in the envelope of its API, unless the route declares them.
import fs from 'node:fs';
import path from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ERRORS, type ErrorName } from '../errors.ts';
import type { Service } from '../service.ts';
import { apiFamily, type ApiFamily } from './errors.ts';
import { withNamedSchemas } from './openapi-components.ts';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/** Paths of the public APIs; everything else (panel, hosted form) stays out of the document. */
function isDocumented(url: string): boolean {
  return url.startsWith('/api/') || url.startsWith('/sandbox/') || url.startsWith('/providers/') || url === '/healthz' || url === '/readyz';
}

/**
 * Errors any operation of an API can answer, whatever it does: credentials
 * (401, 403 for a credential of another kind), a malformed request or body,
 * the request rate limits, a server error, a server shutting down.
 */
const SHARED_ERRORS: Readonly<Record<ApiFamily, readonly ErrorName[]>> = {
  transfer: ['invalid_request', 'authentication_error', 'wrong_credential_kind', 'rate_limited', 'internal_server_error', 'shutting_down'],
  payin: ['invalid_request', 'authentication_error', 'permission_denied', 'rate_limited', 'internal_server_error', 'shutting_down'],
  // Routes outside both APIs that declare their errors (provider callbacks): no credential, shape C.
  other: ['rate_limited', 'internal_server_error', 'shutting_down'],
};

/** The catalogue codes of `errors`, grouped by HTTP status. */
function codesByStatus(errors: readonly ErrorName[]): Map<number, string[]> {
  const byStatus = new Map<number, string[]>();
  for (const name of errors) {
    const entry = ERRORS[name];
    const codes = byStatus.get(entry.status) ?? [];
    if (!codes.includes(entry.code)) codes.push(entry.code);
    byStatus.set(entry.status, codes);
  }
  return byStatus;
}

/** The titles of the payin API's generic refusal schemas (http/schemas/payin.ts), replaced by each operation's own codes. */
const GENERIC_REFUSAL_TITLES: ReadonlySet<string | undefined> = new Set(['PayinError', 'PayinRefusal']);

const STATUS_MEANINGS: Readonly<Record<number, string>> = {
  400: 'The request is refused: the message names the field',
  401: 'Missing or invalid credentials',
  403: 'This credential may not call this operation',
  404: 'Not found',
  413: 'The request body is too large',
  429: 'Too many requests: retry after the Retry-After header',
  500: 'Server error: retry (with the same Idempotency-Key where the operation takes one)',
  503: 'The server is shutting down: retry',
};

/** The error body of each API family, restricted to this operation's codes for that status. */
function errorSchema(family: ApiFamily, status: number, codes: readonly string[]): Record<string, unknown> {
  const error = {
    type: 'object',
    required: ['code', 'message'],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: codes },
      message: { type: 'string', description: 'What is wrong, naming the field' },
    },
  };
  const meaning =
    status === 503 && codes.includes(ERRORS.service_unavailable.code)
      ? 'The server is shutting down, or a provider the request needs is unreachable (service_unavailable); nothing was written: retry'
      : (STATUS_MEANINGS[status] ?? 'Refused');
  if (family === 'other') {
    return { description: `${meaning}. Shape C`, type: 'object', required: ['error'], additionalProperties: false, properties: { error } };
  }
  if (family === 'transfer') {
    return {
      description: `${meaning}. Failure envelope: success is the string "false"`,
      type: 'object',
      required: ['success', 'error'],
      additionalProperties: false,
      properties: { success: { type: 'string', const: 'false' }, error },
    };
  }
  const shapeC = { title: 'shape C (spec dialect)', type: 'object', required: ['error'], additionalProperties: false, properties: { error } };
  const acceptBlue = {
    title: 'accept.blue dialect',
    type: 'object',
    required: ['version', 'status', 'status_code', 'error_message', 'error_code', 'error_details'],
    properties: {
      version: { type: 'string' },
      status: { type: 'string', const: 'Error' },
      status_code: { type: 'string', const: 'E' },
      error_message: { type: 'string', description: 'What is wrong, naming the field' },
      error_code: { type: 'string', enum: codes },
      error_details: {
        anyOf: [{ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }, { type: 'null' }],
        description: 'Each refused field (a dotted path) with its messages; null when the refusal is not about one field',
      },
    },
  };
  const both = {
    title: 'caller not yet known (both)',
    type: 'object',
    required: ['error', ...acceptBlue.required],
    properties: { error, ...acceptBlue.properties },
  };
  return {
    description: `${meaning}. Shape C for a source in the spec dialect, accept.blue's body in the acceptblue dialect, both at once before the caller is known (docs/acceptblue-compatibility.md)`,
    anyOf: [shapeC, acceptBlue, both],
  };
}

function securityOf(url: string): Array<Record<string, string[]>> | undefined {
  if (url === '/api/v2/tokens') return [{ tokenizationToken: [] }];
  // docs/api-decisions.md section 14: either of the merchant's API credentials.
  if (isEventsUrl(url)) return [{ sourceBasic: [] }, { transferApiKey: [] }];
  if (url.startsWith('/api/v2/')) return [{ sourceBasic: [] }];
  if (url.startsWith('/api/') || url.startsWith('/sandbox/')) return [{ transferApiKey: [] }];
  return undefined;
}

const isEventsUrl = (url: string): boolean => url.startsWith('/api/v2/webhooks') || url.startsWith('/api/v2/events');

function tagOf(url: string): string {
  if (isEventsUrl(url)) return 'Events and webhooks';
  if (url.startsWith('/api/v2/')) return 'Card payin';
  if (url.startsWith('/api/')) return 'Transfers';
  if (url.startsWith('/sandbox/')) return 'Sandbox';
  if (url.startsWith('/providers/')) return 'Providers';
  return 'Operations';
}

/**
 * Replies of the operations routes, which declare no schema of their own
 * (their bodies are plain objects, not part of either API).
 */
const OPERATIONS_RESPONSES: Readonly<Record<string, Record<string, unknown>>> = {
  '/healthz': {
    200: { description: 'The process is alive', type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } },
  },
  '/readyz': {
    200: {
      description: 'The store answers queries',
      type: 'object',
      required: ['status', 'environment', 'store'],
      properties: {
        status: { type: 'string', const: 'ready' },
        environment: { type: 'string', enum: ['sandbox', 'production'] },
        store: { type: 'string', enum: ['sqlite', 'postgres'] },
      },
    },
    503: { description: 'The store does not answer', type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'unavailable' } } },
  },
};

/**
 * What a route's schema says for the document besides validation: its
 * operationId and summary, and `errors`, the catalogue errors it answers
 * beyond those every operation of its API shares (SHARED_ERRORS). A route
 * that lists none is documented with every error of the catalogue.
 */
export type RouteSchema = FastifySchema & {
  hide?: boolean;
  tags?: string[];
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown;
  errors?: readonly ErrorName[];
  response?: Record<string, unknown>;
};

/** Adds what every operation of a family shares: tag, credential and its error replies. */
export function documentRoute(url: string, method: string | string[], schema: RouteSchema | undefined): RouteSchema {
  const { errors, ...base }: RouteSchema = schema ?? {};
  if (!isDocumented(url) || method === 'OPTIONS' || method === 'HEAD') return { ...base, hide: true };
  const family = apiFamily(url);
  const response: Record<string, unknown> = { ...(OPERATIONS_RESPONSES[url] ?? {}), ...(base.response ?? {}) };
  // Operations outside both APIs document errors only when they declare them (the health routes answer none of the catalogue).
  if (family !== 'other' || errors !== undefined) {
    const own = errors ?? (Object.keys(ERRORS) as ErrorName[]);
    for (const [status, codes] of codesByStatus([...SHARED_ERRORS[family], ...own])) {
      // A refusal with a body of its own (a duplicate card's 409 names the saved one) keeps its schema;
      // the generic refusal shape gives way to this operation's own codes.
      const declared = response[String(status)] as { title?: string } | undefined;
      if (declared === undefined || GENERIC_REFUSAL_TITLES.has(declared.title)) response[String(status)] = errorSchema(family, status, codes);
    }
  }
  const security = base.security ?? securityOf(url);
  return {
    ...base,
    tags: base.tags ?? [tagOf(url)],
    // The operations routes take no credential: said explicitly, not left to a default.
    security: security ?? [],
    response,
  };
}

/** The docs page's top bar: the product name, drawn locally. */
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40">' +
  '<text x="0" y="29" font-family="sans-serif" font-size="26" font-weight="700" fill="#ffffff">Payrail</text></svg>';

export async function registerOpenApi(app: FastifyInstance, service: Service): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payrail',
        version: PACKAGE_VERSION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description: [
          'Card payin (`/api/v2/...`) and phone money transfer (`/api/...`) APIs.',
          '',
          'Transfer API: every call sends the merchant key in the `API-KEY` header. Success bodies carry `"success": true` and `"error": ""`;',
          'failures are `{"success": "false", "error": {"message", "code"}}` (the string "false"). Amounts are decimal strings of dollars;',
          'the balance is in cents. Phones may be E.164 with or without `+` or national; the KYC path takes E.164 digits without `+`.',
          '',
          'Card payin API: HTTP Basic with a source API key and its PIN. Approved and pending charges answer shape A, declined and failed',
          'ones shape B (both HTTP 200), rejected requests shape C `{"error": {"code", "message"}}`. Send an `Idempotency-Key` to retry safely.',
          'Cards are tokenized with the public tokenization token (Bearer) into a single-use nonce that lives 15 minutes.',
          '',
          'Stored customers keep saved cards (payment methods, saved from a nonce) and recurring schedules. A charge `source` may be a nonce,',
          '`pm-<payment method id>` or `ref-<reference number>` (the card of an earlier approved charge); with the last two, expiry and billing',
          'are optional. The worker charges each due schedule once per run date (UTC).',
        ].join('\n'),
      },
      servers: [{ url: service.config.publicUrl }],
      tags: [
        { name: 'Transfers', description: 'Money transfer to phone numbers' },
        { name: 'Card payin', description: 'Card tokenization, charges, stored customers, saved cards and recurring schedules' },
        { name: 'Sandbox', description: 'Calls that exist in the sandbox only' },
        { name: 'Operations', description: 'Liveness and readiness' },
        { name: 'Providers', description: 'Callbacks (webhooks) from the card processor, payout network and KYC connectors, verified by their signatures' },
      ],
      components: {
        securitySchemes: {
          transferApiKey: { type: 'apiKey', in: 'header', name: 'API-KEY', description: 'The merchant transfer API key' },
          sourceBasic: { type: 'http', scheme: 'basic', description: 'Source API key as user name, its PIN as password' },
          tokenizationToken: { type: 'http', scheme: 'bearer', description: 'The public tokenization token of a source' },
        },
      },
    },
    transform: ({ schema, url, route }) => ({ schema: documentRoute(url, route.method, schema as RouteSchema) as never, url }),
    transformObject: (document) => withNamedSchemas('openapiObject' in document ? document.openapiObject : document.swaggerObject) as never,
  });

  if (service.config.docs) {
    const production = service.config.environment === 'production';
    await app.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: DOCS_PATH },
      theme: { title: 'Payrail API' },
      // No call to an outside validator: the page must work offline.
      uiConfig: { validatorUrl: null, deepLinking: true },
      // The package's own policy for its page and assets (replacing the API's,
      // which allows nothing); a sandbox on plain HTTP must not upgrade them.
      staticCSP: true,
      transformStaticCSP: (header: string) => (production ? header : header.replace(/\s*upgrade-insecure-requests;?/, '')),
    } as never);
  }

  app.get(OPENAPI_PATH, { schema: { hide: true } as FastifySchema }, async () => app.swagger());
}
