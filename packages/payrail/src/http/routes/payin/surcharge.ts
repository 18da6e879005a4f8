// accept.blue's surcharge endpoints (docs/acceptblue-compatibility.md):
// GET /api/v2/surcharge, the caller's merchant's settings per payment type,
// and POST /api/v2/surcharge, the surcharge that would apply to a source.
// Basic auth; the same answers in both wire dialects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { lookupSurcharge, surchargeSettingsWire } from '../../../flows/payin/surcharge.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { PAYIN_REFUSALS } from '../../schemas/payin.ts';
import { SourceSurchargeRequest, SourceSurchargeResponse, SurchargeSettingsResponse } from '../../schemas/surcharge.ts';

export function payinSurchargeRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const authenticate = basicAuth(service);

    app.get(
      '/api/v2/surcharge',
      {
        schema: {
          operationId: 'getSurchargeSettings',
          summary: "The merchant's surcharge per payment type (card, check)",
          errors: [],
          response: { 200: SurchargeSettingsResponse, ...PAYIN_REFUSALS },
        },
        onRequest: authenticate,
      },
      async (request) => surchargeSettingsWire(service, request.principal!.merchantId),
    );

    app.post(
      '/api/v2/surcharge',
      {
        schema: {
          operationId: 'lookupSurcharge',
          summary: 'The surcharge that would apply to a card, card reference, payment method or earlier transaction',
          errors: ['not_found'],
          body: SourceSurchargeRequest,
          response: { 200: SourceSurchargeResponse, ...PAYIN_REFUSALS },
        },
        onRequest: authenticate,
        preValidation: acceptBlueRequests(SourceSurchargeRequest),
      },
      async (request) => lookupSurcharge(service, request.principal!.merchantId, request.body),
    );
  };
}
