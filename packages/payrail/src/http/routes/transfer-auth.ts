// preHandlers that authenticate each API's credential and attach the principal.
import type { FastifyRequest } from 'fastify';
import type { Service } from '../../service.ts';
import { authenticateBasic, authenticateTokenizationToken, authenticateTransferKey, type Principal } from '../auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function transferAuth(service: Service) {
  const options = { db: service.db, environment: service.config.environment, wrongKindError: 'wrong_credential_kind' as const };
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers['api-key'];
    request.principal = await authenticateTransferKey(options, Array.isArray(header) ? header[0] : header);
  };
}

export function basicAuth(service: Service) {
  const options = { db: service.db, environment: service.config.environment, wrongKindError: 'permission_denied' as const };
  return async (request: FastifyRequest): Promise<void> => {
    request.principal = await authenticateBasic(options, request.headers.authorization);
  };
}

export function tokenizationAuth(service: Service) {
  const options = { db: service.db, environment: service.config.environment, wrongKindError: 'permission_denied' as const };
  return async (request: FastifyRequest): Promise<void> => {
    request.principal = await authenticateTokenizationToken(options, request.headers.authorization);
  };
}
