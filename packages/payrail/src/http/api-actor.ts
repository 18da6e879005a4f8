// Who calls the APIs, for the audit trail: the credential that authenticated
// the request (its id, never its secret) and the client's address.
import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../domain/audit.ts';

export function apiActorOf(request: Pick<FastifyRequest, 'principal' | 'ip'>): AuditActor {
  return { kind: 'credential', id: request.principal?.credentialId ?? null, label: null, address: request.ip };
}
