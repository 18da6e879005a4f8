// Receiver KYC lookup through the same flow as GET /api/kyc/:account, so a
// merchant user at the panel sees exactly what the API answers.
import type { FastifyPluginAsync } from 'fastify';
import { isApiError } from '../../errors.ts';
import { kycStatus } from '../../flows/transfers/kyc.ts';
import type { Service } from '../../service.ts';
import { context, queryField, sendPage } from '../request.ts';
import { kycBody, type KycOutcome } from '../views/kyc.ts';

const ACCOUNT_TEXT_LENGTH_MAX = 32;

export function kycRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/kyc', async (request, reply) => {
      // People paste numbers with spaces, dashes or brackets; the API form is digits with an optional +.
      const account = queryField(request, 'account')
        .slice(0, ACCOUNT_TEXT_LENGTH_MAX)
        .replace(/[\s().-]/g, '');
      let outcome: KycOutcome = { kind: 'none' };
      let status = 200;
      if (account !== '') {
        try {
          outcome = { kind: 'result', account, result: await kycStatus(service, account) };
        } catch (error) {
          if (!isApiError(error)) throw error;
          outcome = { kind: 'error', account, message: `${error.message} (${error.code}).` };
          status = error.status;
        }
      }
      return sendPage(reply, context(service, request), 'Receiver KYC', kycBody(outcome), status);
    });
  };
}
