// Reading card transactions and settlement batches on the payin API
// (docs/api-decisions.md sections 10 and 14): GET /api/v2/transactions (a
// JSON array, each item as GET /api/v2/transactions/:id shows it),
// GET /api/v2/batches, /batches/:id and /batches/:id/transactions. Basic
// auth; everything is scoped to the caller's merchant, so another merchant's
// batch reads as unknown (404 not_found).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { parseReferenceNumber } from '../../../domain/references.ts';
import { fail } from '../../../errors.ts';
import { batchList, batchOf, batchTransactions } from '../../../flows/payin/batches.ts';
import { parseListQuery, transactionListJson } from '../../../flows/payin/transactions.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { Batch, BatchList, BatchParams, PageQuery, PAYIN_REFUSALS, TransactionList, TransactionListQuery } from '../../schemas/payin.ts';

const REFUSALS = PAYIN_REFUSALS;

function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(json);
}

function batchIdOf(text: string): number {
  const id = parseReferenceNumber(text);
  if (id === null) fail('not_found', `batch ${text.slice(0, 40)} not found`);
  return id;
}

export function payinTransactionRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const authenticate = basicAuth(service);

    app.get(
      '/api/v2/transactions',
      {
        schema: {
          operationId: 'listTransactions',
          summary: "List the merchant's card transactions, newest first",
          errors: [],
          querystring: TransactionListQuery,
          response: { 200: TransactionList, ...REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request, reply) => sendJson(reply, await transactionListJson(service, request.principal!.merchantId, request.query)),
    );

    app.get(
      '/api/v2/batches',
      {
        schema: {
          operationId: 'listBatches',
          summary: "List the merchant's settlement batches, newest first",
          errors: [],
          querystring: PageQuery,
          response: { 200: BatchList, ...REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request) => batchList(service, request.principal!.merchantId, parseListQuery(request.query).page),
    );

    app.get(
      '/api/v2/batches/:id',
      {
        schema: {
          operationId: 'getBatch',
          summary: 'Read a settlement batch',
          errors: ['not_found'],
          params: BatchParams,
          response: { 200: Batch, ...REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request) => batchOf(service, request.principal!.merchantId, batchIdOf(request.params.id)),
    );

    app.get(
      '/api/v2/batches/:id/transactions',
      {
        schema: {
          operationId: 'listBatchTransactions',
          summary: 'List the transactions of a settlement batch, newest first',
          errors: ['not_found'],
          params: BatchParams,
          querystring: PageQuery,
          response: { 200: TransactionList, ...REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request, reply) =>
        sendJson(reply, await batchTransactions(service, request.principal!.merchantId, batchIdOf(request.params.id), parseListQuery(request.query).page)),
    );
  };
}
