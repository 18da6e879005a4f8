// The team page of a merchant: its users, their roles and pending
// invitations; invitations by e-mail, revoked, roles changed and members
// removed. The merchant role hook (web/panel.ts) lets only admins reach it.
import type { FastifyPluginAsync } from 'fastify';
import { changeTeamMemberBy, inviteTeamMember, memberRole, pendingInvitationsOf, revokeTeamInvitation, teamOf } from '../../flows/panel/team.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, merchantOf, noticeFromQuery, pathParam, sendPage, userOf } from '../request.ts';
import { teamBody } from '../views/team.ts';

export function teamRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/team', async (request, reply) => {
      const merchantId = merchantOf(request);
      const [users, invitations] = await Promise.all([teamOf(service, merchantId), pendingInvitationsOf(service, merchantId)]);
      const self = userOf(request);
      const body = teamBody({ csrf: self.csrfToken, selfId: self.userId, users, invitations, notice: noticeFromQuery(request) });
      return sendPage(reply, context(service, request), 'Team', body);
    });

    app.post('/team/invite', async (request, reply) => {
      await inviteTeamMember(
        service,
        { merchantId: merchantOf(request), email: formField(request, 'email'), role: formField(request, 'role') },
        actorOf(request),
      );
      return reply.redirect('/dashboard/team?notice=invited', 303);
    });

    app.post('/team/invitations/:id/revoke', async (request, reply) => {
      await revokeTeamInvitation(service, { merchantId: merchantOf(request), invitationId: pathParam(request, 'id') }, actorOf(request));
      return reply.redirect('/dashboard/team?notice=invitation_revoked', 303);
    });

    app.post('/team/members/:id/role', async (request, reply) => {
      const change = { kind: 'role', role: memberRole(formField(request, 'role')) } as const;
      await changeTeamMemberBy(service, { merchantId: merchantOf(request), userId: pathParam(request, 'id'), change }, actorOf(request));
      return reply.redirect('/dashboard/team?notice=role_changed', 303);
    });

    app.post('/team/members/:id/remove', async (request, reply) => {
      const change = { kind: 'remove' } as const;
      await changeTeamMemberBy(service, { merchantId: merchantOf(request), userId: pathParam(request, 'id'), change }, actorOf(request));
      return reply.redirect('/dashboard/team?notice=member_removed', 303);
    });
  };
}
