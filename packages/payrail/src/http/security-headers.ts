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
// The JSON APIs (/api/) answer with the part of the set that applies to a
// response no browser renders as a document, as the OWASP REST Security Cheat
// Sheet lists it for API responses: the content security policy (nothing
// runs, loads or frames it), nosniff, HSTS in production, and (beyond that
// list) cross-origin-resource-policy, which keeps other sites from loading an
// answer into their own pages. The rest of helmet's set tells browsers how
// to treat a document (its window opener, origin agent cluster, DNS
// prefetching of its links, what it may send as referrer) or speaks to
// retired software (Internet Explorer's download prompt and XSS auditor,
// Flash and Acrobat cross-domain policies): pages keep all of it. Headers
// are not free: each is validated and written on every answer, and leaving
// all of helmet's out of a status read was measured at about a tenth of its
// work.
//
// The headers depend on the configuration only, never on the request, so
// helmet is asked for them once at start and every response gets one of the
// two fixed sets (helmet's own middleware would rebuild the policy text per
// request).
import helmet from 'helmet';
import type { Service } from '../service.ts';

const HSTS_MAX_AGE_S = 365 * 24 * 60 * 60;

/** The policy of everything that does not set its own: JSON answers and errors. */
export const API_CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
};

/** Helmet's headers that a JSON API answer carries (see above). */
const API_ANSWER_HEADERS: ReadonlySet<string> = new Set([
  'content-security-policy',
  'cross-origin-resource-policy',
  'x-content-type-options',
  'strict-transport-security',
]);

/** The header sets of this configuration, lower-cased, computed once. */
export interface SecurityHeaderSets {
  /** JSON API answers (paths under /api/). */
  readonly api: Readonly<Record<string, string>>;
  /** Everything else: pages, /docs, the hosted form's assets, health checks. */
  readonly document: Readonly<Record<string, string>>;
}

/** Whether the answer to this request URL gets the API set. */
export function isApiAnswer(url: string): boolean {
  return url.startsWith('/api/');
}

export function securityHeaders(service: Pick<Service, 'config'>): SecurityHeaderSets {
  const document = helmetHeaders(service);
  const api = Object.fromEntries(Object.entries(document).filter(([name]) => API_ANSWER_HEADERS.has(name)));
  return { api: Object.freeze(api), document };
}

/** The headers helmet sets for this configuration, lower-cased. */
function helmetHeaders(service: Pick<Service, 'config'>): Readonly<Record<string, string>> {
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
