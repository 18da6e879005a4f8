// Stored customers in the panel (docs/api-decisions.md section 15): the
// merchant's customers, one customer with its saved cards, schedules and
// transactions, a schedule's run history, and pausing or resuming a
// schedule (a form post with the session's CSRF token, answered with a
// redirect so a reload repeats nothing). Scoped to the signed-in merchant.
import type { FastifyPluginAsync } from 'fastify';
import { customerPanelView, listCustomerViews } from '../../flows/vault/customers.ts';
import { changeSchedule, scheduleRunHistory } from '../../flows/vault/schedules.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, merchantOf, noticeFromQuery, pathParam, queryField, sendPage, userOf } from '../request.ts';
import { customerDetailBody, customerListBody, scheduleDetailBody } from '../views/customers.ts';

/** Customers per page of the list. */
const CUSTOMERS_PER_PAGE = 50;

export function customerPanelRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/customers', async (request, reply) => {
      const offsetText = queryField(request, 'offset');
      const offset = /^[0-9]{1,6}$/.test(offsetText) ? Number(offsetText) : 0;
      // One more than a page tells whether there is a next one.
      const rows = await listCustomerViews(service, { merchantId: merchantOf(request) }, { limit: String(CUSTOMERS_PER_PAGE + 1), offset: String(offset) });
      const body = customerListBody(rows.slice(0, CUSTOMERS_PER_PAGE), { offset, more: rows.length > CUSTOMERS_PER_PAGE });
      return sendPage(reply, context(service, request), 'Customers', body);
    });

    app.get('/customers/:id', async (request, reply) => {
      const view = await customerPanelView(service, merchantOf(request), pathParam(request, 'id'));
      return sendPage(reply, context(service, request), `Customer ${view.customer.id}`, customerDetailBody(view));
    });

    app.get('/schedules/:id', async (request, reply) => {
      const { schedule, runs } = await scheduleRunHistory(service, merchantOf(request), pathParam(request, 'id'));
      const body = scheduleDetailBody(schedule, runs, userOf(request).csrfToken, noticeFromQuery(request));
      return sendPage(reply, context(service, request), `Schedule ${schedule.id}: ${schedule.title}`, body);
    });

    for (const [action, active] of [
      ['pause', false],
      ['resume', true],
    ] as const) {
      app.post(`/schedules/:id/${action}`, async (request, reply) => {
        const updated = await changeSchedule(service, { merchantId: merchantOf(request) }, pathParam(request, 'id'), { active }, null, actorOf(request));
        return reply.redirect(`/dashboard/schedules/${updated.id}?notice=schedule_${action}d`, 303);
      });
    }
  };
}
