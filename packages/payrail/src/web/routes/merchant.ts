// Merchant pages: overview, charges, transfers. Every query is scoped to the
// signed-in user's merchant; another merchant's reference reads as unknown.
import { isTransferId, parseReferenceNumber, TRANSFER_ID_LENGTH_MAX } from '../../domain/references.ts';
import type { FastifyPluginAsync } from 'fastify';
import {
  chargeDetail,
  chargePage,
  merchantOverview,
  NO_TRANSFER_FILTERS,
  transferDetail,
  transferExists,
  transferPage,
} from '../../flows/panel/merchant-views.ts';
import { minorUnitsOf } from '../../flows/transfers/corridors.ts';
import type { Service } from '../../service.ts';
import { html, type Html } from '../html.ts';
import { chargeFiltersOf, transferFiltersOf } from '../list-filters.ts';
import { beforeCursor, context, merchantOf, noticeFromQuery, pathParam, queryField, sendPage, userOf } from '../request.ts';
import { chargeDetailBody, chargeListBody } from '../views/charges.ts';
import { notice } from '../views/components.ts';
import { errorBody } from '../views/errors.ts';
import { overviewBody } from '../views/overview.ts';
import { transferDetailBody, transferListBody } from '../views/transfers.ts';

/** What the page ignored of its filters, said on the page (which answers 400). */
function filterWarning(problems: readonly string[]): Html {
  return problems.length === 0 ? html`` : notice('error', `Filter ignored: ${problems.join('; ')}.`);
}

export function merchantRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/overview', async (request, reply) => {
      const { summary, days } = await merchantOverview(service, merchantOf(request));
      return sendPage(reply, context(service, request), 'Overview', overviewBody(summary, days));
    });

    app.get('/charges', async (request, reply) => {
      const { filters, query, problems } = chargeFiltersOf(request);
      const { rows, nextBefore } = await chargePage(service, merchantOf(request), { ...filters, beforePk: beforeCursor(request) });
      const body = chargeListBody(query, rows, nextBefore);
      return sendPage(reply, context(service, request), 'Charges', html`${filterWarning(problems)}${body}`, problems.length === 0 ? 200 : 400);
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
      const { filters, query, problems } = transferFiltersOf(service, request);
      const { rows, nextBefore } = await transferPage(service, merchantOf(request), { ...filters, beforePk: beforeCursor(request) });
      const body = transferListBody(query, service.corridors.corridors, rows, nextBefore, null);
      return sendPage(reply, context(service, request), 'Transfers', html`${filterWarning(problems)}${body}`, problems.length === 0 ? 200 : 400);
    });

    app.get('/transfers/find', async (request, reply) => {
      const merchantId = merchantOf(request);
      const id = queryField(request, 'id').slice(0, TRANSFER_ID_LENGTH_MAX + 1);
      if (isTransferId(id) && (await transferExists(service, merchantId, id))) return reply.redirect(`/dashboard/transfers/${encodeURIComponent(id)}`, 303);
      const { rows, nextBefore } = await transferPage(service, merchantId, NO_TRANSFER_FILTERS);
      return sendPage(reply, context(service, request), 'Transfers', transferListBody({}, service.corridors.corridors, rows, nextBefore, id), 404);
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
