// Security headers on every response, with @fastify/helmet: nosniff,
// no-referrer, cross-origin isolation of what is not meant to be shared, a
// content security policy that lets a JSON answer run, load or frame nothing,
// and in production HSTS (a year, subdomains included: production is HTTPS
// only). Pages with content of their own set their own policy over this
// one: the hosted card form (framed by the merchant's page it names), the
// panel, the sandbox pages and /docs. No answer is kept in a cache unless it
// says otherwise (static assets do): API answers hold balances and card
// details, pages one-time secrets.
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { Service } from '../service.ts';

const HSTS_MAX_AGE_S = 365 * 24 * 60 * 60;

/** The policy of everything that does not set its own: JSON answers and errors. */
export const API_CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
};

export async function registerSecurityHeaders(app: FastifyInstance, service: Service): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: API_CONTENT_SECURITY_POLICY,
    strictTransportSecurity: service.config.environment === 'production' ? { maxAge: HSTS_MAX_AGE_S, includeSubDomains: true } : false,
    // Framing is ruled by each page's CSP frame-ancestors ('none' above): the
    // hosted card form must be framable by the merchant origin it names, and
    // an X-Frame-Options header cannot say that.
    xFrameOptions: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
