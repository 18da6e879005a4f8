// The operator's differences with the card processor: listed by status, and
// resolved one at a time with a note (CSRF-checked like every panel POST,
// audited as reconciliation.resolve by the flow).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../../errors.ts';
import { listDifferences, resolveProcessorDifference } from '../../flows/operations/processor-reconciliation.ts';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { actorOf, context, formField, noticeFromQuery, pathParam, queryField, sendPage, userOf } from '../request.ts';
import { notice } from '../views/components.ts';
import { type DifferenceShown, processorDifferencesBody } from '../views/processor-differences.ts';

/** Differences shown on the page: the newest; older ones through the CLI. */
const DIFFERENCES_SHOWN_MAX = 200;

function shownOf(text: string): DifferenceShown {
  return text === 'resolved' || text === 'all' ? text : 'open';
}

export function processorDifferenceRoutes(service: Service): FastifyPluginAsync {
  async function show(request: FastifyRequest, reply: FastifyReply, shown: DifferenceShown, message: Html | null, status: number) {
    const open = shown === 'open' ? true : shown === 'resolved' ? false : null;
    const rows = await listDifferences(service, { filters: { open, day: null }, limit: DIFFERENCES_SHOWN_MAX, offset: 0 });
    const body = processorDifferencesBody({ rows, shown, csrf: userOf(request).csrfToken, message });
    return sendPage(reply, context(service, request), 'Processor differences', body, status);
  }

  return async (app) => {
    app.get('/operator/processor-differences', async (request, reply) =>
      show(request, reply, shownOf(queryField(request, 'status')), noticeFromQuery(request), 200),
    );

    app.post('/operator/processor-differences/:id/resolve', async (request, reply) => {
      const idText = pathParam(request, 'id');
      const id = /^[0-9]{1,15}$/.test(idText) ? Number(idText) : 0;
      try {
        await resolveProcessorDifference(service, { id, note: formField(request, 'note') }, actorOf(request));
      } catch (error) {
        if (!isApiError(error)) throw error;
        return show(request, reply, 'open', notice('error', `${error.message}.`), error.status);
      }
      return reply.redirect('/dashboard/operator/processor-differences?notice=difference_resolved', 303);
    });
  };
}
