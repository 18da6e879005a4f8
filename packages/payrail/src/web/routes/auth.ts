// Sign-in and sign-out. The sign-in form is protected against cross-site
// submission by a double-submit token (a random value in a cookie and in the
// form); every form after sign-in carries the session's CSRF token instead.
// A user with a second factor gets, after the right password, a session that
// can only post its code to /login/code (the code step has its own route
// here, before the session hook, since that session is not signed in yet).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { completeSignIn, login } from '../../flows/panel/login.ts';
import { PasswordBusyError } from '../../flows/panel/passwords.ts';
import { endSession, findPendingSession, findSession, newToken, sameToken } from '../../flows/panel/sessions.ts';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { actorOf, context, cookieOptions, formField, queryField, sendPage, type CookieNames } from '../request.ts';
import { loginBody, loginMessage } from '../views/login.ts';
import { codeStepBody } from '../views/two-factor.ts';

export function authRoutes(service: Service, names: CookieNames): FastifyPluginAsync {
  function renderLogin(request: FastifyRequest, reply: FastifyReply, email: string, message: Html | null, status: number): FastifyReply {
    const csrfToken = newToken();
    void reply.setCookie(names.login, csrfToken, cookieOptions(names));
    return sendPage(
      reply,
      { ...context(service, request), user: null },
      'Sign in',
      loginBody({ csrfToken, email, message, sandbox: service.config.environment === 'sandbox' }),
      status,
    );
  }

  return async (app) => {
    app.get('/login', async (request, reply) => {
      if ((await findSession(service, request.cookies[names.session])) !== null) return reply.redirect('/dashboard', 303);
      const m = queryField(request, 'm');
      const message = m === 'signed_out' || m === 'expired' || m === 'password_set' ? loginMessage(m) : null;
      return renderLogin(request, reply, '', message, 200);
    });

    app.post('/login', async (request, reply) => {
      const email = formField(request, 'email');
      const expected = request.cookies[names.login] ?? '';
      if (expected === '' || !sameToken(formField(request, '_csrf'), expected)) {
        return renderLogin(request, reply, email, loginMessage('expired'), 403);
      }
      let outcome: Awaited<ReturnType<typeof login>>;
      try {
        outcome = await login(service, { email, password: formField(request, 'password'), address: request.ip });
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
      return reply.redirect(outcome.next === 'code' ? '/dashboard/login/code' : '/dashboard', 303);
    });

    app.get('/login/code', async (request, reply) => {
      const pending = await findPendingSession(service, request.cookies[names.session]);
      if (pending === null) return reply.redirect('/dashboard/login?m=expired', 303);
      return sendPage(reply, { ...context(service, request), user: null }, 'Two-factor sign-in', codeStepBody({ csrf: pending.csrfToken, message: null }));
    });

    app.post('/login/code', async (request, reply) => {
      const token = request.cookies[names.session];
      const pending = await findPendingSession(service, token);
      if (pending === null) return reply.redirect('/dashboard/login?m=expired', 303);
      const ctx = { ...context(service, request), user: null };
      if (!sameToken(formField(request, '_csrf'), pending.csrfToken)) {
        return sendPage(reply, ctx, 'Two-factor sign-in', codeStepBody({ csrf: pending.csrfToken, message: loginMessage('expired') }), 403);
      }
      const outcome = await completeSignIn(service, { token, code: formField(request, 'code'), address: request.ip });
      if (outcome.ok) return reply.redirect('/dashboard', 303);
      if (outcome.reason === 'expired') return reply.redirect('/dashboard/login?m=expired', 303);
      const message = outcome.reason === 'locked' ? loginMessage('locked', outcome.lockedForMs) : loginMessage('wrong_code');
      return sendPage(reply, ctx, 'Two-factor sign-in', codeStepBody({ csrf: pending.csrfToken, message }), outcome.reason === 'locked' ? 429 : 401);
    });
  };
}

/** Sign-out lives behind the session hook, so it needs the session's CSRF token. */
export function logoutRoute(service: Service, names: CookieNames): FastifyPluginAsync {
  return async (app) => {
    app.post('/logout', async (request, reply) => {
      const token = request.cookies[names.session];
      if (token !== undefined) await endSession(service, token, actorOf(request));
      void reply.clearCookie(names.session, cookieOptions(names));
      return reply.redirect('/dashboard/login?m=signed_out', 303);
    });
  };
}
