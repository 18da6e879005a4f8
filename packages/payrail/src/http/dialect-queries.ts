// How a list's query string is read in the accept.blue dialect
// (docs/acceptblue-compatibility.md): accept.blue's shop integrations send
// parameters accept.blue does not document (Formidable's page, customer_id,
// start_date, end_date). For a caller in the `acceptblue` dialect this hook
// drops every parameter the route's query schema does not name, before the
// schema validates the rest exactly as in the `spec` dialect (where an
// unknown parameter is still refused with its name). It runs after
// authentication, which tells the caller's dialect.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A preValidation hook for a route whose query schema is `schema`. */
export function acceptBlueQuery(schema: { readonly properties: Readonly<Record<string, unknown>> }) {
  const named = new Set(Object.keys(schema.properties));
  return async function shapeAcceptBlueQuery(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (request.principal?.dialect !== 'acceptblue') return;
    const query = request.query as Record<string, unknown>;
    for (const name of Object.keys(query)) if (!named.has(name)) delete query[name];
  };
}
