// Webhook endpoints and events on the API (docs/api-decisions.md sections 11
// and 14): /api/v2/webhooks (create, list, read, update, delete, rotate the
// secret) and /api/v2/events (list, read, re-send). The same paths take
// accept.blue's webhooks (behaviour section 16): a body with webhook_url
// makes one, an integer id names one, and they read in accept.blue's shape. Either of the merchant's
// API credentials; everything is scoped to the caller's merchant; refusals
// in the payin API's envelope (shape C).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiActorOf } from '../api-actor.ts';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import {
  acceptBlueNumberOf,
  acceptBlueWebhookOf,
  changeWebhook,
  createAcceptBlueWebhook,
  removeAcceptBlueWebhook,
  webhookList,
} from '../../flows/webhooks/acceptblue-endpoints.ts';
import { createEndpoint, endpointOf, removeEndpoint, rotateEndpointSecret } from '../../flows/webhooks/endpoints.ts';
import { eventListJson, eventOfJson, resendEvent } from '../../flows/webhooks/events.ts';
import type { Service } from '../../service.ts';
import { merchantAuth } from '../auth-hooks.ts';
import { acceptBlueRequests } from '../dialect-requests.ts';
import { PAYIN_REFUSALS } from '../schemas/payin.ts';
import {
  AcceptBlueWebhook,
  EndpointDeleted,
  EndpointList,
  EndpointParams,
  EndpointWithSecret,
  ListedWebhook,
  WebhookChange,
  WebhookCreate,
  Event,
  EventList,
  EventListQuery,
  NoQuery,
  EventParams,
  EventResent,
} from '../schemas/webhooks.ts';

const REFUSALS = PAYIN_REFUSALS;

function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(json);
}

export function webhookRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const onRequest = merchantAuth(service);
    const merchantOf = (request: { principal?: { merchantId: string } }): string => request.principal!.merchantId;
    const actorOf = apiActorOf;

    app.post(
      '/api/v2/webhooks',
      {
        schema: {
          operationId: 'createWebhookEndpoint',
          errors: ['duplicate_webhook'],
          summary:
            "Create a webhook endpoint: Payrail's {url, events} (200; the signing secret is shown once) or accept.blue's {webhook_url, description, active} (201)",
          body: WebhookCreate,
          response: { 200: EndpointWithSecret, 201: AcceptBlueWebhook, ...REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(WebhookCreate),
      },
      async (request, reply) => {
        const body = request.body;
        if (!('webhook_url' in body)) return createEndpoint(service, merchantOf(request), body, actorOf(request));
        return reply.code(201).send(await createAcceptBlueWebhook(service, merchantOf(request), body, actorOf(request)));
      },
    );
    app.get(
      '/api/v2/webhooks',
      {
        schema: {
          operationId: 'listWebhookEndpoints',
          errors: [],
          summary: "List the merchant's webhook endpoints, each in its own shape (accept.blue webhooks with their signature)",
          querystring: NoQuery,
          response: { 200: EndpointList, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => webhookList(service, merchantOf(request)),
    );
    app.get(
      '/api/v2/webhooks/:id',
      {
        schema: {
          operationId: 'getWebhookEndpoint',
          errors: ['not_found'],
          summary: 'Read a webhook endpoint (we_...) or an accept.blue webhook (its integer id)',
          params: EndpointParams,
          response: { 200: ListedWebhook, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => {
        const number = acceptBlueNumberOf(request.params.id);
        if (number !== null) return acceptBlueWebhookOf(service, merchantOf(request), number);
        return endpointOf(service, merchantOf(request), request.params.id);
      },
    );
    app.patch(
      '/api/v2/webhooks/:id',
      {
        schema: {
          operationId: 'updateWebhookEndpoint',
          errors: ['not_found', 'duplicate_webhook'],
          summary: "Change a webhook endpoint's URL, event types or enabled flag, or an accept.blue webhook's webhook_url, description or active flag",
          params: EndpointParams,
          body: WebhookChange,
          response: { 200: ListedWebhook, ...REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(WebhookChange),
      },
      async (request) => changeWebhook(service, merchantOf(request), request.params.id, request.body, actorOf(request)),
    );
    app.delete(
      '/api/v2/webhooks/:id',
      {
        schema: {
          operationId: 'deleteWebhookEndpoint',
          errors: ['not_found'],
          summary: 'Delete a webhook endpoint and its deliveries (an accept.blue webhook answers 204, as accept.blue does)',
          params: EndpointParams,
          response: { 200: EndpointDeleted, 204: Type.Null({ description: 'An accept.blue webhook was deleted' }), ...REFUSALS },
        },
        onRequest,
      },
      async (request, reply) => {
        const number = acceptBlueNumberOf(request.params.id);
        if (number === null) return removeEndpoint(service, merchantOf(request), request.params.id, actorOf(request));
        await removeAcceptBlueWebhook(service, merchantOf(request), number, actorOf(request));
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/api/v2/webhooks/:id/rotate',
      {
        schema: {
          operationId: 'rotateWebhookSecret',
          errors: ['not_found'],
          summary: 'Replace the signing secret (the new one is shown once)',
          params: EndpointParams,
          response: { 200: EndpointWithSecret, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => rotateEndpointSecret(service, merchantOf(request), request.params.id, actorOf(request)),
    );

    app.get(
      '/api/v2/events',
      {
        schema: {
          operationId: 'listEvents',
          errors: [],
          summary: "List the merchant's events, newest first",
          querystring: EventListQuery,
          response: { 200: EventList, ...REFUSALS },
        },
        onRequest,
      },
      async (request, reply) => sendJson(reply, await eventListJson(service, merchantOf(request), request.query)),
    );
    app.get(
      '/api/v2/events/:id',
      {
        schema: { operationId: 'getEvent', errors: ['not_found'], summary: 'Read an event', params: EventParams, response: { 200: Event, ...REFUSALS } },
        onRequest,
      },
      async (request, reply) => sendJson(reply, await eventOfJson(service, merchantOf(request), request.params.id)),
    );
    app.post(
      '/api/v2/events/:id/resend',
      {
        schema: {
          operationId: 'resendEvent',
          errors: ['not_found'],
          summary: 'Send an event again to every enabled endpoint subscribed to its type',
          params: EventParams,
          response: { 200: EventResent, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => resendEvent(service, merchantOf(request), request.params.id),
    );
  };
}
