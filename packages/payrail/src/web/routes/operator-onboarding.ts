// Operator pages of onboarding by e-mail: the sign-up queue (approve,
// reject) and the mail outbox.
import type { FastifyPluginAsync } from 'fastify';
import { mailList } from '../../flows/mail/outbox.ts';
import { approveSignup, listSignups, rejectSignup } from '../../flows/onboarding/signup.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, noticeFromQuery, pathParam, sendPage, userOf } from '../request.ts';
import { mailBody, signupsBody } from '../views/operator-onboarding.ts';

const MAIL_SHOWN_MAX = 100;

export function onboardingRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/operator/signups', async (request, reply) => {
      const rows = await listSignups(service, null);
      const body = signupsBody({ csrf: userOf(request).csrfToken, rows, autoApprove: service.config.signupAutoApprove, notice: noticeFromQuery(request) });
      return sendPage(reply, context(service, request), 'Sign-ups', body);
    });

    app.post('/operator/signups/:id/approve', async (request, reply) => {
      await approveSignup(service, pathParam(request, 'id'), actorOf(request));
      return reply.redirect('/dashboard/operator/signups?notice=signup_approved', 303);
    });

    app.post('/operator/signups/:id/reject', async (request, reply) => {
      await rejectSignup(service, pathParam(request, 'id'), actorOf(request));
      return reply.redirect('/dashboard/operator/signups?notice=signup_rejected', 303);
    });

    app.get('/operator/mail', async (request, reply) => {
      const rows = await mailList(service, { to: null }, MAIL_SHOWN_MAX);
      return sendPage(reply, context(service, request), 'Mail', mailBody({ rows, smtp: service.config.smtpUrl !== null }));
    });
  };
}
