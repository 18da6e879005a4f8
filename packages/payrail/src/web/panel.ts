// The control panel at /dashboard: server-rendered pages for operators and
// merchant users. Cookie and form parsing, the error pages and the security
// headers are registered inside this plugin only, so the JSON APIs are not
// affected. Routes are layered: public (sign-in, assets), then behind a
// session with CSRF checks on every POST (an operator without a second factor
// reaches only its enrolment page), then per role.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../errors.ts';
import { PasswordBusyError } from '../flows/panel/passwords.ts';
import { findSession, sameToken } from '../flows/panel/sessions.ts';
import type { PanelRole } from '../flows/panel/users.ts';
import type { Service } from '../service.ts';
import { assetRoutes } from './assets.ts';
import { context, cookieNames, sendPage, type CookieNames } from './request.ts';
import { accountRoutes, TWO_FACTOR_PATH } from './routes/account.ts';
import { auditRoutes } from './routes/audit.ts';
import { authRoutes, logoutRoute } from './routes/auth.ts';
import { batchRoutes } from './routes/batches.ts';
import { chargeActionRoutes } from './routes/charge-actions.ts';
import { credentialRoutes } from './routes/credentials.ts';
import { kycRoutes } from './routes/kyc.ts';
import { merchantRoutes } from './routes/merchant.ts';
import { operatorRoutes } from './routes/operator.ts';
import { reconciliationRoutes } from './routes/reconciliation.ts';
import { webhookRoutes } from './routes/webhooks.ts';
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

export function panelRoutes(service: Service): FastifyPluginAsync {
  const names = cookieNames(service.config);
  return async (app) => {
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
      if (isApiError(error))
        return sendPage(reply, ctx, error.status === 404 ? 'Not found' : 'Cannot do that', errorBody(error.message, ctx.user !== null), error.status);
      if (error instanceof PasswordBusyError) return sendPage(reply, ctx, 'Busy', errorBody(error.message, ctx.user !== null), 503);
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== undefined && status >= 400 && status < 500) {
        return sendPage(reply, ctx, 'Bad request', errorBody('The request could not be read. Reload the page and try again.', ctx.user !== null), status);
      }
      request.log.error({ err: error }, 'panel error');
      return sendPage(reply, ctx, 'Something went wrong', errorBody('Something went wrong on our side. Please try again.', ctx.user !== null), 500);
    });

    app.setNotFoundHandler(async (request, reply) => {
      const ctx = context(service, request);
      return sendPage(reply, ctx, 'Not found', errorBody('There is no such page.', false), 404);
    });

    await app.register(assetRoutes());
    await app.register(authRoutes(service, names));
    await app.register(async (signedIn) => {
      signedIn.addHook('preHandler', sessionHook(service, names));
      await signedIn.register(logoutRoute(service, names));
      await signedIn.register(accountRoutes(service, names));
      signedIn.get('/', async (request, reply) => {
        const role = request.panelUser!.role;
        return reply.redirect(role === 'operator' ? '/dashboard/operator/merchants' : '/dashboard/overview', 303);
      });
      await signedIn.register(async (merchant) => {
        merchant.addHook('preHandler', roleHook(service, 'merchant'));
        await merchant.register(merchantRoutes(service));
        await merchant.register(credentialRoutes(service));
        await merchant.register(chargeActionRoutes(service));
        await merchant.register(kycRoutes(service));
        await merchant.register(webhookRoutes(service));
      });
      await signedIn.register(async (operator) => {
        operator.addHook('preHandler', roleHook(service, 'operator'));
        await operator.register(operatorRoutes(service));
        await operator.register(reconciliationRoutes(service));
        await operator.register(batchRoutes(service));
        await operator.register(auditRoutes(service));
      });
    });
  };
}

/**
 * Resolves the session cookie to a user; without one, pages redirect to the
 * sign-in form and form posts are refused. A POST must carry the session's
 * CSRF token: SameSite=Lax already keeps cross-site posts from carrying the
 * cookie, and the token covers browsers or setups where it does not.
 */
function sessionHook(service: Service, names: CookieNames) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await findSession(service, request.cookies[names.session]);
    if (user === null) {
      if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect('/dashboard/login?m=expired', 303);
      return sendPage(reply, context(service, request), 'Signed out', errorBody('Your session has ended. Sign in again, then repeat the action.', false), 401);
    }
    request.panelUser = user;
    // PCI DSS 8.4: operators sign in with a second factor; until they have one, only its enrolment page (and sign-out) answers.
    const path = request.url.split('?')[0]!;
    if (user.mustEnrolTotp && path !== TWO_FACTOR_PATH && path !== '/dashboard/logout') {
      if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect(TWO_FACTOR_PATH, 303);
      return sendPage(reply, context(service, request), 'Two-factor sign-in needed', errorBody('Set up two-factor sign-in first.', true), 403);
    }
    if (request.method === 'POST') {
      const body = request.body as Record<string, unknown> | null | undefined;
      const given = typeof body?._csrf === 'string' ? body._csrf : '';
      if (!sameToken(given, user.csrfToken)) {
        return sendPage(
          reply,
          context(service, request),
          'Form expired',
          errorBody('This form has expired or did not come from this site. Reload the page and try again.', true),
          403,
        );
      }
    }
    return undefined;
  };
}

function roleHook(service: Service, role: PanelRole) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.panelUser?.role === role) return undefined;
    const message =
      role === 'operator' ? 'This page is for the operator only.' : 'This page is for merchant users; operators manage merchants from the Merchants page.';
    return sendPage(reply, context(service, request), 'Not allowed', errorBody(message, true), 403);
  };
}
