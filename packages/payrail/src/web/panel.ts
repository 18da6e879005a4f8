// The control panel at /dashboard: server-rendered pages for operators and
// merchant users. Cookie and form parsing, the error pages and the security
// headers are registered inside this plugin only, so the JSON APIs are not
// affected. Routes are layered: public (sign-in, assets), then behind a
// session with CSRF checks on every POST (an operator without a second factor
// reaches only its enrolment page), then per role.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { findSession, sameToken } from '../flows/panel/sessions.ts';
import type { PanelRole } from '../flows/panel/users.ts';
import { merchantRoleMay } from '../domain/panel-permissions.ts';
import type { Service } from '../service.ts';
import { assetRoutes } from './assets.ts';
import { context, cookieNames, matchedRoute, sendPage, type CookieNames } from './request.ts';
import { accountRoutes, TWO_FACTOR_PATH } from './routes/account.ts';
import { auditRoutes } from './routes/audit.ts';
import { authRoutes, logoutRoute } from './routes/auth.ts';
import { linkRoutes } from './routes/welcome.ts';
import { batchRoutes } from './routes/batches.ts';
import { chargeActionRoutes } from './routes/charge-actions.ts';
import { credentialRoutes } from './routes/credentials.ts';
import { customerPanelRoutes } from './routes/customers.ts';
import { kycRoutes } from './routes/kyc.ts';
import { teamRoutes } from './routes/team.ts';
import { merchantRoutes } from './routes/merchant.ts';
import { operatorRoutes } from './routes/operator.ts';
import { processorDifferenceRoutes } from './routes/processor-differences.ts';
import { onboardingRoutes } from './routes/operator-onboarding.ts';
import { reconciliationRoutes } from './routes/reconciliation.ts';
import { reversalRoutes } from './routes/reversals.ts';
import { surchargeRoutes } from './routes/surcharge.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { errorBody } from './views/errors.ts';
import { registerPageBasics } from './page-basics.ts';

export function panelRoutes(service: Service): FastifyPluginAsync {
  const names = cookieNames(service.config);
  return async (app) => {
    await registerPageBasics(app, service);
    await app.register(assetRoutes());
    await app.register(authRoutes(service, names));
    await app.register(linkRoutes(service, names));
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
        merchant.addHook('preHandler', merchantRoleHook(service));
        await merchant.register(merchantRoutes(service));
        await merchant.register(credentialRoutes(service));
        await merchant.register(chargeActionRoutes(service));
        await merchant.register(kycRoutes(service));
        await merchant.register(customerPanelRoutes(service));
        await merchant.register(teamRoutes(service));
        await merchant.register(webhookRoutes(service));
        await merchant.register(surchargeRoutes(service));
      });
      await signedIn.register(async (operator) => {
        operator.addHook('preHandler', roleHook(service, 'operator'));
        await operator.register(operatorRoutes(service));
        await operator.register(reconciliationRoutes(service));
        await operator.register(batchRoutes(service));
        await operator.register(processorDifferenceRoutes(service));
        await operator.register(reversalRoutes(service));
        await operator.register(auditRoutes(service));
        await operator.register(onboardingRoutes(service));
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
    const presented = request.cookies[names.session];
    const user = await findSession(service, presented);
    if (user === null) {
      // "Your session has ended" only for a browser that had one; a first visit just signs in.
      const login = presented === undefined || presented === '' ? '/dashboard/login' : '/dashboard/login?m=expired';
      if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect(login, 303);
      return sendPage(reply, context(service, request), 'Signed out', errorBody('Your session has ended. Sign in again, then repeat the action.', false), 401);
    }
    request.panelUser = user;
    // PCI DSS 8.4: operators sign in with a second factor; until they have one, only its enrolment page (and sign-out) answers.
    const route = matchedRoute(request);
    if (user.mustEnrolTotp && route !== TWO_FACTOR_PATH && route !== '/dashboard/logout') {
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

/** Merchant users act within their role (domain/panel-permissions.ts): a viewer reads, a developer also manages keys. */
function merchantRoleHook(service: Service) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const role = request.panelUser?.merchantRole ?? 'viewer';
    // The matched route, never the raw URL (see matchedRoute); no route matched: refused.
    const route = matchedRoute(request);
    if (route !== null && merchantRoleMay(role, request.method, route)) return undefined;
    const message = `Your role (${role}) does not allow this. Ask an admin of your merchant.`;
    return sendPage(reply, context(service, request), 'Not allowed', errorBody(message, true), 403);
  };
}
