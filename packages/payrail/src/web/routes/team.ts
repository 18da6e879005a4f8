// The team page of a merchant: its users and invitations by e-mail. The
// merchant role hook (web/panel.ts) lets only admins reach it.
import type { FastifyPluginAsync } from 'fastify';
import { inviteTeamMember, teamOf } from '../../flows/panel/team.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, merchantOf, noticeFromQuery, sendPage, userOf } from '../request.ts';
import { teamBody } from '../views/team.ts';

export function teamRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/team', async (request, reply) => {
      const users = await teamOf(service, merchantOf(request));
      return sendPage(reply, context(service, request), 'Team', teamBody({ csrf: userOf(request).csrfToken, users, notice: noticeFromQuery(request) }));
    });

    app.post('/team/invite', async (request, reply) => {
      await inviteTeamMember(
        service,
        { merchantId: merchantOf(request), email: formField(request, 'email'), role: formField(request, 'role') },
        actorOf(request),
      );
      return reply.redirect('/dashboard/team?notice=invited', 303);
    });
  };
}
