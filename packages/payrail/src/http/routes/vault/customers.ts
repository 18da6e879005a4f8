// Stored customers and their saved cards on the payin API
// (docs/api-decisions.md section 15, accept.blue's in section 16):
// /api/v2/customers, /api/v2/customers/create-from-transaction,
// /api/v2/customers/:id/payment-methods, /api/v2/payment-methods and
// /api/v2/payment-methods/:id. Basic auth (source API key and PIN),
// refusals in the caller's dialect, creations answer 201; everything is
// scoped to the caller's merchant.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ACCEPTBLUE_API_VERSION } from '../../../domain/wire-dialect.ts';
import { createCustomerFromTransaction } from '../../../flows/vault/customer-from-transaction.ts';
import {
  changeCustomer,
  createCustomer,
  customerTransactionsJson,
  DuplicateMethodError,
  listCustomerMethods,
  listCustomerViews,
  listMerchantMethods,
  methodViewFor,
  readCustomer,
  readPaymentMethod,
  removeCustomer,
  removePaymentMethod,
} from '../../../flows/vault/customers.ts';
import { changeAnyPaymentMethod, savePaymentMethod } from '../../../flows/vault/check-methods.ts';
import type { Owner } from '../../../flows/vault/stored-common.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { refusalDialectOf } from '../../errors.ts';
import { createdView, idempotencyKeyOf } from '../../idempotent-replies.ts';
import { acceptBlueQuery } from '../../dialect-queries.ts';
import { ChargeHeaders, PAYIN_REFUSALS, PayinRefusal } from '../../schemas/payin.ts';
import { TransactionListAnswer, TransactionListQuery } from '../../schemas/transaction-lists.ts';
import { readerOf } from '../payin/transactions.ts';
import {
  AcceptBlueDuplicatePaymentMethod,
  AcceptBluePaymentMethodCreate,
  Customer,
  CustomerCreate,
  CustomerFromTransaction,
  CustomerList,
  CustomerListQuery,
  CustomerUpdate,
  DuplicatePaymentMethod,
  IdParams,
  PaymentMethod,
  PaymentMethodCreate,
  PaymentMethodList,
  PaymentMethodUpdate,
  StoredPageQuery,
} from '../../schemas/stored.ts';

export const STORED_REFUSALS = PAYIN_REFUSALS;
/** A payment method's 409: the duplicate in either dialect's body, or another refusal. */
const DUPLICATE_REFUSAL = { 409: Type.Union([DuplicatePaymentMethod, AcceptBlueDuplicatePaymentMethod, PayinRefusal]) };
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
  // The caller's wire dialect, as its refusals are written.
  const wireDialect = refusalDialectOf(request) === 'acceptblue' ? 'acceptblue' : 'spec';
  return { merchantId: principal.merchantId, sourceId: principal.sourceId, wireDialect };
}

/**
 * Runs a payment method's save or change; a duplicate answers 409 in the
 * accept.blue dialect as accept.blue does (the existing method whole under
 * error_details), in the spec dialect as the error handler writes it.
 */
