// Operator pages for merchants: list and search, create (secrets shown
// once), fund, overdraft and the payouts-must-link flag, through the merchant
// administration flows. Only operator users reach these routes.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { parseDollarString, parseDollarStringOrZero } from '../../domain/money.ts';
import { ApiError } from '../../errors.ts';
import { createMerchant, fundMerchant, issuingDeps, setOverdraft, setPayoutsMustLink, showMerchant, wireDialectOf } from '../../flows/merchants/merchants.ts';
import { verifyLedger } from '../../flows/operations/ledger-verify.ts';
import { merchantList } from '../../flows/panel/operator-views.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, noticeFromQuery, pathParam, queryField, sendPage, userOf } from '../request.ts';
import { requireRecentAuth } from './account.ts';
import { recordRoutes } from './records.ts';
import { notice } from '../views/components.ts';
import { ledgerBody, merchantCreatedBody, merchantDetailBody, merchantListBody } from '../views/operator.ts';

const MERCHANT_ID_PATTERN = /^mer_[0-9A-Za-z]{1,32}$/;

export function operatorRoutes(service: Service): FastifyPluginAsync {
  const deps = issuingDeps(service);

  /** Re-renders a merchant's page with the problem of a refused form, keeping what was typed. */
  async function refused(request: FastifyRequest, reply: FastifyReply, merchantId: string, message: string, values: { fund?: string; overdraft?: string }) {
    const summary = await showMerchant(deps, merchantId);
    const body = merchantDetailBody({ csrf: userOf(request).csrfToken, summary, message: notice('error', message), values });
    return sendPage(reply, context(service, request), summary.name, body, 400);
  }

  function merchantIdOf(request: FastifyRequest): string {
    const id = pathParam(request, 'id');
    if (!MERCHANT_ID_PATTERN.test(id)) throw new ApiError('not_found', `merchant ${id} not found`);
    return id;
  }

  return async (app) => {
    // Any merchant's charges and transfers, read only (no capture, void or refund).
    await app.register(
      recordRoutes(service, {
        prefix: '/operator/merchants/:id',
        merchantOf: async (request) => (await showMerchant(deps, merchantIdOf(request))).merchant_id,
        viewOf: (merchantId) => ({ base: `/dashboard/operator/merchants/${merchantId}`, readOnly: true }),
      }),
    );

    app.get('/operator/merchants', async (request, reply) => {
      const query = queryField(request, 'q').slice(0, 200);
      const rows = await merchantList(service, query === '' ? null : query);
      const body = merchantListBody({ csrf: userOf(request).csrfToken, rows, query, message: noticeFromQuery(request) });
      return sendPage(reply, context(service, request), 'Merchants', body);
    });

    app.post('/operator/merchants', async (request, reply) => {
      // A new merchant comes with credentials: the same fresh password check as creating them.
      const ask = requireRecentAuth(service, request, reply, '/dashboard/operator/merchants');
      if (ask !== null) return ask;
      const dialect = wireDialectOf(formField(request, 'dialect') || undefined);
      const created = await createMerchant(deps, { name: formField(request, 'name'), dialect }, actorOf(request));
      return sendPage(reply, context(service, request), 'Merchant created', merchantCreatedBody(created));
    });

    app.get('/operator/merchants/:id', async (request, reply) => {
      const summary = await showMerchant(deps, merchantIdOf(request));
      const body = merchantDetailBody({ csrf: userOf(request).csrfToken, summary, message: noticeFromQuery(request) });
      return sendPage(reply, context(service, request), summary.name, body);
    });

    app.post('/operator/merchants/:id/fund', async (request, reply) => {
      const merchantId = merchantIdOf(request);
      const text = formField(request, 'amount').trim();
      const amount = parseDollarString(text);
      if (!amount.ok) return refused(request, reply, merchantId, `The amount ${amount.reason}, for example 250.00.`, { fund: text });
      await fundMerchant(deps, { merchantId, amountCents: amount.cents }, actorOf(request));
      return reply.redirect(`/dashboard/operator/merchants/${merchantId}?notice=funded`, 303);
    });

    app.post('/operator/merchants/:id/overdraft', async (request, reply) => {
      const merchantId = merchantIdOf(request);
      const text = formField(request, 'amount').trim();
      const amount = parseDollarStringOrZero(text);
      if (!amount.ok) return refused(request, reply, merchantId, `The overdraft ${amount.reason}, or 0 for none.`, { overdraft: text });
      try {
        await setOverdraft(deps, { merchantId, overdraftCents: amount.cents }, actorOf(request));
      } catch (error) {
        if (error instanceof ApiError && error.error === 'invalid_amount') return refused(request, reply, merchantId, `${error.message}.`, { overdraft: text });
        throw error;
      }
      return reply.redirect(`/dashboard/operator/merchants/${merchantId}?notice=overdraft`, 303);
    });

    app.post('/operator/merchants/:id/link-required', async (request, reply) => {
      const merchantId = merchantIdOf(request);
      const on = formField(request, 'on') === '1';
      await setPayoutsMustLink(deps, { merchantId, on }, actorOf(request));
      return reply.redirect(`/dashboard/operator/merchants/${merchantId}?notice=${on ? 'link_on' : 'link_off'}`, 303);
    });

    app.get('/operator/ledger', async (request, reply) => {
      const report = await verifyLedger(service.db);
      return sendPage(reply, context(service, request), 'Ledger verification', ledgerBody(report, service.clock.nowMs()));
    });
  };
}
