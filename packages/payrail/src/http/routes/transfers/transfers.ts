// The transfer API's transfer endpoints: POST /api/checkTransfer,
// POST /api/transfer, GET /api/status/:id and the transfer list
// GET /api/transfers (a Payrail extension), with the API-KEY header.
// Credentials are checked on request, before the body is validated, so an
// unauthenticated caller learns nothing about the body rules.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkTransfer } from '../../../flows/transfers/check.ts';
import { executeTransfer } from '../../../flows/transfers/execute.ts';
import { listMerchantTransfers } from '../../../flows/transfers/list.ts';
import { transferStatus } from '../../../flows/transfers/status.ts';
import type { Service } from '../../../service.ts';
import {
  CheckResponse,
  ExecuteResponse,
  StatusParams,
  StatusResponse,
  TransferListQuery,
  TransferListResponse,
  TransferRequest,
} from '../../schemas/transfers.ts';
import { transferAuth } from '../../auth-hooks.ts';

export function transferRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const authenticate = transferAuth(service);

    app.post(
      '/api/checkTransfer',
      {
        schema: {
          operationId: 'checkTransfer',
          summary: 'Validate a transfer and quote the rate (no money moves)',
          errors: ['invalid_amount', 'invalid_phone_number', 'kyc_not_verified', 'service_unavailable'],
          body: TransferRequest,
          response: { 200: CheckResponse },
        },
        onRequest: authenticate,
      },
      async (request) => {
        const result = await checkTransfer(service, request.principal!.merchantId, request.body);
        return {
          success: true as const,
          error: '' as const,
          attribute: [
            { name: 'fx_rate', value: result.fxRate },
            { name: 'receivedAmount', value: result.receivedAmount },
            { name: 'receiverStatus', value: result.receiverStatus },
          ],
        };
      },
    );

    app.post(
      '/api/transfer',
      {
        schema: {
          operationId: 'executeTransfer',
          summary: 'Execute a transfer',
          errors: ['invalid_amount', 'invalid_phone_number', 'kyc_not_verified', 'duplicate_transfer', 'insufficient_funds', 'service_unavailable'],
          body: TransferRequest,
          response: { 200: ExecuteResponse },
        },
        onRequest: authenticate,
      },
      async (request) => {
        const created = await executeTransfer(service, request.principal!.merchantId, request.body);
        return {
          success: true as const,
          error: '' as const,
          payment_response: { id: created.id, payment_id: null, state: String(created.state), substate: String(created.substate), code: '0' },
        };
      },
    );

    app.get(
      '/api/status/:id',
      {
        schema: { operationId: 'getTransferStatus', summary: 'Read a transfer status', errors: [], params: StatusParams, response: { 200: StatusResponse } },
        onRequest: authenticate,
      },
      async (request) => {
        const result = await transferStatus(service, request.principal!.merchantId, request.params.id);
        if (result === null) {
          // docs/interface-spec.md section 2.7: an unknown id (or another merchant's) answers in the execute shape with state -2.
          return {
            success: true as const,
            error: '' as const,
            payment_response: { id: request.params.id, payment_id: null, state: '-2', substate: '0', code: '0' },
          };
        }
        return { success: true as const, error: '' as const, status: { result } };
      },
    );

    app.get(
      '/api/transfers',
      {
        schema: {
          operationId: 'listTransfers',
          summary: "List the merchant's transfers, newest first",
          errors: [],
          querystring: TransferListQuery,
          response: { 200: TransferListResponse },
        },
        onRequest: authenticate,
      },
      async (request) => {
        const page = await listMerchantTransfers(service, request.principal!.merchantId, request.query);
        return { success: true as const, error: '' as const, ...page };
      },
    );
  };
}
