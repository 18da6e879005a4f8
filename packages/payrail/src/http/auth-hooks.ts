// Request hooks that authenticate each API's credential (transfer key,
// Basic source key + PIN, tokenization token), attach the principal and
// count the request against the credential's rate limit (rate-limits.ts).
// A refusal that lasts (a locked key or address) carries Retry-After.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pinKeyFor } from '../crypto/card-key.ts';
import {
  AuthError,
  authenticateBasic,
  authenticateTokenizationToken,
  authenticateTransferKey,
  type AuthApi,
  type AuthAttempt,
  type AuthOptions,
  type Principal,
} from '../flows/access/authenticate.ts';
import type { ErrorName } from '../errors.ts';
import { recordAuthFailure } from '../flows/operations/audit.ts';
import type { Service } from '../service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

function optionsOf(service: Service, api: AuthApi, wrongKindError: ErrorName): AuthOptions {
  return {
    db: service.db,
    clock: service.clock,
    environment: service.config.environment,
    api,
    wrongKindError,
    pinKey: () => pinKeyFor(service.config),
    addressFailuresMax: service.config.authFailuresPerAddress,
  };
}

type Authenticate = (options: AuthOptions, attempt: AuthAttempt) => Promise<Principal>;

function hook(options: AuthOptions, authenticate: Authenticate, headerOf: (request: FastifyRequest) => string | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    try {
      request.principal = await authenticate(options, { header: headerOf(request), address: request.ip, log: request.log });
    } catch (error) {
      if (error instanceof AuthError && error.retryAfterS !== null) reply.header('retry-after', String(error.retryAfterS));
      // Audit trail (PCI DSS 10.2.1.4); refusals while a lock holds are only logged, so a flood writes nothing.
      if (error instanceof AuthError && error.retryAfterS === null)
        await recordAuthFailure(options, { header: headerOf(request), address: request.ip, path: request.url.split('?')[0]!, reason: error.reason });
      throw error;
    }
    await request.server.limitCredential(request, reply);
  };
}

export function transferAuth(service: Service) {
  return hook(optionsOf(service, 'transfer', 'wrong_credential_kind'), authenticateTransferKey, (request) => {
    const header = request.headers['api-key'];
    return Array.isArray(header) ? header[0] : header;
  });
}

export function basicAuth(service: Service) {
  return hook(optionsOf(service, 'payin', 'permission_denied'), authenticateBasic, (request) => request.headers.authorization);
}

export function tokenizationAuth(service: Service) {
  return hook(optionsOf(service, 'payin', 'permission_denied'), authenticateTokenizationToken, (request) => request.headers.authorization);
}

/** The tokenization-token check of the payin API, for the token the hosted card form is opened with (in its URL). */
export function verifyTokenizationToken(service: Service, request: FastifyRequest, token: string): Promise<Principal> {
  const attempt = { header: `Bearer ${token}`, address: request.ip, log: request.log };
  return authenticateTokenizationToken(optionsOf(service, 'payin', 'permission_denied'), attempt);
}

/**
 * Either of the merchant's API credentials (docs/api-decisions.md section 14,
 * events and webhooks): the transfer key in `API-KEY` when that header is
 * sent, else Basic source key + PIN.
 */
export function merchantAuth(service: Service) {
  const byTransferKey = hook(optionsOf(service, 'transfer', 'permission_denied'), authenticateTransferKey, (request) => {
    const header = request.headers['api-key'];
    return Array.isArray(header) ? header[0] : header;
  });
  const byBasic = basicAuth(service);
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    request.headers['api-key'] !== undefined ? byTransferKey(request, reply) : byBasic(request, reply);
}
