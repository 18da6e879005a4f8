// The operator's reconciliation queue: transfers waiting (state 0 substate 9)
// for a link to a card payin. Linking and cancelling go through the transfer
// operator flows, which change the state, the link and the money in one
// transaction and refuse a transfer that is no longer waiting.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../../errors.ts';
import { reconciliationQueue } from '../../flows/panel/operator-views.ts';
import { cancelTransfer, linkTransfer } from '../../flows/transfers/operator.ts';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { actorOf, context, formField, noticeFromQuery, sendPage, userOf } from '../request.ts';
import { notice } from '../views/components.ts';
import { reconciliationBody } from '../views/operator.ts';

export function reconciliationRoutes(service: Service): FastifyPluginAsync {
  async function showQueue(request: FastifyRequest, reply: FastifyReply, message: Html | null, status: number) {
    const { transfers, candidates } = await reconciliationQueue(service);
    const body = reconciliationBody({ csrf: userOf(request).csrfToken, transfers, candidates, message });
    return sendPage(reply, context(service, request), 'Reconciliation', body, status);
  }

  /** Runs an operator action; a refusal is shown above the queue, which may have changed meanwhile. */
  async function act(request: FastifyRequest, reply: FastifyReply, action: () => Promise<unknown>, done: 'linked' | 'cancelled') {
    try {
      await action();
    } catch (error) {
      if (!isApiError(error)) throw error;
      return showQueue(request, reply, notice('error', `${error.message}.`), error.status);
    }
    return reply.redirect(`/dashboard/operator/reconciliation?notice=${done}`, 303);
  }

  return async (app) => {
    app.get('/operator/reconciliation', async (request, reply) => showQueue(request, reply, noticeFromQuery(request), 200));

    app.post('/operator/reconciliation/link', async (request, reply) => {
      const input = { merchantId: formField(request, 'merchant'), transferId: formField(request, 'transfer'), chargeRef: formField(request, 'charge').trim() };
      return act(request, reply, () => linkTransfer(service, input, actorOf(request)), 'linked');
    });

    app.post('/operator/reconciliation/cancel', async (request, reply) => {
      const input = { merchantId: formField(request, 'merchant'), transferId: formField(request, 'transfer') };
      return act(request, reply, () => cancelTransfer(service, input, actorOf(request)), 'cancelled');
    });
  };
}
