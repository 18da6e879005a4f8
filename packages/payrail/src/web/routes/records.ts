// A merchant's charges and transfers: the filterable lists, finding one,
// the detail pages and the CSV exports. Registered twice: for the merchant's
// own users under /dashboard (scoped to the signed-in user's merchant, where
// another merchant's reference reads as unknown), and for the operator under
// /dashboard/operator/merchants/:id, read only (no capture, void or refund).
// An export is a read, so every merchant role may make one.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { formatCents } from '../../domain/money.ts';
import { isTransferId, parseReferenceNumber, TRANSFER_ID_LENGTH_MAX } from '../../domain/references.ts';
import {
  chargeDetail,
  chargeExport,
  chargePage,
  chargeStatusOf,
  EXPORT_ROWS_MAX,
  NO_TRANSFER_FILTERS,
  transferDetail,
  transferExists,
  transferExport,
  transferPage,
} from '../../flows/panel/merchant-views.ts';
import { minorUnitsOf } from '../../flows/transfers/corridors.ts';
import type { Service } from '../../service.ts';
import { csvDocument } from '../csv.ts';
import { stateName } from '../format.ts';
import { html, type Html } from '../html.ts';
import { chargeFiltersOf, transferFiltersOf } from '../list-filters.ts';
import { context, pageCursor, noticeFromQuery, pathParam, queryField, sendPage, userOf } from '../request.ts';
import { chargeDetailBody, chargeListBody } from '../views/charges.ts';
import { notice, type RecordView } from '../views/components.ts';
import { errorBody } from '../views/errors.ts';
import { transferDetailBody, transferListBody } from '../views/transfers.ts';

/** Who reads: the route prefix, and for a request the merchant and how its records are shown. */
export interface RecordPlace {
  /** Prefix of the routes inside /dashboard: '' or '/operator/merchants/:id'. */
  readonly prefix: string;
  /** The merchant of the request; throws not_found for an unknown one. */
  merchantOf(request: FastifyRequest): Promise<string>;
  viewOf(merchantId: string): RecordView;
}

// A check's status is its ACH entry's (ach_status repeats it, empty for a
// card); card_type and last4 are a card's, account_last4 a check's bank
// account's last four digits (never more of it), so no column mixes the two.
const CHARGE_HEADER = [
  'reference',
  'kind',
  'refund_of',
  'status',
  'amount',
  'currency',
  'captured',
  'refunded',
  'linked',
  'card_type',
  'last4',
  'created_at',
  'payment_type',
  'account_last4',
  'ach_status',
  'return_code',
  'return_reason',
];
const TRANSFER_HEADER = ['id', 'state', 'substate', 'state_name', 'amount', 'currency', 'receiver_phone', 'service', 'receiver_currency', 'created_at'];

