// The operator's view of settlement batches (docs/api-decisions.md section 10).
import type { FastifyPluginAsync } from 'fastify';
import { allBatches } from '../../flows/payin/batches.ts';
import type { Service } from '../../service.ts';
import { context, queryField, sendPage } from '../request.ts';
import { batchListBody } from '../views/batches.ts';

/** Batches per page. */
const BATCH_PAGE_SIZE = 50;
/** Deeper pages are not offered. */
const BATCH_OFFSET_MAX = 100_000;

export function batchRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/operator/batches', async (request, reply) => {
      const offsetText = queryField(request, 'offset');
      const offset = /^[0-9]{1,6}$/.test(offsetText) ? Math.min(Number(offsetText), BATCH_OFFSET_MAX) : 0;
      const rows = await allBatches(service, { limit: BATCH_PAGE_SIZE + 1, offset });
      const body = batchListBody(rows.slice(0, BATCH_PAGE_SIZE), { offset, more: rows.length > BATCH_PAGE_SIZE });
      return sendPage(reply, context(service, request), 'Settlement batches', body);
    });
  };
}
