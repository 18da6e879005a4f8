// The card transaction lifecycle on the payin API (docs/api-decisions.md
// sections 10 and 14): POST /api/v2/transactions/capture, /void, /refund,
// /reversal and /verify. Basic auth and the charge's envelopes: a processed
// outcome answers 200 with shape A or B, a rejected request 400 (404
// not_found) with shape C. Every POST honours an Idempotency-Key. Replies are
// sent as the JSON text the flow produced, so a replay is exactly the first.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { createCardLifecycleFlow, type Caller } from '../../../flows/payin/card-lifecycle.ts';
import { createVerifyFlow, verifyDepsOf } from '../../../flows/payin/verify.ts';
import { operationDepsOf } from '../../../flows/payin/operation-common.ts';
import type { ErrorName } from '../../../errors.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { idempotencyKeyOf, sendReply } from '../../idempotent-replies.ts';
import { keepRawJson, rawMemberText } from '../../raw-json.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { ChargeHeaders, ChargeResponse, OperationRequest, PAYIN_REFUSALS, VerifyRequest } from '../../schemas/payin.ts';

const REFUSALS = PAYIN_REFUSALS;

function callerOf(request: FastifyRequest): Caller {
  const principal = request.principal!;
  if (principal.sourceId === null) throw new Error('a source API key without a source');
  return { merchantId: principal.merchantId, sourceId: principal.sourceId };
}

/** How each operation is documented: its operationId, summary and the errors of its own. */
const DOCS = {
  capture: {
    operationId: 'captureTransaction',
    summary: 'Capture an authorization, in full or for less; credits the merchant',
    errors: ['not_found', 'invalid_amount', 'idempotency_key_reused'],
  },
  void: {
    operationId: 'voidTransaction',
    summary: 'Void an authorization or an unsettled capture (a capture gives its credit back)',
    errors: ['not_found', 'invalid_amount', 'insufficient_funds', 'idempotency_key_reused'],
  },
  refund: {
    operationId: 'refundTransaction',
    summary: 'Refund a settled transaction, in full or in part (a transaction of its own)',
    errors: ['not_found', 'invalid_amount', 'insufficient_funds', 'idempotency_key_reused'],
  },
  reversal: {
    operationId: 'reverseTransaction',
    summary: 'Void when unsettled, refund when settled',
    errors: ['not_found', 'invalid_amount', 'insufficient_funds', 'idempotency_key_reused'],
  },
  verify: {
    operationId: 'verifyCard',
    summary: 'Check a card with a zero amount: AVS and CVV results, no money',
    errors: ['invalid_nonce', 'invalid_card', 'idempotency_key_reused'],
  },
} as const satisfies Record<string, { operationId: string; summary: string; errors: readonly ErrorName[] }>;

export function payinLifecycleRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    keepRawJson(app);
    const flow = createCardLifecycleFlow(operationDepsOf(service));
    const verifyFlow = createVerifyFlow(verifyDepsOf(service));
    // Credentials are checked on request, before the body is validated.
    const authenticate = basicAuth(service);
    const schemaOf = (docs: (typeof DOCS)[keyof typeof DOCS], body: typeof OperationRequest | typeof VerifyRequest) => ({
      ...docs,
      body,
      headers: ChargeHeaders,
      response: { 200: ChargeResponse, ...REFUSALS },
    });

    const operations = [
      ['capture', flow.capture],
      ['void', flow.voidCharge],
      ['refund', flow.refund],
      ['reversal', flow.reversal],
    ] as const;
    for (const [name, run] of operations) {
      app.post(`/api/v2/transactions/${name}`, { schema: schemaOf(DOCS[name], OperationRequest), onRequest: authenticate }, async (request, reply) => {
        const body = request.body as OperationRequest;
        const result = await run(callerOf(request), {
          referenceNumber: body.reference_number,
          amount: body.amount,
          amountText: request.rawJson === undefined ? null : rawMemberText(request.rawJson, 'amount'),
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendReply(reply, result);
      });
    }

    const verifyOptions = { schema: schemaOf(DOCS.verify, VerifyRequest), onRequest: authenticate, preValidation: acceptBlueRequests(VerifyRequest) };
    app.post('/api/v2/transactions/verify', verifyOptions, async (request, reply) => {
      const result = await verifyFlow.verify(callerOf(request), { request: request.body as VerifyRequest, idempotencyKey: idempotencyKeyOf(request) });
      return sendReply(reply, result);
    });
  };
}