/** What the page ignored of its filters, said on the page (which answers 400). */
function filterWarning(problems: readonly string[]): Html {
  return problems.length === 0 ? html`` : notice('error', `Filter ignored: ${problems.join('; ')}.`);
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function sendCsv(service: Service, reply: FastifyReply, list: string, text: string, cut: boolean): FastifyReply {
  // "charges-2026-01-31.csv", dated by the service clock (UTC).
  const name = `${list}-${isoTime(service.clock.nowMs()).slice(0, 10)}.csv`;
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('x-export-truncated', cut ? 'true' : 'false')
    .header('cache-control', 'no-store')
    .send(text);
}

export function recordRoutes(service: Service, place: RecordPlace): FastifyPluginAsync {
  const p = place.prefix;

  function exportRefused(request: FastifyRequest, reply: FastifyReply, problems: readonly string[]): FastifyReply {
    return sendPage(reply, context(service, request), 'Export refused', errorBody(`Nothing exported: ${problems.join('; ')}.`, true), 400);
  }

  return async (app) => {
    app.get(`${p}/charges`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const { filters, query, problems } = chargeFiltersOf(request);
      const page = await chargePage(service, merchantId, { ...filters, ...pageCursor(request) });
      const body = chargeListBody(query, page, place.viewOf(merchantId).base);
      return sendPage(reply, context(service, request), 'Charges', html`${filterWarning(problems)}${body}`, problems.length === 0 ? 200 : 400);
    });

    app.get(`${p}/charges/find`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const ref = queryField(request, 'ref');
      if (parseReferenceNumber(ref) !== null) return reply.redirect(`${place.viewOf(merchantId).base}/charges/${ref}`, 303);
      return sendPage(reply, context(service, request), 'Charge not found', errorBody('A reference number is digits only.', true), 400);
    });

    app.get(`${p}/charges/export`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const { filters, problems } = chargeFiltersOf(request);
      if (problems.length > 0) return exportRefused(request, reply, problems);
      const { rows, cut } = await chargeExport(service, merchantId, filters);
      const lines = rows.map((c) => [
        c.pk,
        c.kind,
        c.parent_pk,
        chargeStatusOf(c),
        formatCents(c.amount_cents),
        c.currency,
        formatCents(c.captured_cents),
        formatCents(c.refunded_cents),
        formatCents(c.linked_cents),
        c.payment_type === 'check' ? null : c.card_type,
        c.payment_type === 'check' ? null : c.last4,
        isoTime(c.created_at_ms),
        c.payment_type,
        c.payment_type === 'check' ? c.last4 : null,
        c.payment_type === 'check' ? chargeStatusOf(c) : null,
        c.ach_return_code,
        c.ach_return_reason,
      ]);
      return sendCsv(service, reply, 'charges', csvDocument(CHARGE_HEADER, lines, cut ? EXPORT_ROWS_MAX : null), cut);
    });

    app.get(`${p}/charges/:ref`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const ref = pathParam(request, 'ref');
      const pk = parseReferenceNumber(ref);
      const found = pk === null ? null : await chargeDetail(service, merchantId, pk);
      if (found === null)
        return sendPage(reply, context(service, request), 'Charge not found', errorBody(`No charge with reference number ${ref} was found.`, true), 404);
      const lifecycle = { refunds: found.refunds, csrf: userOf(request).csrfToken, notice: noticeFromQuery(request), checkActions: found.checkActions };
      const body = chargeDetailBody(found.charge, found.transfers, lifecycle, place.viewOf(merchantId));
      return sendPage(reply, context(service, request), `Charge ${found.charge.pk}`, body);
    });

    app.get(`${p}/transfers`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const { filters, query, problems } = transferFiltersOf(service, request);
      const page = await transferPage(service, merchantId, { ...filters, ...pageCursor(request) });
      const body = transferListBody(query, service.corridors.corridors, page, null, place.viewOf(merchantId).base);
      return sendPage(reply, context(service, request), 'Transfers', html`${filterWarning(problems)}${body}`, problems.length === 0 ? 200 : 400);
    });

    app.get(`${p}/transfers/find`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const base = place.viewOf(merchantId).base;
      const id = queryField(request, 'id').slice(0, TRANSFER_ID_LENGTH_MAX + 1);
      if (isTransferId(id) && (await transferExists(service, merchantId, id))) return reply.redirect(`${base}/transfers/${encodeURIComponent(id)}`, 303);
      const page = await transferPage(service, merchantId, NO_TRANSFER_FILTERS);
      return sendPage(reply, context(service, request), 'Transfers', transferListBody({}, service.corridors.corridors, page, id, base), 404);
    });

    app.get(`${p}/transfers/export`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const { filters, problems } = transferFiltersOf(service, request);
      if (problems.length > 0) return exportRefused(request, reply, problems);
      const { rows, cut } = await transferExport(service, merchantId, filters);
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
      return sendCsv(service, reply, 'transfers', csvDocument(TRANSFER_HEADER, lines, cut ? EXPORT_ROWS_MAX : null), cut);
    });

    app.get(`${p}/transfers/:transferId`, async (request, reply) => {
      const merchantId = await place.merchantOf(request);
      const id = pathParam(request, 'transferId').slice(0, TRANSFER_ID_LENGTH_MAX + 1);
      const found = isTransferId(id) ? await transferDetail(service, merchantId, id) : null;
      if (found === null) return sendPage(reply, context(service, request), 'Transfer not found', errorBody(`No transfer with id ${id} was found.`, true), 404);
      const minorUnits = minorUnitsOf(service, found.transfer.service, found.transfer.receiver_currency);
      const body = transferDetailBody(found.transfer, found.events, found.link, minorUnits, place.viewOf(merchantId).base);
      return sendPage(reply, context(service, request), `Transfer ${found.transfer.id}`, body);
    });
  };
}
