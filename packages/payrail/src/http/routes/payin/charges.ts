// The charge API: POST /api/v2/transactions/charge and
// GET /api/v2/transactions/:id (the charge answer in the spec dialect, the
// bare transaction object in the accept.blue dialect), with HTTP Basic
// (source API key and PIN).
// Replies are sent as the JSON text the flow produced, so an idempotent
// replay is exactly the first reply.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { chargeDepsOf, createChargeFlow } from '../../../flows/payin/charge.ts';
import { acceptBlueTransactionJson } from '../../../flows/payin/transactions.ts';
import type { Service } from '../../../service.ts';
import { keepRawJson, rawMemberText } from '../../raw-json.ts';
import { ChargeHeaders, ChargeRequest, ChargeResponse, PAYIN_REFUSALS, TransactionParams } from '../../schemas/payin.ts';
import { zeroExpiryIsAbsent } from '../../acceptblue-expiry.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { TransactionAnswer } from '../../schemas/transaction-lists.ts';
import { readerOf, sendJson } from './transactions.ts';
import { idempotencyKeyOf, sendReply } from '../../idempotent-replies.ts';

const REFUSALS = PAYIN_REFUSALS;

export function payinChargeRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    keepRawJson(app);
    const flow = createChargeFlow(chargeDepsOf(service));
    // Credentials are checked on request, before the body is validated: an
    // unauthenticated caller learns nothing about the body rules.
    const authenticate = basicAuth(service);

    app.post(
      '/api/v2/transactions/charge',
      {
        schema: {
          operationId: 'chargeCard',
          summary: 'Charge a card by nonce, or a bank account (a check: routing_number, account_number, name)',
          errors: [
            'invalid_nonce',
            'invalid_card',
            'invalid_amount',
            'idempotency_key_reused',
            'not_found',
            'reference_card_not_kept',
            'not_offered',
            'service_unavailable',
            'check_payments_unavailable',
          ],
          body: ChargeRequest,
          headers: ChargeHeaders,
          response: { 200: ChargeResponse, ...REFUSALS },
        },
        onRequest: authenticate,
        preValidation: [acceptBlueRequests(ChargeRequest), zeroExpiryIsAbsent],
      },
      async (request, reply) => {
        const principal = request.principal!;
        if (principal.sourceId === null) throw new Error('a source API key without a source');
        const result = await flow.charge(
          // The answer is written in the caller's dialect, kept with the charge.
          { merchantId: principal.merchantId, sourceId: principal.sourceId, wireDialect: principal.dialect },
          {
            request: request.body,
            amountText: request.rawJson === undefined ? null : rawMemberText(request.rawJson, 'amount'),
            idempotencyKey: idempotencyKeyOf(request),
          },
        );
        return sendReply(reply, result);
      },
    );

    app.get(
      '/api/v2/transactions/:id',
      {
        schema: {
          operationId: 'getTransaction',
          summary: 'Read a card transaction by its reference number',
          errors: ['not_found'],
          params: TransactionParams,
          response: { 200: TransactionAnswer, ...REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request, reply) => {
        const reader = readerOf(request);
        // accept.blue answers the bare transaction object (status_details at its top level); the spec dialect the charge answer.
        if (reader.wireDialect === 'acceptblue') return sendJson(reply, await acceptBlueTransactionJson(service, reader.merchantId, request.params.id));
        return sendReply(reply, await flow.read(reader.merchantId, request.params.id));
      },
    );
  };
}