async function answeringDuplicates<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DuplicateMethodError) || refusalDialectOf(request) !== 'acceptblue') throw error;
    const body = {
      version: ACCEPTBLUE_API_VERSION,
      status: 'Error',
      status_code: 'E',
      error_message: 'Invalid state error',
      error_code: error.code,
      error_details: {
        error: 'A payment method with these details already exists for this customer',
        payment_method: methodViewFor('acceptblue')(error.existing),
      },
    };
    return reply.code(409).type('application/json; charset=utf-8').send(JSON.stringify(body));
  }
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
          response: { 201: Customer, ...STORED_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(CustomerCreate),
      },
      async (request, reply) => createdView(reply, await createCustomer(service, ownerOf(request), request.body, idempotencyKeyOf(request))),
    );
    app.post(
      '/api/v2/customers/create-from-transaction',
      {
        schema: {
          operationId: 'createCustomerFromTransaction',
          errors: ['not_found', 'idempotency_key_reused'],
          summary: "Create a customer from a transaction's billing details; links the transaction when it had no customer",
          headers: ChargeHeaders,
          body: CustomerFromTransaction,
          response: { 201: Customer, ...STORED_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(CustomerFromTransaction, { integerText: ['reference_number'] }),
      },
      async (request, reply) => createdView(reply, await createCustomerFromTransaction(service, ownerOf(request), request.body, idempotencyKeyOf(request))),
    );
    app.get(
      '/api/v2/customers',
      {
        schema: {
          operationId: 'listCustomers',
          errors: [],
          summary: "List the merchant's customers (filter by active, customer_number; order, limit, offset)",
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
        preValidation: acceptBlueRequests(CustomerUpdate),
      },
      async (request) => changeCustomer(service, ownerOf(request), request.params.id, request.body),
    );
    app.delete(
      '/api/v2/customers/:id',
      {
        schema: {
          operationId: 'deleteCustomer',
          errors: ['not_found', 'linked_to_active_schedules'],
          summary: 'Delete a customer: its saved cards are erased and its schedules stopped (accept.blue dialect: 409 while a schedule is active)',
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
          errors: ['not_found', 'invalid_nonce', 'invalid_card', 'reference_card_not_kept', 'duplicate_payment_method', 'idempotency_key_reused'],
          summary:
            'Save a card for a customer from a nonce or ref- source, or a check from name, routing_number, account_number, account_type and sec_code (the same card with the same expiry, or the same bank account, twice: 409 naming the existing method)',
          params: IdParams,
          headers: ChargeHeaders,
          body: PaymentMethodCreate,
          response: { 201: PaymentMethod, ...STORED_REFUSALS, ...DUPLICATE_REFUSAL },
        },
        onRequest,
        preValidation: acceptBlueRequests(AcceptBluePaymentMethodCreate),
      },
      async (request, reply) =>
        answeringDuplicates(request, reply, async () =>
          createdView(reply, await savePaymentMethod(service, ownerOf(request), request.params.id, request.body, idempotencyKeyOf(request))),
        ),
    );
    app.get(
      '/api/v2/payment-methods',
      {
        schema: {
          operationId: 'listAllPaymentMethods',
          errors: [],
          summary: 'List every saved card and check of the merchant (order, limit, offset)',
          querystring: StoredPageQuery,
          response: { 200: PaymentMethodList, ...STORED_REFUSALS },
        },
        onRequest,
      },
      async (request) => listMerchantMethods(service, ownerOf(request), request.query),
    );
    app.get(
      '/api/v2/customers/:id/payment-methods',
      {
        schema: {
          operationId: 'listPaymentMethods',
          errors: ['not_found'],
          summary: "List a customer's saved cards and checks (order, limit, offset)",
          params: IdParams,
          querystring: StoredPageQuery,
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
          summary: 'Read a saved card or check',
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
          errors: ['not_found', 'invalid_card', 'duplicate_payment_method'],
          summary:
            "Update a saved card's name, expiry or AVS address (another method's card and expiry: 409), or a saved check's name, routing_number, account_type or sec_code (never its account_number)",
          params: IdParams,
          body: PaymentMethodUpdate,
          response: { 200: PaymentMethod, ...STORED_REFUSALS, ...DUPLICATE_REFUSAL },
        },
        onRequest,
        preValidation: acceptBlueRequests(PaymentMethodUpdate),
      },
      async (request, reply) => answeringDuplicates(request, reply, () => changeAnyPaymentMethod(service, ownerOf(request), request.params.id, request.body)),
    );
    app.delete(
      '/api/v2/payment-methods/:id',
      {
        schema: {
          operationId: 'deletePaymentMethod',
          errors: ['not_found', 'linked_to_active_schedules'],
          summary:
            'Delete a saved card or check: its card or account number is erased and schedules charging it stop (accept.blue dialect: 409 while one is active)',
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
