// An expiry of 0 from an accept.blue caller (docs/acceptblue-compatibility.md):
// futureecom's Omnipay driver casts a missing expiry_month/expiry_year to 0
// and sends it, notably with a stored source (pm-, ref-, tkn-) whose card
// knows its own expiry. accept.blue's limits start at 1 and 2020, so 0
// cannot mean a date: it is read as absent. Runs after acceptBlueRequests;
// the spec dialect is left alone (0 is refused there, as before).
import type { FastifyReply, FastifyRequest } from 'fastify';

const EXPIRY_FIELDS = ['expiry_month', 'expiry_year'] as const;

export async function zeroExpiryIsAbsent(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const wireDialect = request.principal?.dialect;
  if (wireDialect !== 'acceptblue') return;
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const members = body as Record<string, unknown>;
  for (const field of EXPIRY_FIELDS) {
    if (members[field] === 0) delete members[field];
  }
}
