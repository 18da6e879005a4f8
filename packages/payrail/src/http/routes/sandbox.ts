// Sandbox-only calls of the transfer API (docs/api-decisions.md section 6): a receiver
// accepts a payment invitation, or completes KYC; the merchant's open
// settlement batch closes at once (section 10); the merchant's ACH clock
// moves by business days (behaviour.md section 17). API-KEY auth, no body
// (the ACH clock's takes {business_days}),
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
import { advanceSandboxAchClock } from '../../flows/ach/sandbox-clock.ts';
import { SandboxAchAdvanceRequest, SandboxAchAdvanceResponse } from '../schemas/sandbox-ach.ts';

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

    // behaviour.md section 17: move the merchant's ACH clock by business days; its checks move as the sandbox network now reports them.
    app.post(
      '/sandbox/ach/advance',
      {
        schema: {
          operationId: 'sandboxAdvanceAchClock',
          summary: "Sandbox: move the merchant's ACH clock forward by business days and apply what its checks did meanwhile",
          errors: ['sandbox_only', 'invalid_request'],
          body: SandboxAchAdvanceRequest,
          response: { 200: SandboxAchAdvanceResponse },
        },
        onRequest,
      },
      async (request) => {
        const advanced = await advanceSandboxAchClock(service, { merchantId: request.principal!.merchantId, businessDays: request.body.business_days });
        return { success: true as const, error: '' as const, ...advanced };
      },
    );
  };
}
