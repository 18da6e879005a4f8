// Which page origins may show a source's hosted card form. A merchant lists
// the origins of its checkout pages on each payin source; the form is served
// only into those. In the sandbox a source with no list accepts pages on the
// developer's own machine (http://localhost:<any port>, http://127.0.0.1:<any
// port>), so the demo and a first integration work before any set-up; in
// production a source with no list accepts none.
import type { Environment } from './credentials.ts';

export const PAGE_ORIGIN_LENGTH_MAX = 200;
/** Origins kept per source: a shop has a few checkout hosts, not hundreds. */
export const ORIGINS_PER_SOURCE_MAX = 20;

/** The page origin a form is opened for: a bare http(s) origin, https only in production. */
export function parsePageOrigin(text: unknown, production: boolean): string | null {
  if (typeof text !== 'string' || text.length > PAGE_ORIGIN_LENGTH_MAX) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.origin !== text) return null;
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) return null;
  return url.origin;
}

const SANDBOX_LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1']);

/** Whether `origin` (already parsed) may show the form of a source whose list is `allowed`. */
export function originAllowed(origin: string, allowed: readonly string[], environment: Environment): boolean {
  if (allowed.length > 0) return allowed.includes(origin);
  if (environment !== 'sandbox') return false;
  const url = new URL(origin);
  return url.protocol === 'http:' && SANDBOX_LOCAL_HOSTS.has(url.hostname);
}
