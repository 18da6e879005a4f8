// Recurring schedules on the payin API (docs/api-decisions.md sections 15
// and 16): /api/v2/customers/:id/recurring-schedules, /api/v2/recurring-schedules,
// /api/v2/recurring-schedules/:id and /api/v2/payment-methods/:id/recurring-schedules,
// Basic auth, refusals in the caller's dialect, creations 201; and the sandbox call
// POST /sandbox/schedules/:id/run (API-KEY, transfer envelope), which runs a
// schedule's next run at once.
import { apiActorOf } from '../../api-actor.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fail } from '../../../errors.ts';
import { runScheduleNow } from '../../../flows/vault/schedule-runs.ts';
import {
  changeSchedule,
  createSchedule,
  listMerchantSchedules,
  listMethodSchedules,
  listSchedulesOfCustomer,
  readSchedule,
  removeSchedule,
  scheduleTransactionsJson,
} from '../../../flows/vault/schedules.ts';
import type { Service } from '../../../service.ts';
import { basicAuth, transferAuth } from '../../auth-hooks.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { keepRawJson, rawMemberText } from '../../raw-json.ts';
import { acceptBlueQuery } from '../../dialect-queries.ts';
import { ChargeHeaders } from '../../schemas/payin.ts';
import { IdParams, SandboxScheduleRunResponse, Schedule, ScheduleCreate, ScheduleList, ScheduleUpdate, StoredPageQuery } from '../../schemas/stored.ts';
import { TransactionListAnswer, TransactionListQuery } from '../../schemas/transaction-lists.ts';
import { readerOf } from '../payin/transactions.ts';
import { noContent, ownerOf, sendJsonText, STORED_REFUSALS } from './customers.ts';
import { createdView, idempotencyKeyOf } from '../../idempotent-replies.ts';

export function scheduleRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    keepRawJson(app);
    const onRequest = basicAuth(service);
    const amountText = (raw: string | undefined) => (raw === undefined ? null : rawMemberText(raw, 'amount'));

    app.post(
      '/api/v2/customers/:id/recurring-schedules',
      {
        schema: {
          operationId: 'createSchedule',
          errors: ['not_found', 'invalid_amount', 'idempotency_key_reused'],
          summary: "Create a recurring schedule charging one of the customer's saved cards (first run: next_run_date, default tomorrow)",
          params: IdParams,
          headers: ChargeHeaders,
          body: ScheduleCreate,
          response: { 201: Schedule, ...STORED_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(ScheduleCreate),
      },
      async (request, reply) =>
        createdView(
          reply,
          await createSchedule(service, ownerOf(request), request.params.id, request.body, amountText(request.rawJson), idempotencyKeyOf(request)),
        ),
    );
    app.get(
      '/api/v2/customers/:id/recurring-schedules',
      {
        schema: {
          operationId: 'listSchedules',
          errors: ['not_found'],
          summary: "List a customer's recurring schedules (order, limit, offset)",
          params: IdParams,
          querystring: StoredPageQuery,
          response: { 200: ScheduleList, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => listSchedulesOfCustomer(service, ownerOf(request), request.params.id, request.query),
    );
    app.get(
      '/api/v2/recurring-schedules',
      {
        schema: {
          operationId: 'listAllSchedules',
          errors: [],
          summary: 'List every recurring schedule of the merchant (order, limit, offset)',
          querystring: StoredPageQuery,
          response: { 200: ScheduleList, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => listMerchantSchedules(service, ownerOf(request), request.query),
    );
    app.get(
      '/api/v2/payment-methods/:id/recurring-schedules',
      {
        schema: {
          operationId: 'listPaymentMethodSchedules',
          errors: ['not_found'],
          summary: 'List the recurring schedules charging a saved card (an array)',
          params: IdParams,
          response: { 200: ScheduleList, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => listMethodSchedules(service, ownerOf(request), request.params.id),
    );
    app.get(
      '/api/v2/recurring-schedules/:id',
      {
        schema: {
          operationId: 'getSchedule',
          errors: ['not_found'],
          summary: 'Read a recurring schedule',
          params: IdParams,
          response: { 200: Schedule, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => readSchedule(service, ownerOf(request), request.params.id),
    );
    app.patch(
      '/api/v2/recurring-schedules/:id',
      {
        schema: {
          operationId: 'updateSchedule',
          errors: ['not_found', 'invalid_amount'],
          summary: 'Update a recurring schedule (amount, frequency, next run date, active: pause or resume)',
          params: IdParams,
          body: ScheduleUpdate,
          response: { 200: Schedule, ...STORED_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(ScheduleUpdate),
      },
      async (request) => changeSchedule(service, ownerOf(request), request.params.id, request.body, amountText(request.rawJson), apiActorOf(request)),
    );
    app.delete(
      '/api/v2/recurring-schedules/:id',
      {
        schema: {
          operationId: 'deleteSchedule',
          errors: ['not_found'],
          summary: 'Delete a recurring schedule',
          params: IdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request, reply) => {
        await removeSchedule(service, ownerOf(request), request.params.id);
        return noContent(reply);
      },
    );
    app.get(
      '/api/v2/recurring-schedules/:id/transactions',
      {
        schema: {
          operationId: 'listScheduleTransactions',
          errors: ['not_found'],
          summary: "List a schedule's transactions (spec: newest first; acceptblue: oldest first, bare transaction objects)",
          params: IdParams,
          querystring: TransactionListQuery,
          response: { 200: TransactionListAnswer, ...STORED_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueQuery(TransactionListQuery),
      },
      async (request, reply) => sendJsonText(reply, await scheduleTransactionsJson(service, readerOf(request), request.params.id, request.query)),
    );

    app.post(
      '/sandbox/schedules/:id/run',
      {
        schema: {
          operationId: 'sandboxRunSchedule',
          errors: ['sandbox_only', 'not_found'],
          summary: "Sandbox: run a schedule's next run now, as if its date had come (a date is charged at most once)",
          params: IdParams,
          response: { 200: SandboxScheduleRunResponse },
        },
        onRequest: [
          async () => {
            if (service.config.environment !== 'sandbox') fail('sandbox_only');
          },
          transferAuth(service),
        ],
      },
      async (request, reply) => {
        const result = await runScheduleNow(service, request.principal!.merchantId, request.params.id);
        return sendJsonText(
          reply,
          JSON.stringify({ success: true, error: '', charged: result.charged, schedule: result.schedule, transaction: result.transaction }),
        );
      },
    );
  };
}
