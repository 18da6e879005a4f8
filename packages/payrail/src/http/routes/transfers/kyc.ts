// GET /api/kyc/:account: a receiver's verification status and per-transfer limit.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { kycStatus } from '../../../flows/transfers/kyc.ts';
import type { Service } from '../../../service.ts';
import { AccountParams, KycResponse } from '../../schemas/transfers.ts';
import { transferAuth } from '../../auth-hooks.ts';

export function kycRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/kyc/:account',
      {
        schema: {
          operationId: 'getReceiverKyc',
          summary: "Read a receiver's verification and per-transfer limit",
          errors: ['invalid_phone_number', 'account_not_found', 'service_unavailable'],
          params: AccountParams,
          response: { 200: KycResponse },
        },
        onRequest: transferAuth(service),
      },
      async (request) => ({
        success: true as const,
        error: '' as const,
        ...(await kycStatus(service, request.params.account)),
      }),
    );
  };
}
