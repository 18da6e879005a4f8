// The card transaction lifecycle on the payin API (docs/api-decisions.md
// sections 10 and 14, docs/acceptblue-compatibility.md): POST
// /api/v2/transactions/capture, /void, /refund, /reversal, /adjust,
// /adjust-capture, /queue and /verify. Basic auth and the charge's
// envelopes: a processed outcome answers 200 with shape A or B (the accept.blue
// dialect: that operation's accept.blue answer, flows/payin/operation-answers.ts),
// a rejected request 400 (404 not_found) with the caller's refusal body.
// Every POST honours an Idempotency-Key. Replies are sent as the JSON text
// the flow produced, so a replay is exactly the first.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createCardLifecycleFlow, type Caller } from '../../../flows/payin/card-lifecycle.ts';
import { createVerifyFlow, verifyDepsOf } from '../../../flows/payin/verify.ts';
import { creditDepsOf, operationDepsOf } from '../../../flows/payin/operation-common.ts';
import { credit } from '../../../flows/payin/credit.ts';
import { checkDepsFor } from '../../../flows/ach/check-charge.ts';
import type { ErrorName } from '../../../errors.ts';
import type { Service } from '../../../service.ts';
import { zeroExpiryIsAbsent } from '../../acceptblue-expiry.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { idempotencyKeyOf, sendReply } from '../../idempotent-replies.ts';
import { keepRawJson, rawMemberText } from '../../raw-json.ts';
import { ChargeHeaders, ChargeResponse, PAYIN_REFUSALS, PayinRefusal, VerifyRequest } from '../../schemas/payin.ts';
import {
  AdjustTransactionRequest,
  CaptureResponse,
  CreditTransactionRequest,
  CaptureTransactionRequest,
  QueueTransactionRequest,
  RefundResponse,
  RefundTransactionRequest,
  ReversalResponse,
  ReversalTransactionRequest,
  VoidResponse,
  VoidTransactionRequest,
} from '../../schemas/payin-operations.ts';
import { type AnsweredOperation, operationAnswerIn } from '../../../flows/payin/operation-answers.ts';
import type { AdjustDetails } from '../../../flows/payin/adjust.ts';
import type { Reply } from '../../../flows/common/idempotency-replay.ts';
import { ApiError } from '../../../errors.ts';

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
    errors: ['not_found', 'invalid_amount', 'insufficient_funds', 'idempotency_key_reused', 'check_payments_unavailable'],
  },
  refund: {
    operationId: 'refundTransaction',
    summary: 'Refund a settled transaction, in full or in part (a transaction of its own); a check from five business days after it was processed',
    errors: ['not_found', 'invalid_amount', 'insufficient_funds', 'idempotency_key_reused', 'check_payments_unavailable'],
  },
  reversal: {
    operationId: 'reverseTransaction',
    summary: 'Void when unsettled, refund when settled',
    errors: ['not_found', 'invalid_amount', 'insufficient_funds', 'idempotency_key_reused', 'check_payments_unavailable'],
  },
  adjust: {
    operationId: 'adjustTransaction',
    summary: "Change an unsettled transaction's amount (an authorization's, downward) or details, once",
    errors: ['not_found', 'invalid_amount', 'idempotency_key_reused'],
  },
  'adjust-capture': {
    operationId: 'adjustCaptureTransaction',
    summary: 'Adjust an authorization, then capture it (the adjusted amount)',
    errors: ['not_found', 'invalid_amount', 'idempotency_key_reused'],
  },
  credit: {
    operationId: 'creditCard',
    summary: 'Send money to a card or bank account no charge names (an unmatched credit); debits the merchant like a refund',
    errors: [
      'invalid_request',
      'invalid_amount',
      'invalid_nonce',
      'invalid_card',
      'not_found',
      'reference_card_not_kept',
      'insufficient_funds',
      'idempotency_key_reused',
      'check_payments_unavailable',
    ],
  },
  queue: {
    operationId: 'queueTransaction',
    summary: 'Keep an authorization out of the open batch (an uncaptured authorization already is: 204, nothing changes)',
    errors: ['not_found', 'invalid_state'],
  },
  verify: {
    operationId: 'verifyCard',
    summary: 'Check a card with a zero amount: AVS and CVV results, no money',
    errors: ['invalid_nonce', 'invalid_card', 'idempotency_key_reused', 'not_offered'],
  },
} as const satisfies Record<string, { operationId: string; summary: string; errors: readonly ErrorName[] }>;

