// The public sandbox sign-up pages at /signup (sandbox deployments only; in
// production the routes do not exist and the operator onboards merchants).
// The form is protected against cross-site submission by a double-submit
// token, like the sign-in form; the confirmation link's token is its own
// authority. Floods from one client address get 429 (flows/onboarding/signup.ts).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { confirmSignup, submitSignup } from '../flows/onboarding/signup.ts';
import { newToken, sameToken } from '../flows/panel/sessions.ts';
import type { Service } from '../service.ts';
import type { SignupForm, SignupProblems } from '../domain/signup-form.ts';
import { keepLinksPrivate } from './link-privacy.ts';
import { registerPageBasics } from './page-basics.ts';
import { context, cookieNames, cookieOptions, formField, pathParam, sendPage } from './request.ts';
import { LINK_PROBLEM_STATUS, linkProblemBody } from './views/link-problem.ts';
import { confirmAskBody, confirmedBody, signupFormBody, signupSentBody } from './views/signup.ts';

const EMPTY: SignupForm = { name: '', company: '', email: '', corridors: '' };
const BACK = { href: '/signup', label: 'Back to sign-up' };

export function signupPages(service: Service): FastifyPluginAsync {
  const names = cookieNames(service.config);

  function renderForm(request: FastifyRequest, reply: FastifyReply, form: SignupForm, problems: SignupProblems, status: number, message?: string) {
    const csrfToken = newToken();
    void reply.setCookie(names.login, csrfToken, cookieOptions(names));
    const body = signupFormBody({ csrfToken, form, problems, ...(message === undefined ? {} : { message }) });
    return sendPage(reply, context(service, request), 'Sandbox access', body, status);
  }

  return async (app) => {
    await registerPageBasics(app, service);
    keepLinksPrivate(app, (url) => url.startsWith('/signup/confirm/'));

    app.get('', async (request, reply) => renderForm(request, reply, EMPTY, {}, 200));

    app.post('', async (request, reply) => {
      const form: SignupForm = {
        name: formField(request, 'name'),
        company: formField(request, 'company'),
        email: formField(request, 'email'),
        corridors: formField(request, 'corridors'),
      };
      const expected = request.cookies[names.login] ?? '';
      if (expected === '' || !sameToken(formField(request, '_csrf'), expected)) {
        return renderForm(request, reply, form, {}, 403, 'This form has expired or did not come from this site. Send it again.');
      }
      const outcome = await submitSignup(service, form, request.ip);
      if (!outcome.ok) return renderForm(request, reply, outcome.form, outcome.problems, 400);
      void reply.clearCookie(names.login, cookieOptions(names));
      return sendPage(reply, context(service, request), 'Check your inbox', signupSentBody());
    });

    app.get('/confirm/:token', async (request, reply) => {
      return sendPage(reply, context(service, request), 'Confirm your address', confirmAskBody(pathParam(request, 'token')));
    });

    app.post('/confirm/:token', async (request, reply) => {
      const outcome = await confirmSignup(service, pathParam(request, 'token'), request.ip);
      if (!outcome.ok)
        return sendPage(reply, context(service, request), 'Link not usable', linkProblemBody(outcome.problem, BACK), LINK_PROBLEM_STATUS[outcome.problem]);
      return sendPage(reply, context(service, request), 'Address confirmed', confirmedBody(outcome.approved));
    });
  };
}
