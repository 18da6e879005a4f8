// Webhook endpoints of the signed-in merchant (docs/api-decisions.md section
// 11), through the same flows as the API and the CLI. A new signing secret is
// rendered in the answer to the POST that made it and never again; making
// one needs a password check from the last 5 minutes, like credentials.
import type { FastifyPluginAsync } from 'fastify';
import { parseReferenceNumber } from '../../domain/references.ts';
import type { EventType } from '../../domain/webhooks.ts';
import { fail } from '../../errors.ts';
import { deliveriesOf, resendDelivery } from '../../flows/webhooks/deliveries.ts';
import { changeEndpoint, createEndpoint, endpointListWithFormats, removeEndpoint, rotateEndpointSecret } from '../../flows/webhooks/endpoints.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, merchantOf, noticeFromQuery, pathParam, sendPage, userOf } from '../request.ts';
import { webhookSecretBody, webhooksBody } from '../views/webhooks.ts';
import { requireRecentAuth } from './account.ts';

const HOME = '/dashboard/webhooks';

export function webhookRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/webhooks', async (request, reply) => {
      const merchantId = merchantOf(request);
      const endpoints = await endpointListWithFormats(service, merchantId);
      const withDeliveries = await Promise.all(
        endpoints.map(async ({ endpoint, acceptBlue }) => ({ endpoint, acceptBlue, deliveries: await deliveriesOf(service, merchantId, endpoint.id) })),
      );
      const body = webhooksBody({
        csrf: userOf(request).csrfToken,
        endpoints: withDeliveries,
        sandbox: service.config.environment === 'sandbox',
        notice: noticeFromQuery(request),
      });
      return sendPage(reply, context(service, request), 'Webhooks', body);
    });

    app.post('/webhooks', async (request, reply) => {
      const ask = requireRecentAuth(service, request, reply, HOME);
      if (ask !== null) return ask;
      const types = formField(request, 'events')
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '') as EventType[];
      const created = await createEndpoint(service, merchantOf(request), { url: formField(request, 'url').trim(), events: types }, actorOf(request));
      return sendPage(reply, context(service, request), 'New webhook endpoint', webhookSecretBody(created, 'created'));
    });

    app.post('/webhooks/:id/rotate', async (request, reply) => {
      const ask = requireRecentAuth(service, request, reply, HOME);
      if (ask !== null) return ask;
      const rotated = await rotateEndpointSecret(service, merchantOf(request), pathParam(request, 'id'), actorOf(request));
      return sendPage(reply, context(service, request), 'New signing secret', webhookSecretBody(rotated, 'rotated'));
    });

    for (const [path, enabled] of [
      ['enable', true],
      ['disable', false],
    ] as const) {
      app.post(`/webhooks/:id/${path}`, async (request, reply) => {
        await changeEndpoint(service, merchantOf(request), pathParam(request, 'id'), { enabled }, actorOf(request));
        return reply.redirect(`${HOME}?notice=webhook_${path}d`, 303);
      });
    }

    app.post('/webhooks/:id/delete', async (request, reply) => {
      await removeEndpoint(service, merchantOf(request), pathParam(request, 'id'), actorOf(request));
      return reply.redirect(`${HOME}?notice=webhook_deleted`, 303);
    });

    app.post('/webhooks/deliveries/:pk/resend', async (request, reply) => {
      const pk = parseReferenceNumber(pathParam(request, 'pk'));
      if (pk === null) fail('not_found', 'delivery not found');
      await resendDelivery(service, merchantOf(request), pk);
      return reply.redirect(`${HOME}?notice=webhook_resent`, 303);
    });
  };
}
