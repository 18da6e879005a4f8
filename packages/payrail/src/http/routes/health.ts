// Liveness and readiness. /readyz proves the store answers a query.
import type { FastifyPluginAsync } from 'fastify';
import type { Service } from '../../service.ts';

export function healthRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      try {
        await service.db.read((tx) => tx.get('SELECT 1 AS one'));
        return { status: 'ready', environment: service.config.environment, store: service.db.dialect };
      } catch (error) {
        service.log.warn({ err: error }, 'store not ready');
        return reply.code(503).send({ status: 'unavailable' });
      }
    });
  };
}
