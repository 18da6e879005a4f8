// CSV exports of the merchant's charge and transfer lists, as filtered on
// the page (the same query parameters, without the page cursor). An export
// is a read, so every merchant role may make one; like every merchant page
// it is scoped to the signed-in user's merchant. Filters that are not valid
// are refused with the page's message rather than exporting something else.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { transactionStatusOf } from '../../domain/card-lifecycle.ts';
import { formatCents } from '../../domain/money.ts';
import { chargeExport, EXPORT_ROWS_MAX, transferExport } from '../../flows/panel/merchant-views.ts';
import type { Service } from '../../service.ts';
import { csvDocument } from '../csv.ts';
import { stateName } from '../format.ts';
import { chargeFiltersOf, transferFiltersOf } from '../list-filters.ts';
import { context, merchantOf, sendPage } from '../request.ts';
import { errorBody } from '../views/errors.ts';

const CHARGE_HEADER = ['reference', 'kind', 'refund_of', 'status', 'amount', 'currency', 'captured', 'refunded', 'linked', 'card_type', 'last4', 'created_at'];
const TRANSFER_HEADER = ['id', 'state', 'substate', 'state_name', 'amount', 'currency', 'receiver_phone', 'service', 'receiver_currency', 'created_at'];

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** "charges-2026-01-31.csv", dated by the service clock (UTC). */
function fileName(service: Service, list: string): string {
  return `${list}-${isoTime(service.clock.nowMs()).slice(0, 10)}.csv`;
}

function sendCsv(reply: FastifyReply, name: string, text: string, cut: boolean): FastifyReply {
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('x-export-truncated', cut ? 'true' : 'false')
    .header('cache-control', 'no-store')
    .send(text);
}

function refused(service: Service, request: FastifyRequest, reply: FastifyReply, problems: string[]): FastifyReply {
  return sendPage(reply, context(service, request), 'Export refused', errorBody(`Nothing exported: ${problems.join('; ')}.`, true), 400);
}

export function exportRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/charges/export', async (request, reply) => {
      const { filters, problems } = chargeFiltersOf(request);
      if (problems.length > 0) return refused(service, request, reply, problems);
      const { rows, cut } = await chargeExport(service, merchantOf(request), filters);
      const lines = rows.map((c) => [
        c.pk,
        c.kind,
        c.parent_pk,
        transactionStatusOf(c),
        formatCents(c.amount_cents),
        c.currency,
        formatCents(c.captured_cents),
        formatCents(c.refunded_cents),
        formatCents(c.linked_cents),
        c.card_type,
        c.last4,
        isoTime(c.created_at_ms),
      ]);
      return sendCsv(reply, fileName(service, 'charges'), csvDocument(CHARGE_HEADER, lines, cut ? EXPORT_ROWS_MAX : null), cut);
    });

    app.get('/transfers/export', async (request, reply) => {
      const { filters, problems } = transferFiltersOf(service, request);
      if (problems.length > 0) return refused(service, request, reply, problems);
      const { rows, cut } = await transferExport(service, merchantOf(request), filters);
      const lines = rows.map((t) => [
        t.id,
        t.state,
        t.substate,
        stateName(t.state, t.substate, t.waiting_for),
        formatCents(t.amount_cents),
        'USD',
        t.receiver_phone,
        t.service,
        t.receiver_currency,
        isoTime(t.created_at_ms),
      ]);
      return sendCsv(reply, fileName(service, 'transfers'), csvDocument(TRANSFER_HEADER, lines, cut ? EXPORT_ROWS_MAX : null), cut);
    });
  };
}
