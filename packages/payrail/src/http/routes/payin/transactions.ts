// Reading card transactions and settlement batches on the payin API
// (docs/api-decisions.md sections 10 and 14, docs/acceptblue-compatibility.md):
// GET /api/v2/transactions (a JSON array, each item as
// GET /api/v2/transactions/:id shows it in the caller's dialect),
// GET /api/v2/batches, /batches/:id and /batches/:id/transactions. Basic
// auth; everything is scoped to the caller's merchant, so another merchant's
// batch reads as unknown (404 not_found).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseReferenceNumber } from '../../../domain/references.ts';
import { fail } from '../../../errors.ts';
import { batchList, batchOf } from '../../../flows/payin/batches.ts';
import { type TransactionReader, transactionListJson } from '../../../flows/payin/transactions.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { acceptBlueQuery } from '../../dialect-queries.ts';
import { BatchParams, PAYIN_REFUSALS } from '../../schemas/payin.ts';
import { BatchAnswer, BatchListAnswer, BatchListQuery, TransactionListAnswer, TransactionListQuery } from '../../schemas/transaction-lists.ts';

const REFUSALS = PAYIN_REFUSALS;

/** Sends JSON text the flow rendered (the answers differ by dialect, so no one response schema serializes them). */
export function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(json);
}

/** The authenticated caller as a reader of its merchant's transactions, in its dialect. */
export function readerOf(request: FastifyRequest): TransactionReader {
  const principal = request.principal!;
  return { merchantId: principal.merchantId, wireDialect: principal.dialect };
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
          summary: "List the merchant's card transactions (spec: newest first; acceptblue: oldest first, bare transaction objects)",
          errors: [],
          querystring: TransactionListQuery,
          response: { 200: TransactionListAnswer, ...REFUSALS },
        },
        onRequest: authenticate,
        preValidation: acceptBlueQuery(TransactionListQuery),
      },
      async (request, reply) => sendJson(reply, await transactionListJson(service, readerOf(request), { of: 'merchant' }, request.query)),
    );

    app.get(
      '/api/v2/batches',
      {
        schema: {
          operationId: 'listBatches',
          summary: "List the merchant's settlement batches (spec: newest first; acceptblue: oldest first, accept.blue's Batch)",
          errors: [],
          querystring: BatchListQuery,
          response: { 200: BatchListAnswer, ...REFUSALS },
        },
        onRequest: authenticate,
        preValidation: acceptBlueQuery(BatchListQuery),
      },
      async (request, reply) => sendJson(reply, JSON.stringify(await batchList(service, readerOf(request), request.query))),
    );

    app.get(
      '/api/v2/batches/:id',
      {
        schema: {
          operationId: 'getBatch',
          summary: 'Read a settlement batch',
          errors: ['not_found'],
          params: BatchParams,
          response: { 200: BatchAnswer, ...REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request, reply) => sendJson(reply, JSON.stringify(await batchOf(service, readerOf(request), batchIdOf(request.params.id)))),
    );

    app.get(
      '/api/v2/batches/:id/transactions',
      {
        schema: {
          operationId: 'listBatchTransactions',
          summary: 'List the transactions of a settlement batch (spec: newest first; acceptblue: oldest first)',
          errors: ['not_found'],
          params: BatchParams,
          querystring: TransactionListQuery,
          response: { 200: TransactionListAnswer, ...REFUSALS },
        },
        onRequest: authenticate,
        preValidation: acceptBlueQuery(TransactionListQuery),
      },
      async (request, reply) =>
        sendJson(reply, await transactionListJson(service, readerOf(request), { of: 'batch', batchId: batchIdOf(request.params.id) }, request.query)),
    );
  };
}
