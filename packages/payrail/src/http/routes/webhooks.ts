// Webhook endpoints and events on the API (docs/api-decisions.md sections 11
// and 14): /api/v2/webhooks (create, list, read, update, delete, rotate the
// secret) and /api/v2/events (list, read, re-send). Either of the merchant's
// API credentials; everything is scoped to the caller's merchant; refusals
// in the payin API's envelope (shape C).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { changeEndpoint, createEndpoint, endpointList, endpointOf, removeEndpoint, rotateEndpointSecret } from '../../flows/webhooks/endpoints.ts';
import { eventListJson, eventOfJson, resendEvent } from '../../flows/webhooks/events.ts';
import type { Service } from '../../service.ts';
import { merchantAuth } from '../auth-hooks.ts';
import { PAYIN_REFUSALS } from '../schemas/payin.ts';
import {
  Endpoint,
  EndpointChange,
  EndpointCreate,
  EndpointDeleted,
  EndpointList,
  EndpointParams,
  EndpointWithSecret,
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

    app.post(
      '/api/v2/webhooks',
      {
        schema: {
          operationId: 'createWebhookEndpoint',
          errors: [],
          summary: 'Create a webhook endpoint (the signing secret is shown once)',
          body: EndpointCreate,
          response: { 200: EndpointWithSecret, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => createEndpoint(service, merchantOf(request), request.body),
    );
    app.get(
      '/api/v2/webhooks',
      {
        schema: {
          operationId: 'listWebhookEndpoints',
          errors: [],
          summary: "List the merchant's webhook endpoints",
          querystring: NoQuery,
          response: { 200: EndpointList, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => endpointList(service, merchantOf(request)),
    );
    app.get(
      '/api/v2/webhooks/:id',
      {
        schema: {
          operationId: 'getWebhookEndpoint',
          errors: ['not_found'],
          summary: 'Read a webhook endpoint',
          params: EndpointParams,
          response: { 200: Endpoint, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => endpointOf(service, merchantOf(request), request.params.id),
    );
    app.patch(
      '/api/v2/webhooks/:id',
      {
        schema: {
          operationId: 'updateWebhookEndpoint',
          errors: ['not_found'],
          summary: "Change a webhook endpoint's URL, event types or enabled flag",
          params: EndpointParams,
          body: EndpointChange,
          response: { 200: Endpoint, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => changeEndpoint(service, merchantOf(request), request.params.id, request.body),
    );
    app.delete(
      '/api/v2/webhooks/:id',
      {
        schema: {
          operationId: 'deleteWebhookEndpoint',
          errors: ['not_found'],
          summary: 'Delete a webhook endpoint and its deliveries',
          params: EndpointParams,
          response: { 200: EndpointDeleted, ...REFUSALS },
        },
        onRequest,
      },
      async (request) => removeEndpoint(service, merchantOf(request), request.params.id),
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
      async (request) => rotateEndpointSecret(service, merchantOf(request), request.params.id),
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
