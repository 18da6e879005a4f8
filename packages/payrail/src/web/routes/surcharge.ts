// The signed-in merchant's surcharge settings: every role reads them, an
// admin changes them (domain/panel-permissions.ts refuses other roles'
// posts), through the same audited flow as `payrail merchant surcharge`.
import type { FastifyPluginAsync } from 'fastify';
import { changeSurcharges, surchargeSettingFrom, surchargesOf } from '../../flows/merchants/surcharges.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, merchantOf, noticeFromQuery, sendPage, userOf } from '../request.ts';
import { surchargeBody } from '../views/surcharge.ts';

export function surchargeRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/surcharge', async (request, reply) => {
      const user = userOf(request);
      const settings = await surchargesOf(service, merchantOf(request));
      const body = surchargeBody({ csrf: user.csrfToken, settings, mayEdit: user.merchantRole === 'admin', notice: noticeFromQuery(request) });
      return sendPage(reply, context(service, request), 'Surcharge', body);
    });

    app.post('/surcharge', async (request, reply) => {
      const changes = {
        card: surchargeSettingFrom('card', formField(request, 'card_type'), formField(request, 'card_value')),
        check: surchargeSettingFrom('check', formField(request, 'check_type'), formField(request, 'check_value')),
      };
      await changeSurcharges(service, { merchantId: merchantOf(request), changes }, actorOf(request));
      return reply.redirect('/dashboard/surcharge?notice=surcharge_saved', 303);
    });
  };
}
