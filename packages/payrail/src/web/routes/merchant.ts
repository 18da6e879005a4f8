// Merchant pages: the overview, and the merchant's own charges and
// transfers (routes/records.ts). Every query is scoped to the signed-in
// user's merchant; another merchant's reference reads as unknown.
import type { FastifyPluginAsync } from 'fastify';
import { merchantOverview } from '../../flows/panel/merchant-views.ts';
import type { Service } from '../../service.ts';
import { context, merchantOf, sendPage } from '../request.ts';
import { MERCHANT_VIEW } from '../views/components.ts';
import { overviewBody } from '../views/overview.ts';
import { recordRoutes } from './records.ts';

export function merchantRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/overview', async (request, reply) => {
      const { summary, days } = await merchantOverview(service, merchantOf(request));
      return sendPage(reply, context(service, request), 'Overview', overviewBody(summary, days));
    });

    await app.register(recordRoutes(service, { prefix: '', merchantOf: async (request) => merchantOf(request), viewOf: () => MERCHANT_VIEW }));
  };
}
