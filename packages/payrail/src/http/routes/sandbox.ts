// Sandbox-only calls of the transfer API (docs/api-decisions.md section 6): a receiver
// accepts a payment invitation, or completes KYC; and the merchant's open
// settlement batch closes at once (section 10). API-KEY auth, no body,
// `{"success":true,"error":""}`. Refused in production before anything else,
// so there they read as calls that do not exist.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fail } from '../../errors.ts';
import { acceptInvitation, verifyKyc } from '../../flows/transfers/sandbox.ts';
import type { Service } from '../../service.ts';
import { AccountParams, SandboxActionResponse } from '../schemas/transfers.ts';
import { SandboxBatchCloseResponse } from '../schemas/payin.ts';
import { closeOpenBatches } from '../../flows/payin/batches.ts';
import { transferAuth } from '../auth-hooks.ts';

export function sandboxRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const sandboxOnly = async () => {
      if (service.config.environment !== 'sandbox') fail('sandbox_only');
    };
    const onRequest = [sandboxOnly, transferAuth(service)];
    const schemaOf = (operationId: string, summary: string) => ({
      operationId,
      summary,
      errors: ['sandbox_only', 'invalid_phone_number', 'account_not_found'] as const,
      params: AccountParams,
      response: { 200: SandboxActionResponse },
    });

    app.post(
      '/sandbox/invitations/:account/accept',
      { schema: schemaOf('sandboxAcceptInvitation', 'Sandbox: the receiver accepts a payment invitation'), onRequest },
      async (request) => {
        await acceptInvitation(service, request.params.account);
        return { success: true as const, error: '' as const };
      },
    );

    app.post(
      '/sandbox/kyc/:account/verify',
      { schema: schemaOf('sandboxCompleteKyc', 'Sandbox: the receiver completes verification'), onRequest },
      async (request) => {
        await verifyKyc(service, request.params.account);
        return { success: true as const, error: '' as const };
      },
    );

    // docs/api-decisions.md section 10: close the merchant's open settlement batch at once, as the daily close would.
    app.post(
      '/sandbox/batches/close',
      {
        schema: {
          operationId: 'sandboxCloseBatch',
          summary: "Sandbox: close the merchant's open settlement batch now",
          errors: ['sandbox_only'],
          response: { 200: SandboxBatchCloseResponse },
        },
        onRequest,
      },
      async (request) => {
        const batches = await closeOpenBatches(service, request.principal!.merchantId);
        return { success: true as const, error: '' as const, batches };
      },
    );
  };
}
