// Sign-in and sign-out. The sign-in form is protected against cross-site
// submission by a double-submit token (a random value in a cookie and in the
// form); every form after sign-in carries the session's CSRF token instead.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { login } from '../login.ts';
import { PasswordBusyError } from '../passwords.ts';
import { context, cookieOptions, formField, queryField, sendPage, type CookieNames } from '../request.ts';
import { endSession, findSession, newToken, sameToken } from '../sessions.ts';
import { loginBody, loginMessage } from '../views/login.ts';

export function authRoutes(service: Service, names: CookieNames): FastifyPluginAsync {
  const deps = { db: service.db, clock: service.clock };

  function renderLogin(request: FastifyRequest, reply: FastifyReply, email: string, message: Html | null, status: number): FastifyReply {
    const csrfToken = newToken();
    void reply.setCookie(names.login, csrfToken, cookieOptions(names));
    return sendPage(reply, { ...context(service, request), user: null }, 'Sign in', loginBody({ csrfToken, email, message }), status);
  }

  return async (app) => {
    app.get('/login', async (request, reply) => {
      if ((await findSession(service.db, request.cookies[names.session], service.clock.nowMs())) !== null) return reply.redirect('/dashboard', 303);
      const m = queryField(request, 'm');
      const message = m === 'signed_out' ? loginMessage('signed_out') : m === 'expired' ? loginMessage('expired') : null;
      return renderLogin(request, reply, '', message, 200);
    });

    app.post('/login', async (request, reply) => {
      const email = formField(request, 'email');
      const expected = request.cookies[names.login] ?? '';
      if (expected === '' || !sameToken(formField(request, '_csrf'), expected)) {
        return renderLogin(request, reply, email, loginMessage('expired'), 403);
      }
      let outcome;
      try {
        outcome = await login(deps, { email, password: formField(request, 'password') });
      } catch (error) {
        if (error instanceof PasswordBusyError) return renderLogin(request, reply, email, loginMessage('busy'), 503);
        throw error;
      }
      if (!outcome.ok) {
        if (outcome.reason === 'locked') return renderLogin(request, reply, email, loginMessage('locked', outcome.lockedForMs), 429);
        return renderLogin(request, reply, email, loginMessage('invalid'), 401);
      }
      void reply.clearCookie(names.login, cookieOptions(names));
      void reply.setCookie(names.session, outcome.token, cookieOptions(names));
      return reply.redirect('/dashboard', 303);
    });
  };
}

/** Sign-out lives behind the session hook, so it needs the session's CSRF token. */
export function logoutRoute(service: Service, names: CookieNames): FastifyPluginAsync {
  return async (app) => {
    app.post('/logout', async (request, reply) => {
      const token = request.cookies[names.session];
      if (token !== undefined) await endSession(service.db, token);
      void reply.clearCookie(names.session, cookieOptions(names));
      return reply.redirect('/dashboard/login?m=signed_out', 303);
    });
  };
}
