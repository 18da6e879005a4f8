// Pages reached from a mailed one-time link carry its token in their URL.
// Their answers say "no-referrer" (over the panel's "same-origin"), so the
// URL is not sent on with the page's own requests or a followed link, and
// "no-store" (the panel's default) keeps them out of caches. The request log
// redacts the token (log.ts loggedPath).
import type { FastifyInstance } from 'fastify';
import { matchedRoute } from './request.ts';

/**
 * Adds the hook to a plugin whose routes all take a link token (or to those
 * of `only`, given the matched route's pattern: an encoded path names the
 * same route). An answer no route matched says "no-referrer" too.
 */
export function keepLinksPrivate(app: Pick<FastifyInstance, 'addHook'>, only: (route: string) => boolean = () => true): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const route = matchedRoute(request);
    if (route === null || only(route)) reply.header('referrer-policy', 'no-referrer');
    return payload;
  });
}
