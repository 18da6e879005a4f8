// What the payin API's POSTs share about Idempotency-Key on the wire: the
// header as given (the flows check its form), and an answer that replays an
// earlier same-key request's reply says so with `Idempotent-Replayed: true`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Created } from '../flows/vault/keyed-create.ts';

/** The request's Idempotency-Key header, if any. */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' ? key : null;
}

/** Sends a reply the flow rendered as JSON text (a charge or an operation on one). */
export function sendReply(reply: FastifyReply, result: { readonly statusCode: number; readonly json: string; readonly replayed?: boolean }): FastifyReply {
  if (result.replayed === true) reply.header('idempotent-replayed', 'true');
  return reply.code(result.statusCode).type('application/json; charset=utf-8').send(result.json);
}

/** A create's answer (a customer, a saved card, a schedule): 201 with its view, marked when replayed. */
export function createdView<T>(reply: FastifyReply, created: Created<T>): T {
  if (created.replayed) reply.header('idempotent-replayed', 'true');
  reply.code(201);
  return created.view;
}
