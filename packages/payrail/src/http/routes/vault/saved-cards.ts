// Saved-card tokens: POST /api/v2/saved-cards and PATCH
// /api/v2/saved-cards/:cardRef (flows/vault/card-tokens.ts), with HTTP Basic
// (source API key and PIN), in both wire dialects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { changeSavedCard, createSavedCard } from '../../../flows/vault/card-tokens.ts';
import type { Service } from '../../../service.ts';
import { basicAuth } from '../../auth-hooks.ts';
import { acceptBlueRequests } from '../../dialect-requests.ts';
import { createdView, idempotencyKeyOf } from '../../idempotent-replies.ts';
import { ChargeHeaders, PAYIN_REFUSALS } from '../../schemas/payin.ts';
import { SavedCard, SavedCardCreate, SavedCardExpiry, SavedCardParams, SavedCardUpdate } from '../../schemas/saved-cards.ts';
import { ownerOf } from './customers.ts';

export function savedCardRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    const onRequest = basicAuth(service);
    app.post(
      '/api/v2/saved-cards',
      {
        schema: {
          operationId: 'createSavedCard',
          summary: 'Save a card, or the card of a nonce, payment method or transaction, as a token (tkn-<cardRef>) without verifying it',
          errors: ['invalid_card', 'invalid_nonce', 'not_found', 'reference_card_not_kept', 'idempotency_key_reused'],
          body: SavedCardCreate,
          headers: ChargeHeaders,
          response: { 201: SavedCard, ...PAYIN_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(SavedCardCreate),
      },
      async (request, reply) => createdView(reply, await createSavedCard(service, ownerOf(request), request.body, idempotencyKeyOf(request))),
    );
    app.patch(
      '/api/v2/saved-cards/:cardRef',
      {
        schema: {
          operationId: 'updateSavedCard',
          summary: "Change a saved-card token's expiry",
          errors: ['invalid_card', 'not_found'],
          params: SavedCardParams,
          body: SavedCardUpdate,
          response: { 200: SavedCardExpiry, ...PAYIN_REFUSALS },
        },
        onRequest,
        preValidation: acceptBlueRequests(SavedCardUpdate),
      },
      async (request) => changeSavedCard(service, ownerOf(request), request.params.cardRef, request.body),
    );
  };
}
