// Request rate limits of both APIs (docs/api-decisions.md section 13), with
// @fastify/rate-limit counting into a store shared by every process
// (rate-limit-store.ts):
// - per client address, on every request to /api/ and /sandbox/ and every
//   provider callback (/providers/), before anything else is looked at
//   (PAYRAIL_RATE_LIMIT_PER_ADDRESS_PER_MIN);
// - per credential, right after it authenticated (PAYRAIL_RATE_LIMIT_PER_MIN),
//   so nobody can use up a merchant's allowance with keys they do not hold.
// Over a limit: 429 with Retry-After, code `rate_limited`, in the envelope
// of the API called (the error handler renders it). The panel and the
// hosted card form have their own limits and are not counted here.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RATE_WINDOW_MS } from '../domain/auth-limits.ts';
import { addressKey } from '../domain/client-address.ts';
import { ApiError } from '../errors.ts';
import type { Service } from '../service.ts';
import { apiFamily } from './errors.ts';
import { SharedCounter, sharedStoreClass } from './rate-limit-store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts a request against its authenticated credential's limit; throws `rate_limited` over it. */
    limitCredential(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

interface LimitResult {
  readonly isAllowed: boolean;
  readonly isExceeded?: boolean;
  readonly ttlInSeconds?: number;
  readonly max?: number;
}

function enforce(result: LimitResult, reply: FastifyReply, what: string): void {
  if (result.isAllowed || result.isExceeded !== true) return;
  const retryAfterS = Math.max(1, result.ttlInSeconds ?? 1);
  reply.header('retry-after', String(retryAfterS));
  throw new ApiError('rate_limited', `too many requests ${what} (at most ${result.max} a minute); retry after ${retryAfterS} s`);
}

/** Provider callbacks carry no credential (their signature is checked later), so their address is what is counted. */
const isProviderCallback = (url: string): boolean => url.startsWith('/providers/');

export async function registerRateLimits(app: FastifyInstance, service: Service): Promise<void> {
  const counter = new SharedCounter(service);
  // global: false: no route gets the plugin's own hook; the two limiters below are called by ours.
  await app.register(rateLimit, { global: false, store: sharedStoreClass(counter), skipOnError: true, timeWindow: RATE_WINDOW_MS });
  const perAddress = app.createRateLimit({
    max: service.config.rateLimitPerAddressPerMin,
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: (request) => `addr:${addressKey(request.ip)}`,
  });
  const perCredential = app.createRateLimit({
    max: service.config.rateLimitPerMin,
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: (request) => `cred:${request.principal?.credentialId ?? ''}`,
  });

  app.addHook('onRequest', async (request, reply) => {
    if (apiFamily(request.url) === 'other' && !isProviderCallback(request.url)) return;
    enforce(await perAddress(request), reply, 'from this address');
  });

  app.decorate('limitCredential', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.principal === undefined) return;
    enforce(await perCredential(request), reply, 'for this credential');
  });
}
