// What every server-rendered page family needs (the panel at /dashboard and
// the public sign-up pages at /signup): cookie and form parsing, security
// headers, no caching, and error pages in words. Registered inside each
// plugin only, so the JSON APIs are not affected.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { isApiError } from '../errors.ts';
import { PasswordBusyError } from '../flows/panel/passwords.ts';
import type { Service } from '../service.ts';
import { context, sendPage } from './request.ts';
import { errorBody } from './views/errors.ts';

/** Forms are small; anything bigger is refused before parsing. */
const FORM_BODY_LIMIT_BYTES = 16 * 1024;

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export async function registerPageBasics(app: FastifyInstance, service: Service): Promise<void> {
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT_BYTES });

  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    // Pages may hold balances or one-time secrets: never keep them in a cache.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setErrorHandler(async (error, request, reply) => {
    const ctx = context(service, request);
    if (isApiError(error)) {
      const title = error.status === 404 ? 'Not found' : error.status === 429 ? 'Too many requests' : 'Cannot do that';
      return sendPage(reply, ctx, title, errorBody(error.message, ctx.user !== null), error.status);
    }
    if (error instanceof PasswordBusyError) return sendPage(reply, ctx, 'Busy', errorBody(error.message, ctx.user !== null), 503);
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendPage(reply, ctx, 'Bad request', errorBody('The request could not be read. Reload the page and try again.', ctx.user !== null), status);
    }
    request.log.error({ err: error }, 'page error');
    return sendPage(reply, ctx, 'Something went wrong', errorBody('Something went wrong on our side. Please try again.', ctx.user !== null), 500);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const ctx = context(service, request);
    return sendPage(reply, ctx, 'Not found', errorBody('There is no such page.', false), 404);
  });
}