export function payinLifecycleRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    keepRawJson(app);
    // Checks (behaviour section 17) share these routes: their operations go to flows/ach through the same flows.
    const checks = checkDepsFor(service);
    const flow = createCardLifecycleFlow(operationDepsOf(service), checks);
    const verifyFlow = createVerifyFlow(verifyDepsOf(service));
    // Credentials are checked on request, before the body is validated.
    const authenticate = basicAuth(service);
    const schemaOf = (docs: (typeof DOCS)[keyof typeof DOCS], body: unknown, ok: unknown) => ({
      ...docs,
      body,
      headers: ChargeHeaders,
      response: { 200: ok, ...REFUSALS },
    });
    /** The reply as the caller's dialect answers it. */
    const answer = (request: FastifyRequest, reply: FastifyReply, operation: AnsweredOperation, result: Reply, pk: number) => {
      const { dialect } = request.principal!;
      return sendReply(reply, operationAnswerIn(dialect, operation, result, pk));
    };
    /** The amount exactly as sent: accept.blue's decimal text ("10.00"), else the JSON number's own text. */
    const amountTextOf = (request: FastifyRequest): string | null =>
      request.decimalText?.amount ?? (request.rawJson === undefined ? null : rawMemberText(request.rawJson, 'amount'));
    const inputOf = (request: FastifyRequest, body: { reference_number: number; amount?: number | undefined }) => ({
      referenceNumber: body.reference_number,
      amount: body.amount,
      amountText: amountTextOf(request),
      idempotencyKey: idempotencyKeyOf(request),
    });

    app.post(
      '/api/v2/transactions/capture',
      {
        schema: schemaOf(DOCS.capture, CaptureTransactionRequest, CaptureResponse),
        onRequest: authenticate,
        preValidation: acceptBlueRequests(CaptureTransactionRequest, { integerText: ['reference_number'] }),
      },
      async (request, reply) => {
        const body = request.body as CaptureTransactionRequest;
        return answer(request, reply, 'capture', await flow.capture(callerOf(request), inputOf(request, body)), body.reference_number);
      },
    );

    app.post(
      '/api/v2/transactions/void',
      {
        schema: schemaOf(DOCS.void, VoidTransactionRequest, VoidResponse),
        onRequest: authenticate,
        preValidation: acceptBlueRequests(VoidTransactionRequest, { integerText: ['reference_number'] }),
      },
      async (request, reply) => {
        const body = request.body as VoidTransactionRequest;
        return answer(request, reply, 'void', await flow.voidCharge(callerOf(request), inputOf(request, body)), body.reference_number);
      },
    );

    const moneyBack = [
      ['refund', RefundTransactionRequest, RefundResponse, flow.refund],
      ['reversal', ReversalTransactionRequest, ReversalResponse, flow.reversal],
    ] as const;
    for (const [name, schema, ok, run] of moneyBack) {
      app.post(
        `/api/v2/transactions/${name}`,
        {
          schema: schemaOf(DOCS[name], schema, ok),
          onRequest: authenticate,
          preValidation: acceptBlueRequests(schema, { integerText: ['reference_number'], decimalText: ['amount'] }),
        },
        async (request, reply) => {
          const body = request.body as RefundTransactionRequest | ReversalTransactionRequest;
          refuseTerminal(body.terminal_id);
          const input = { ...inputOf(request, body), details: refundDetailsOf(body) };
          return answer(request, reply, name, await run(callerOf(request), input), body.reference_number);
        },
      );
    }

    for (const name of ['adjust', 'adjust-capture'] as const) {
      app.post(
        `/api/v2/transactions/${name}`,
        {
          schema: schemaOf(DOCS[name], AdjustTransactionRequest, CaptureResponse),
          onRequest: authenticate,
          preValidation: acceptBlueRequests(AdjustTransactionRequest, { integerText: ['reference_number'] }),
        },
        async (request, reply) => {
          const body = request.body as AdjustTransactionRequest;
          const input = { ...inputOf(request, body), details: adjustDetailsOf(body) };
          const result = name === 'adjust' ? await flow.adjust(callerOf(request), input) : await flow.adjustCapture(callerOf(request), input);
          return answer(request, reply, name, result, body.reference_number);
        },
      );
    }

    const creditDeps = creditDepsOf(service);
    app.post(
      '/api/v2/transactions/credit',
      {
        schema: schemaOf(DOCS.credit, CreditTransactionRequest, RefundResponse),
        onRequest: authenticate,
        preValidation: acceptBlueRequests(CreditTransactionRequest),
      },
      async (request, reply) => {
        const body = request.body as CreditTransactionRequest;
        const result = await credit(
          creditDeps,
          callerOf(request),
          { body, amountText: amountTextOf(request), idempotencyKey: idempotencyKeyOf(request) },
          checks,
        );
        return answer(request, reply, 'credit', result, 0);
      },
    );

    app.post(
      '/api/v2/transactions/queue',
      {
        schema: {
          ...DOCS.queue,
          body: QueueTransactionRequest,
          response: { 204: { type: 'null', description: 'Queued (no body)' }, ...REFUSALS, 422: PayinRefusal },
        },
        onRequest: authenticate,
        preValidation: acceptBlueRequests(QueueTransactionRequest, { integerText: ['reference_number'] }),
      },
      async (request, reply) => {
        await flow.queue(callerOf(request), (request.body as QueueTransactionRequest).reference_number);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/api/v2/transactions/verify',
      {
        schema: schemaOf(DOCS.verify, VerifyRequest, ChargeResponse),
        onRequest: authenticate,
        preValidation: [acceptBlueRequests(VerifyRequest), zeroExpiryIsAbsent],
      },
      async (request, reply) => {
        // The answer is written in the caller's dialect, kept with the verification.
        const payer = { ...callerOf(request), wireDialect: request.principal!.dialect };
        const result = await verifyFlow.verify(payer, { request: request.body as VerifyRequest, idempotencyKey: idempotencyKeyOf(request) });
        return sendReply(reply, result);
      },
    );
  };
}

/** Card-present terminals are not offered: a request naming one is refused rather than carried out as a card-not-present operation. */
function refuseTerminal(terminalId: string | undefined): void {
  if (terminalId !== undefined) throw new ApiError('invalid_request', 'terminal_id: card-present terminals are not offered', undefined, 'terminal_id');
}

/** What a refund keeps of its request beside the refunded charge's: the customer, details and custom fields sent. */
function refundDetailsOf(body: RefundTransactionRequest | ReversalTransactionRequest): AdjustDetails {
  return {
    ...(body.customer === undefined ? {} : { customer: body.customer }),
    ...(body.transaction_details === undefined ? {} : { transaction_details: body.transaction_details }),
    ...('custom_fields' in body && body.custom_fields !== undefined ? { custom_fields: body.custom_fields } : {}),
  };
}

/** The details an adjust changes, as sent (absent members stay as they are). */
function adjustDetailsOf(body: AdjustTransactionRequest): AdjustDetails {
  const { reference_number: _pk, amount: _amount, ...details } = body;
  return details;
}
