// Stored customers and their saved cards on the payin API
// (docs/api-decisions.md section 15): /api/v2/customers,
// /api/v2/customers/:id/payment-methods and /api/v2/payment-methods/:id.
// Basic auth (source API key and PIN) and shape C refusals, as the charge
// API; everything is scoped to the caller's merchant.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  changeCustomer,
  changePaymentMethod,
  createCustomer,
  customerTransactionsJson,
  listCustomerMethods,
  listCustomerViews,
  readCustomer,
  readPaymentMethod,
  removeCustomer,
  removePaymentMethod,
  saveCard,
} from '../../../flows/vault/customers.ts';
import type { Owner } from '../../../flows/vault/stored-common.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { createdView, idempotencyKeyOf } from '../../idempotent-replies.ts';
import { acceptBlueQuery } from '../../dialect-queries.ts';
import { ChargeHeaders, PageQuery, PAYIN_REFUSALS } from '../../schemas/payin.ts';
import { TransactionListAnswer, TransactionListQuery } from '../../schemas/transaction-lists.ts';
import { readerOf } from '../payin/transactions.ts';
import {
  Customer,
  CustomerCreate,
  CustomerList,
  CustomerListQuery,
  CustomerUpdate,
  DuplicatePaymentMethod,
  IdParams,
  PaymentMethod,
  PaymentMethodCreate,
  PaymentMethodList,
  PaymentMethodUpdate,
} from '../../schemas/stored.ts';

export const STORED_REFUSALS = PAYIN_REFUSALS;
const NO_CONTENT = { 204: { type: 'null', description: 'Deleted' } };

/** Sends JSON text the flow rendered (transaction lists, as GET /api/v2/transactions/:id renders each). */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(json);
}

export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

export function ownerOf(request: FastifyRequest): Owner {
  const principal = request.principal!;
  if (principal.sourceId === null) throw new Error('a source API key without a source');
  return { merchantId: principal.merchantId, sourceId: principal.sourceId };
}

export function customerRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const onRequest = basicAuth(service);

    app.post(
      '/api/v2/customers',
      {
        schema: {
          operationId: 'createCustomer',
          errors: ['idempotency_key_reused'],
          summary: 'Create a stored customer',
          headers: ChargeHeaders,
          body: CustomerCreate,
          response: { 200: Customer, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request, reply) => createdView(reply, await createCustomer(service, ownerOf(request), request.body, idempotencyKeyOf(request))),
    );
    app.get(
      '/api/v2/customers',
      {
        schema: {
          operationId: 'listCustomers',
          errors: [],
          summary: "List the merchant's customers (filter by active, customer_number)",
          querystring: CustomerListQuery,
          response: { 200: CustomerList, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => listCustomerViews(service, ownerOf(request), request.query),
    );
    app.get(
      '/api/v2/customers/:id',
      {
        schema: {
          operationId: 'getCustomer',
          errors: ['not_found'],
          summary: 'Read a customer',
          params: IdParams,
          response: { 200: Customer, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => readCustomer(service, ownerOf(request), request.params.id),
    );
    app.patch(
      '/api/v2/customers/:id',
      {
        schema: {
          operationId: 'updateCustomer',
          errors: ['not_found'],
          summary: 'Update a customer',
          params: IdParams,
          body: CustomerUpdate,
          response: { 200: Customer, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => changeCustomer(service, ownerOf(request), request.params.id, request.body),
    );
    app.delete(
      '/api/v2/customers/:id',
      {
        schema: {
          operationId: 'deleteCustomer',
          errors: ['not_found'],
          summary: 'Delete a customer: its saved cards are erased and its schedules stopped',
          params: IdParams,
          response: { ...NO_CONTENT, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request, reply) => {
        await removeCustomer(service, ownerOf(request), request.params.id);
        return noContent(reply);
      },
    );
    app.get(
      '/api/v2/customers/:id/transactions',
      {
        schema: {
          operationId: 'listCustomerTransactions',
          errors: ['not_found'],
          summary: "List a customer's transactions (spec: newest first; acceptblue: oldest first, bare transaction objects)",
          params: IdParams,
          querystring: TransactionListQuery,
          response: { 200: TransactionListAnswer, ...STORED_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueQuery(TransactionListQuery),
      },
      async (request, reply) => sendJsonText(reply, await customerTransactionsJson(service, readerOf(request), request.params.id, request.query)),
    );

    app.post(
      '/api/v2/customers/:id/payment-methods',
      {
        schema: {
          operationId: 'createPaymentMethod',
          errors: ['not_found', 'invalid_nonce', 'invalid_card', 'duplicate_payment_method', 'idempotency_key_reused'],
          summary: "Save a card for a customer from a nonce (the same card twice: 409 with the existing method's id)",
          params: IdParams,
          headers: ChargeHeaders,
          body: PaymentMethodCreate,
          response: { 200: PaymentMethod, ...STORED_REFUSALS, 409: DuplicatePaymentMethod },
        },
        onRequest,
      },
      async (request, reply) => createdView(reply, await saveCard(service, ownerOf(request), request.params.id, request.body, idempotencyKeyOf(request))),
    );
    app.get(
      '/api/v2/customers/:id/payment-methods',
      {
        schema: {
          operationId: 'listPaymentMethods',
          errors: ['not_found'],
          summary: "List a customer's saved cards",
          params: IdParams,
          querystring: PageQuery,
          response: { 200: PaymentMethodList, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => listCustomerMethods(service, ownerOf(request), request.params.id, request.query),
    );
    app.get(
      '/api/v2/payment-methods/:id',
      {
        schema: {
          operationId: 'getPaymentMethod',
          errors: ['not_found'],
          summary: 'Read a saved card',
          params: IdParams,
          response: { 200: PaymentMethod, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => readPaymentMethod(service, ownerOf(request), request.params.id),
    );
    app.patch(
      '/api/v2/payment-methods/:id',
      {
        schema: {
          operationId: 'updatePaymentMethod',
          errors: ['not_found', 'invalid_card'],
          summary: "Update a saved card's name or expiry",
          params: IdParams,
          body: PaymentMethodUpdate,
          response: { 200: PaymentMethod, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => changePaymentMethod(service, ownerOf(request), request.params.id, request.body),
    );
    app.delete(
      '/api/v2/payment-methods/:id',
      {
        schema: {
          operationId: 'deletePaymentMethod',
          errors: ['not_found'],
          summary: 'Delete a saved card: its card data is erased and schedules charging it stop',
          params: IdParams,
          response: { ...NO_CONTENT, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request, reply) => {
        await removePaymentMethod(service, ownerOf(request), request.params.id);
        return noContent(reply);
      },
    );
  };
}
