// POST (or PUT) /providers/:connector/callbacks (behaviour.md section 18): a
// provider's callback, read as raw bytes whatever its content type (the
// signature covers the bytes as sent, so nothing may parse or re-encode them
// first), at most CALLBACK_BODY_MAX_BYTES, and handed with its headers to
// the callback flow. No credential: the connector's signature check is the
// authentication (401 invalid_signature when it fails). Counted by the
// per-address rate limit like the APIs (rate-limits.ts). The body is never
// logged.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { callbackDepsOf, receiveCallback } from '../../flows/providers/callbacks.ts';
import { CALLBACK_BODY_MAX_BYTES } from '../../providers/callbacks.ts';
import type { Service } from '../../service.ts';
import { errorHandler } from '../errors.ts';
import { CallbackParams, CallbackReceived } from '../schemas/providers.ts';

export const CALLBACK_PATH = '/providers/:connector/callbacks';

/** Header names lower-cased (Node's), a repeated header's values joined as HTTP joins them. */
function headersOf(request: FastifyRequest): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** A body over the limit is 413 here (the APIs answer it 400, as their specification lists no 413). */
function callbackErrorHandler(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const tooLarge = (error as FastifyError).statusCode === 413;
  const refusal = tooLarge ? new ApiError('callback_too_large', `callback body too large: at most ${CALLBACK_BODY_MAX_BYTES} bytes`) : error;
  errorHandler.call(this, refusal, request, reply);
}

export function providerCallbackRoutes(service: Service): FastifyPluginAsyncTypebox {
  return async (app) => {
    // In this plugin's scope only: every body, of any content type, is kept as its bytes.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_MAX_BYTES }, (_request, body, done) => done(null, body));
    app.setErrorHandler(callbackErrorHandler);
    const deps = callbackDepsOf(service);

    const options = (operationId: string, summary: string) => ({
      bodyLimit: CALLBACK_BODY_MAX_BYTES,
      schema: {
        operationId,
        summary,
        description:
          'Set this URL as the webhook URL at the provider (Authorize.net: `/providers/authorize-net/callbacks`). The body is read as sent, ' +
          `any content type, at most ${CALLBACK_BODY_MAX_BYTES} bytes. A callback is a hint: the payment it names is asked about at the ` +
          'provider and moved through the same guarded transitions as polling, so a replay changes nothing.',
        errors: ['invalid_request', 'invalid_signature', 'not_found', 'callback_too_large'],
        params: CallbackParams,
        response: { 200: CallbackReceived },
      },
    });
    const receive = async (request: FastifyRequest<{ Params: { connector: string } }>) =>
      receiveCallback(deps, request.params.connector, {
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        headers: headersOf(request),
      });
    app.post(
      CALLBACK_PATH,
      options('receiveProviderCallback', "A provider's callback (webhook): verified by the connector's signature check, then applied as polling would"),
      receive,
    );
    // MTN MoMo asks its callback listeners to take PUT as well as POST.
    app.put(CALLBACK_PATH, options('receiveProviderCallbackPut', 'The same callback sent with PUT, as some providers (MTN MoMo) may'), receive);
  };
}
