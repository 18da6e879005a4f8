// Security headers on every response, as helmet writes them: nosniff,
// no-referrer, cross-origin isolation of what is not meant to be shared, a
// content security policy that lets a JSON answer run, load or frame nothing,
// and in production HSTS (a year, subdomains included: production is HTTPS
// only). Pages with content of their own set their own policy over this
// one: the hosted card form (framed by the merchant's page it names), the
// panel, the sandbox pages and /docs. No answer is kept in a cache unless it
// says otherwise (static assets do): API answers hold balances and card
// details, pages one-time secrets.
//
// The headers depend on the configuration only, never on the request, so
// helmet is asked for them once at start and every response gets the same
// set (helmet's own middleware would rebuild the policy text per request).
import helmet from 'helmet';
import type { Service } from '../service.ts';

const HSTS_MAX_AGE_S = 365 * 24 * 60 * 60;

/** The policy of everything that does not set its own: JSON answers and errors. */
export const API_CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
};

/** The headers helmet sets for this configuration, lower-cased, computed once. */
export function securityHeaders(service: Pick<Service, 'config'>): Readonly<Record<string, string>> {
  const middleware = helmet({
    contentSecurityPolicy: API_CONTENT_SECURITY_POLICY,
    strictTransportSecurity: service.config.environment === 'production' ? { maxAge: HSTS_MAX_AGE_S, includeSubDomains: true } : false,
    // Framing is ruled by each page's CSP frame-ancestors ('none' above): the
    // hosted card form must be framable by the merchant origin it names, and
    // an X-Frame-Options header cannot say that.
    xFrameOptions: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    // helmet removes X-Powered-By, which Fastify never sets.
    removeHeader: () => undefined,
  };
  let failure: unknown = null;
  middleware({} as never, response as never, (error?: unknown) => {
    if (error !== undefined) failure = error;
  });
  if (failure !== null) throw failure;
  return Object.freeze(headers);
}

/** Answers are not cached unless they say so. */
export const DEFAULT_CACHE_CONTROL = 'no-store';
