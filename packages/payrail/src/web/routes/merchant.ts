// Merchant pages: overview, charges, transfers. Every query is scoped to the
// signed-in user's merchant; another merchant's reference reads as unknown.
import type { FastifyPluginAsync } from 'fastify';
import { summarize } from '../../flows/merchants.ts';
import { minorUnitsOf } from '../../flows/transfers/corridors.ts';
import type { Service } from '../../service.ts';
import { html } from '../html.ts';
import { CHARGE_STATUSES, DAY_MS, PAGE_SIZE, TRANSFER_STATE_FILTERS, dailyVolume, getCharge, getTransfer, listCharges, listTransfers, type ChargeStatus, type TransferStateFilter } from '../queries.ts';
import { beforeCursor, context, merchantOf, pathParam, queryField, sendPage } from '../request.ts';
import { chargeDetailBody, chargeListBody } from '../views/charges.ts';
import { notice } from '../views/components.ts';
import { errorBody } from '../views/errors.ts';
import { overviewBody } from '../views/overview.ts';
import { transferDetailBody, transferListBody } from '../views/transfers.ts';

/** A UTC day from a date input ("2026-01-31"), as milliseconds, or null when absent or invalid. */
function dayStartMs(text: string): number | null {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

/** Reference numbers and transfer ids are digits; anything longer than this is no id of ours. */
const REFERENCE_DIGITS_MAX = 15;
const TRANSFER_ID_LENGTH_MAX = 64;

export function merchantRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/overview', async (request, reply) => {
      const merchantId = merchantOf(request);
      const { summary, days } = await service.db.read(async (tx) => ({
        summary: await summarize(tx, merchantId),
        days: await dailyVolume(tx, merchantId, service.clock.nowMs()),
      }));
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
      const rows = await service.db.read((tx) =>
        listCharges(tx, merchantId, { status, fromMs, toMs: toDayMs === null ? null : toDayMs + DAY_MS, beforePk: beforeCursor(request) }),
      );
      const nextBefore = rows.length > PAGE_SIZE ? rows[PAGE_SIZE - 1]!.pk : null;
      const input = { status: status ?? '', from: fromMs === null ? '' : fromText, to: toDayMs === null ? '' : toText };
      const body = chargeListBody(input, rows.slice(0, PAGE_SIZE), nextBefore, status !== null || fromMs !== null || toDayMs !== null);
      const warning = problems.length === 0 ? html`` : notice('error', `Filter ignored: ${problems.join('; ')}.`);
      return sendPage(reply, context(service, request), 'Charges', html`${warning}${body}`, problems.length === 0 ? 200 : 400);
    });

    app.get('/charges/find', async (request, reply) => {
      const ref = queryField(request, 'ref');
      if (new RegExp(`^[0-9]{1,${REFERENCE_DIGITS_MAX}}$`).test(ref)) return reply.redirect(`/dashboard/charges/${ref}`, 303);
      return sendPage(reply, context(service, request), 'Charge not found', errorBody('A reference number is digits only.', true), 400);
    });

    app.get('/charges/:ref', async (request, reply) => {
      const merchantId = merchantOf(request);
      const ref = pathParam(request, 'ref');
      const found = new RegExp(`^[0-9]{1,${REFERENCE_DIGITS_MAX}}$`).test(ref) ? await service.db.read((tx) => getCharge(tx, merchantId, Number(ref))) : null;
      if (found === null) return sendPage(reply, context(service, request), 'Charge not found', errorBody(`No charge with reference number ${ref} was found.`, true), 404);
      return sendPage(reply, context(service, request), `Charge ${found.charge.pk}`, chargeDetailBody(found.charge, found.transfers));
    });

    app.get('/transfers', async (request, reply) => {
      const merchantId = merchantOf(request);
      const stateText = queryField(request, 'state');
      const state: TransferStateFilter = (TRANSFER_STATE_FILTERS as readonly string[]).includes(stateText) ? (stateText as TransferStateFilter) : 'all';
      const rows = await service.db.read((tx) => listTransfers(tx, merchantId, { state, beforePk: beforeCursor(request) }));
      const nextBefore = rows.length > PAGE_SIZE ? rows[PAGE_SIZE - 1]!.pk : null;
      return sendPage(reply, context(service, request), 'Transfers', transferListBody(state, rows.slice(0, PAGE_SIZE), nextBefore, null));
    });

    app.get('/transfers/find', async (request, reply) => {
      const merchantId = merchantOf(request);
      const id = queryField(request, 'id').slice(0, TRANSFER_ID_LENGTH_MAX);
      const exists = id !== '' && (await service.db.read((tx) => tx.get('SELECT pk FROM transfers WHERE merchant_id = ? AND id = ?', [merchantId, id]))) !== undefined;
      if (exists) return reply.redirect(`/dashboard/transfers/${encodeURIComponent(id)}`, 303);
      const rows = await service.db.read((tx) => listTransfers(tx, merchantId, { state: 'all', beforePk: null }));
      const nextBefore = rows.length > PAGE_SIZE ? rows[PAGE_SIZE - 1]!.pk : null;
      return sendPage(reply, context(service, request), 'Transfers', transferListBody('all', rows.slice(0, PAGE_SIZE), nextBefore, id), 404);
    });

    app.get('/transfers/:id', async (request, reply) => {
      const merchantId = merchantOf(request);
      const id = pathParam(request, 'id').slice(0, TRANSFER_ID_LENGTH_MAX);
      const found = await service.db.read((tx) => getTransfer(tx, merchantId, id));
      if (found === null) return sendPage(reply, context(service, request), 'Transfer not found', errorBody(`No transfer with id ${id} was found.`, true), 404);
      return sendPage(reply, context(service, request), `Transfer ${found.transfer.id}`, transferDetailBody(found.transfer, found.events, found.link, minorUnitsOf(service, found.transfer.service, found.transfer.receiver_currency)));
    });
  };
}
