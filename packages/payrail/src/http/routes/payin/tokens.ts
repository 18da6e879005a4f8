// POST /api/v2/tokens: card tokenization with a source's public
// tokenization token (Bearer). The only endpoint with CORS: browsers on a
// merchant's page (or the hosted card form) call it directly, with no
// cookies, so any origin may. The preflight is answered here too.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Secret } from '../../../domain/secret.ts';
import { tokenizeCard, tokenizeDepsOf } from '../../../flows/payin/tokenize.ts';
import type { Service } from '../../../service.ts';
import { PAYIN_REFUSALS, TokenRequest, TokenResponse } from '../../schemas/payin.ts';
import { tokenizationAuth } from '../../auth-hooks.ts';

export const TOKENS_PATH = '/api/v2/tokens';
const PREFLIGHT_MAX_AGE_S = 600;

function allowAnyOrigin(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', 'x-request-id');
}

export function payinTokenRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const deps = tokenizeDepsOf(service);
    const authenticate = tokenizationAuth(service);

    app.options(TOKENS_PATH, async (_request, reply) => {
      allowAnyOrigin(reply);
      reply.header('access-control-allow-methods', 'POST, OPTIONS');
      reply.header('access-control-allow-headers', 'Authorization, Content-Type, X-Request-Id');
      reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_S));
      return reply.code(204).send();
    });

    app.post(
      TOKENS_PATH,
      {
        schema: {
          operationId: 'createCardToken',
          summary: 'Tokenize a card into a single-use nonce',
          errors: ['invalid_card'],
          body: TokenRequest,
          response: { 200: TokenResponse, ...PAYIN_REFUSALS },
        },
        // CORS headers first, so a browser can read refusals too; then the
        // credential, before the body is even validated.
        onRequest: [async (_request, reply) => allowAnyOrigin(reply), authenticate],
      },
      async (request) => {
        const principal = request.principal!;
        if (principal.sourceId === null) throw new Error('a tokenization token without a source');
        const body = request.body;
        return tokenizeCard(
          deps,
          { merchantId: principal.merchantId, sourceId: principal.sourceId },
          { cardNumber: new Secret(body.card_number), expiryMonth: body.expiry_month, expiryYear: body.expiry_year, cvv: new Secret(body.cvv2) },
        );
      },
    );
  };
}
