// Checks HTTP responses against the served OpenAPI document, the way a client
// generated from it would read them: the request's path is matched against
// the document's paths, the status must be documented for that operation, and
// a JSON body must satisfy the documented schema. createTestApp installs it on
// app.inject, so every HTTP test also tests the document.
import { AssertionError } from 'node:assert';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { App } from '../../src/http/app.ts';

export interface OpenApiDocument {
  components?: { schemas?: Record<string, unknown> };
  paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
}

interface PathMatcher {
  readonly template: string;
  readonly pattern: RegExp;
  /** Templates without parameters win over ones with them, as in a router. */
  readonly parameterCount: number;
}

export interface CheckedResponse {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  readonly body: string;
}

/** Characters of a body quoted in a failure message, at most. */
const QUOTE_CHARS_MAX = 600;

export class ResponseValidator {
  private readonly matchers: PathMatcher[];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction | null>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.matchers = Object.keys(document.paths ?? {})
      .map((template) => {
        const names = template.match(/\{[^}]+\}/g) ?? [];
        const source = template
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+');
        return { template, pattern: new RegExp(`^${source}$`), parameterCount: names.length };
      })
      .sort((a, b) => a.parameterCount - b.parameterCount);
  }

  /** The documented path template a concrete path belongs to, if any. */
  templateOf(pathname: string): string | undefined {
    return this.matchers.find((m) => m.pattern.test(pathname))?.template;
  }

  /**
   * Throws an AssertionError when the response contradicts the document.
   * Requests outside the documented operations (panel pages, unknown paths,
   * other methods) are not the document's business and pass.
   */
  check(method: string, url: string, response: CheckedResponse): void {
    const pathname = url.split('?')[0]!;
    const template = this.templateOf(pathname);
    if (template === undefined) return;
    const operation = this.document.paths?.[template]?.[method.toLowerCase()];
    if (operation === undefined) return;
    const where = `${method} ${pathname} -> ${response.statusCode}`;
    const documented = operation.responses?.[String(response.statusCode)] ?? operation.responses?.default;
    if (documented === undefined) {
      throw new AssertionError({
        message: `${where}: status ${response.statusCode} is not documented for ${method} ${template} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})\n${quote(response.body)}`,
      });
    }
    const jsonSchema = documented.content?.['application/json']?.schema;
    if (jsonSchema === undefined) return;
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.startsWith('application/json')) {
      throw new AssertionError({ message: `${where}: documented as application/json, sent "${contentType}"\n${quote(response.body)}` });
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      throw new AssertionError({ message: `${where}: body is not JSON\n${quote(response.body)}` });
    }
    const validate = this.validatorFor(`${method} ${template} ${response.statusCode}`, jsonSchema);
    if (validate !== null && !validate(body)) {
      const problems = (validate.errors ?? []).map((e) => `  ${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
      throw new AssertionError({ message: `${where}: body does not match the OpenAPI document:\n${problems}\n${quote(response.body)}` });
    }
  }

  private validatorFor(key: string, schema: unknown): ValidateFunction | null {
    if (!this.compiled.has(key)) this.compiled.set(key, typeof schema === 'object' && schema !== null ? this.ajv.compile(this.withComponents(schema)) : null);
    return this.compiled.get(key)!;
  }

  /** The schema with the document's named schemas as its own $defs, its references pointing there. */
  private withComponents(schema: object): object {
    const toDefs = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));
    return { ...(toDefs(schema) as object), $defs: toDefs(this.document.components?.schemas ?? {}) };
  }
}

function quote(body: string): string {
  return `body: ${body.length > QUOTE_CHARS_MAX ? `${body.slice(0, QUOTE_CHARS_MAX)}...` : body}`;
}

interface InjectOptions {
  method?: string;
  url?: string | { pathname?: string };
  path?: string | { pathname?: string };
}

function urlOf(options: InjectOptions | string): string | undefined {
  if (typeof options === 'string') return options;
  const url = options.url ?? options.path;
  if (typeof url === 'string') return url;
  return url?.pathname;
}

/**
 * Makes app.inject check every response against the app's own document.
 * The chainable and callback forms of inject are left as they are.
 */
export function validateInjectedResponses(app: App, document: object = app.swagger()): ResponseValidator {
  const validator = new ResponseValidator(document as OpenApiDocument);
  const original = app.inject.bind(app) as (...args: unknown[]) => unknown;
  const checked = (...args: unknown[]): unknown => {
    const [options, callback] = args as [InjectOptions | string | undefined, unknown];
    if (options === undefined || callback !== undefined) return original(...args);
    return (original(options) as Promise<CheckedResponse>).then((response) => {
      const url = urlOf(options);
      const method = typeof options === 'string' ? 'GET' : (options.method ?? 'GET').toUpperCase();
      if (url !== undefined && method !== 'HEAD') validator.check(method, url, response);
      return response;
    });
  };
  (app as { inject: unknown }).inject = checked;
  return validator;
}
