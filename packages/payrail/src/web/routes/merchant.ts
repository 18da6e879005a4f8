// Merchant pages: overview, charges, transfers. Every query is scoped to the
// signed-in user's merchant; another merchant's reference reads as unknown.
import { isTransferId, parseReferenceNumber, TRANSFER_ID_LENGTH_MAX } from '../../domain/references.ts';
import type { FastifyPluginAsync } from 'fastify';
import {
  CHARGE_STATUSES,
  chargeDetail,
  chargePage,
  merchantOverview,
  TRANSFER_STATE_FILTERS,
  transferDetail,
  transferExists,
  transferPage,
  type ChargeStatus,
  type TransferStateFilter,
} from '../../flows/panel/merchant-views.ts';
import { minorUnitsOf } from '../../flows/transfers/corridors.ts';
import type { Service } from '../../service.ts';
import { html } from '../html.ts';
import { beforeCursor, context, dayStartMs, merchantOf, noticeFromQuery, pathParam, queryField, sendPage, userOf } from '../request.ts';
import { chargeDetailBody, chargeListBody } from '../views/charges.ts';
import { notice } from '../views/components.ts';
import { errorBody } from '../views/errors.ts';
import { overviewBody } from '../views/overview.ts';
import { transferDetailBody, transferListBody } from '../views/transfers.ts';

export function merchantRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/overview', async (request, reply) => {
      const { summary, days } = await merchantOverview(service, merchantOf(request));
      return sendPage(reply, context(service, request), 'Overview', overviewBody(summary, days));
    });

    app.get('/charges', async (request, reply) => {
      const merchantId = merchantOf(request);
      const statusText = queryField(request, 'status');
      const fromText = queryField(request, 'from');
      const toText = queryField(request, 'to');
      const status = (CHARGE_STATUSES as readonly string[]).includes(statusText) ? (statusText as ChargeStatus) : null;
      const fromMs = dayStartMs(fromText);
      const toDayMs = dayStartMs(toText);
      const problems: string[] = [];
      if (statusText !== '' && status === null) problems.push(`unknown status "${statusText}"`);
      if (fromText !== '' && fromMs === null) problems.push('the From date is not a date');
      if (toText !== '' && toDayMs === null) problems.push('the To date is not a date');
      const { rows, nextBefore } = await chargePage(service, merchantId, { status, fromMs, toDayMs, beforePk: beforeCursor(request) });
      const input = { status: status ?? '', from: fromMs === null ? '' : fromText, to: toDayMs === null ? '' : toText };
      const body = chargeListBody(input, rows, nextBefore, status !== null || fromMs !== null || toDayMs !== null);
      const warning = problems.length === 0 ? html`` : notice('error', `Filter ignored: ${problems.join('; ')}.`);
      return sendPage(reply, context(service, request), 'Charges', html`${warning}${body}`, problems.length === 0 ? 200 : 400);
    });

    app.get('/charges/find', async (request, reply) => {
      const ref = queryField(request, 'ref');
      if (parseReferenceNumber(ref) !== null) return reply.redirect(`/dashboard/charges/${ref}`, 303);
      return sendPage(reply, context(service, request), 'Charge not found', errorBody('A reference number is digits only.', true), 400);
    });

    app.get('/charges/:ref', async (request, reply) => {
      const merchantId = merchantOf(request);
      const ref = pathParam(request, 'ref');
      const pk = parseReferenceNumber(ref);
      const found = pk === null ? null : await chargeDetail(service, merchantId, pk);
      if (found === null)
        return sendPage(reply, context(service, request), 'Charge not found', errorBody(`No charge with reference number ${ref} was found.`, true), 404);
      const lifecycle = { refunds: found.refunds, csrf: userOf(request).csrfToken, notice: noticeFromQuery(request) };
      return sendPage(reply, context(service, request), `Charge ${found.charge.pk}`, chargeDetailBody(found.charge, found.transfers, lifecycle));
    });

    app.get('/transfers', async (request, reply) => {
      const merchantId = merchantOf(request);
      const stateText = queryField(request, 'state');
      const state: TransferStateFilter = (TRANSFER_STATE_FILTERS as readonly string[]).includes(stateText) ? (stateText as TransferStateFilter) : 'all';
      const { rows, nextBefore } = await transferPage(service, merchantId, { state, beforePk: beforeCursor(request) });
      return sendPage(reply, context(service, request), 'Transfers', transferListBody(state, rows, nextBefore, null));
    });

    app.get('/transfers/find', async (request, reply) => {
      const merchantId = merchantOf(request);
      const id = queryField(request, 'id').slice(0, TRANSFER_ID_LENGTH_MAX + 1);
      if (isTransferId(id) && (await transferExists(service, merchantId, id))) return reply.redirect(`/dashboard/transfers/${encodeURIComponent(id)}`, 303);
      const { rows, nextBefore } = await transferPage(service, merchantId, { state: 'all', beforePk: null });
      return sendPage(reply, context(service, request), 'Transfers', transferListBody('all', rows, nextBefore, id), 404);
    });

    app.get('/transfers/:id', async (request, reply) => {
      const merchantId = merchantOf(request);
      const id = pathParam(request, 'id').slice(0, TRANSFER_ID_LENGTH_MAX + 1);
      const found = isTransferId(id) ? await transferDetail(service, merchantId, id) : null;
      if (found === null) return sendPage(reply, context(service, request), 'Transfer not found', errorBody(`No transfer with id ${id} was found.`, true), 404);
      return sendPage(
        reply,
        context(service, request),
        `Transfer ${found.transfer.id}`,
        transferDetailBody(found.transfer, found.events, found.link, minorUnitsOf(service, found.transfer.service, found.transfer.receiver_currency)),
      );
    });
  };
}
