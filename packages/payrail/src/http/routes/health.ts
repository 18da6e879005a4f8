// Liveness and readiness. /readyz proves the store answers a query.
import type { FastifyPluginAsync } from 'fastify';
import { readiness } from '../../flows/operations/health.ts';
import type { Service } from '../../service.ts';
import type { RouteSchema } from '../openapi.ts';

export function healthRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', { schema: { operationId: 'getHealth', summary: 'Liveness' } as RouteSchema }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { operationId: 'getReadiness', summary: 'Readiness: the store answers' } as RouteSchema }, async (_request, reply) => {
      try {
        return { status: 'ready', ...(await readiness(service)) };
      } catch (error) {
        service.log.warn({ err: error }, 'store not ready');
        return reply.code(503).send({ status: 'unavailable' });
      }
    });
  };
}
