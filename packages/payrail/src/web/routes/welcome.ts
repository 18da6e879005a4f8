// Pages reached from mailed one-time links, before any session: the
// credentials page of a merchant onboarded by e-mail, and "forgot password"
// (asking for a link, and setting the password with one). Expired, used or
// altered links get a clear page and change nothing.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { credentialsLinkState, revealCredentials } from '../../flows/onboarding/credentials-link.ts';
import { completePasswordReset, passwordLinkState, requestPasswordReset } from '../../flows/panel/password-reset.ts';
import { newToken, sameToken } from '../../flows/panel/sessions.ts';
import { acceptInvitation, invitationState } from '../../flows/panel/team.ts';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { keepLinksPrivate } from '../link-privacy.ts';
import { context, type CookieNames, cookieOptions, formField, pathParam, sendPage } from '../request.ts';
import { notice } from '../views/components.ts';
import { LINK_PROBLEM_STATUS, linkProblemBody } from '../views/link-problem.ts';
import { forgotBody, forgotSentBody, resetBody } from '../views/password.ts';
import { errorBody } from '../views/errors.ts';
import { invitationBody } from '../views/team.ts';
import { welcomeAskBody, welcomeSecretsBody } from '../views/welcome.ts';

const TO_SIGN_IN = { href: '/dashboard/login', label: 'Sign in' };
const TO_FORGOT = { href: '/dashboard/password/forgot', label: 'Ask for a new link' };

export function linkRoutes(service: Service, names: CookieNames): FastifyPluginAsync {
  const pageCtx = (request: FastifyRequest) => ({ ...context(service, request), user: null });

  function renderForgot(request: FastifyRequest, reply: FastifyReply, message: Html | null, status: number) {
    const csrfToken = newToken();
    void reply.setCookie(names.login, csrfToken, cookieOptions(names));
    return sendPage(reply, pageCtx(request), 'Forgot password', forgotBody({ csrfToken, message }), status);
  }

  return async (app) => {
    keepLinksPrivate(app, (url) => !url.startsWith('/dashboard/password/forgot'));
    app.get('/welcome/:token', async (request, reply) => {
      const token = pathParam(request, 'token');
      const problem = await credentialsLinkState(service, token);
      if (problem !== null) return sendPage(reply, pageCtx(request), 'Link not usable', linkProblemBody(problem, TO_SIGN_IN), LINK_PROBLEM_STATUS[problem]);
      return sendPage(reply, pageCtx(request), 'Your credentials', welcomeAskBody(token));
    });

    app.post('/welcome/:token', async (request, reply) => {
      const outcome = await revealCredentials(service, pathParam(request, 'token'), request.ip);
      if (!outcome.ok)
        return sendPage(reply, pageCtx(request), 'Link not usable', linkProblemBody(outcome.problem, TO_SIGN_IN), LINK_PROBLEM_STATUS[outcome.problem]);
      return sendPage(reply, pageCtx(request), 'Your credentials', welcomeSecretsBody(outcome.revealed));
    });

    app.get('/invitation/:token', async (request, reply) => {
      const token = pathParam(request, 'token');
      const state = await invitationState(service, token);
      if (!state.ok)
        return sendPage(reply, pageCtx(request), 'Link not usable', linkProblemBody(state.problem, TO_SIGN_IN), LINK_PROBLEM_STATUS[state.problem]);
      return sendPage(reply, pageCtx(request), 'Join the team', invitationBody({ token, email: state.email, role: state.role, message: null }));
    });

    app.post('/invitation/:token', async (request, reply) => {
      const token = pathParam(request, 'token');
      const outcome = await acceptInvitation(service, token, formField(request, 'password'), request.ip);
      if (outcome.ok) return reply.redirect('/dashboard/login?m=password_set', 303);
      if ('problem' in outcome)
        return sendPage(reply, pageCtx(request), 'Link not usable', linkProblemBody(outcome.problem, TO_SIGN_IN), LINK_PROBLEM_STATUS[outcome.problem]);
      if ('taken' in outcome)
        return sendPage(
          reply,
          pageCtx(request),
          'Join the team',
          errorBody('This address already has a panel account: sign in with it. Nothing was changed.', false),
          409,
        );
      const state = await invitationState(service, token);
      const again = state.ok ? state : { email: '', role: '' };
      return sendPage(
        reply,
        pageCtx(request),
        'Join the team',
        invitationBody({ token, email: again.email, role: again.role, message: notice('error', outcome.weak) }),
        400,
      );
    });

    app.get('/password/forgot', async (request, reply) => renderForgot(request, reply, null, 200));

    app.post('/password/forgot', async (request, reply) => {
      const expected = request.cookies[names.login] ?? '';
      if (expected === '' || !sameToken(formField(request, '_csrf'), expected)) {
        return renderForgot(request, reply, notice('info', 'The form expired. Send it again.'), 403);
      }
      await requestPasswordReset(service, formField(request, 'email'), request.ip);
      void reply.clearCookie(names.login, cookieOptions(names));
      return sendPage(reply, pageCtx(request), 'Check your inbox', forgotSentBody());
    });

    app.get('/password/reset/:token', async (request, reply) => {
      const token = pathParam(request, 'token');
      const state = await passwordLinkState(service, token);
      if (!state.ok) return sendPage(reply, pageCtx(request), 'Link not usable', linkProblemBody(state.problem, TO_FORGOT), LINK_PROBLEM_STATUS[state.problem]);
      return sendPage(reply, pageCtx(request), 'Set a new password', resetBody({ token, email: state.email, message: null }));
    });

    app.post('/password/reset/:token', async (request, reply) => {
      const token = pathParam(request, 'token');
      const outcome = await completePasswordReset(service, token, formField(request, 'password'), request.ip);
      if (outcome.ok) return reply.redirect('/dashboard/login?m=password_set', 303);
      if ('weak' in outcome) {
        const state = await passwordLinkState(service, token);
        const email = state.ok ? state.email : '';
        return sendPage(reply, pageCtx(request), 'Set a new password', resetBody({ token, email, message: notice('error', outcome.weak) }), 400);
      }
      return sendPage(reply, pageCtx(request), 'Link not usable', linkProblemBody(outcome.problem, TO_FORGOT), LINK_PROBLEM_STATUS[outcome.problem]);
    });
  };
}
