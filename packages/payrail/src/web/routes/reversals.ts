// The operator's reversals of completed payouts: listed by state, confirmed
// or rejected one at a time (CSRF-checked like every panel POST, operators
// only, audited by the flow as transfer.reversal_confirm / _reject).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { isReversalState } from '../../domain/transfer-reversals.ts';
import { isApiError } from '../../errors.ts';
import { confirmReversal, listTransferReversals, rejectReversal } from '../../flows/transfers/reversals.ts';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { actorOf, context, formField, noticeFromQuery, queryField, sendPage, userOf } from '../request.ts';
import { notice } from '../views/components.ts';
import { type ReversalsShown, reversalsBody } from '../views/reversals.ts';

/** Reversals shown on the page: the newest; older ones through the CLI. */
const REVERSALS_SHOWN_MAX = 200;

function shownOf(text: string): ReversalsShown {
  return text === 'all' || (isReversalState(text) && text !== 'reported') ? text : 'reported';
}

export function reversalRoutes(service: Service): FastifyPluginAsync {
  async function show(request: FastifyRequest, reply: FastifyReply, shown: ReversalsShown, message: Html | null, status: number) {
    const rows = await listTransferReversals(service, { state: shown === 'all' ? null : shown, limit: REVERSALS_SHOWN_MAX });
    const body = reversalsBody({ rows, shown, csrf: userOf(request).csrfToken, message });
    return sendPage(reply, context(service, request), 'Payout reversals', body, status);
  }

  async function decide(request: FastifyRequest, reply: FastifyReply, decision: 'confirm' | 'reject') {
    const target = { merchantId: formField(request, 'merchant'), transferId: formField(request, 'transfer') };
    const reason = formField(request, 'reason');
    try {
      if (decision === 'confirm') await confirmReversal(service, { ...target, note: reason }, actorOf(request));
      else await rejectReversal(service, { ...target, reason }, actorOf(request));
    } catch (error) {
      if (!isApiError(error)) throw error;
      return show(request, reply, 'reported', notice('error', `${error.message}.`), error.status);
    }
    return reply.redirect(`/dashboard/operator/reversals?notice=reversal_${decision === 'confirm' ? 'confirmed' : 'rejected'}`, 303);
  }

  return async (app) => {
    app.get('/operator/reversals', async (request, reply) => show(request, reply, shownOf(queryField(request, 'state')), noticeFromQuery(request), 200));
    app.post('/operator/reversals/confirm', async (request, reply) => decide(request, reply, 'confirm'));
    app.post('/operator/reversals/reject', async (request, reply) => decide(request, reply, 'reject'));
  };
}
