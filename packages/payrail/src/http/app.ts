// Builds the Fastify application: schema validation without coercion, one
// error handler rendering the catalogue per API (framework refusals too),
// request ids, security headers, rate limits, and the route modules of each
// API. Tests drive it through app.inject().
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requestLogFields } from '../log.ts';
import type { Service } from '../service.ts';
import { refreshKeyRingIfStale } from '../flows/card-keys/ring-loader.ts';
import { ApiError } from '../errors.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, notFoundHandler } from './errors.ts';
import { registerOpenApi } from './openapi.ts';
import { AnswerBatch } from './answer-batch.ts';
import { registerRateLimits } from './rate-limits.ts';
import { parseJsonBodies } from './raw-json.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { DEFAULT_CACHE_CONTROL, isApiAnswer, securityHeaders } from './security-headers.ts';
import { healthRoutes } from './routes/health.ts';
import { balanceRoutes } from './routes/transfers/balance.ts';
import { hostedFormRoutes } from './routes/payin/hosted-form.ts';
import { customerRoutes } from './routes/vault/customers.ts';
import { savedCardRoutes } from './routes/vault/saved-cards.ts';
import { payinChargeRoutes } from './routes/payin/charges.ts';
import { payinLifecycleRoutes } from './routes/payin/lifecycle.ts';
import { payinTransactionRoutes } from './routes/payin/transactions.ts';
import { payinTokenRoutes } from './routes/payin/tokens.ts';
import { payinSurchargeRoutes } from './routes/payin/surcharge.ts';
import { providerCallbackRoutes } from './routes/providers.ts';
import { kycRoutes } from './routes/transfers/kyc.ts';
import { sandboxPageRoutes } from './routes/sandbox-pages.ts';
import { sandboxRoutes } from './routes/sandbox.ts';
import { scheduleRoutes } from './routes/vault/schedules.ts';
import { transferRoutes } from './routes/transfers/transfers.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { panelRoutes } from '../web/panel.ts';
import { signupPages } from '../web/signup-pages.ts';

export type App = FastifyInstance;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface AppOptions {
  /** Certificate and key for TLS served by Payrail itself. */
  readonly https?: { cert: Buffer; key: Buffer } | null;
}

export async function buildApp(service: Service, options: AppOptions = {}): Promise<App> {
  const app = Fastify({
    ...(options.https ? { https: options.https } : {}),
    loggerInstance: service.log,
    // One line per request is written in onResponse below; Fastify's own two are off.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: service.config.bodyLimitBytes,
    // Honour a caller's X-Request-Id when it is sane, else make one.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : `req_${crypto.randomUUID()}`;
    },
    ajv: {
      customOptions: {
        // docs/api-decisions.md section 3: no type coercion on the wire; a "12" is not a 12.
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: false,
      },
    },
    // Requests arriving while closing are refused by our own hook below, in the API's envelope.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Refusals before routing, and of Node's HTTP parser, in the API's envelope too (errors.ts).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Only the named proxies' X-Forwarded-For is believed: per-address limits must count the client.
    trustProxy: service.config.trustedProxies.length > 0 ? [...service.config.trustedProxies] : false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  parseJsonBodies(app as unknown as FastifyInstance);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // The hooks every request runs are synchronous (no promise each) and one per stage.
  const headers = securityHeaders(service);
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      done(new ApiError('shutting_down'));
      return;
    }
    reply.headers(isApiAnswer(request.url) ? headers.api : headers.document);
    // Every RING_REFRESH_MS, one request waits for the card-data keys to be read again (flows/card-keys/ring-loader.ts).
    const refreshing = refreshKeyRingIfStale(service);
    if (refreshing === null) done();
    else void refreshing.then(() => done());
  });
  const answers = new AnswerBatch();
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', DEFAULT_CACHE_CONTROL);
    answers.hold(() => done(null, payload));
  });
  // The fields are gathered only when the line is written.
  const logRequests = service.log.isLevelEnabled('info');
  app.addHook('onResponse', (request, reply, done) => {
    if (logRequests) {
      request.log.info({ ...requestLogFields(request), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request');
    }
    done();
  });

  await registerRateLimits(app as unknown as FastifyInstance, service);
  // Before the routes: the document is built from every route registered after it.
  await registerOpenApi(app as unknown as FastifyInstance, service);
  await app.register(healthRoutes(service));
  await app.register(balanceRoutes(service));
  await app.register(transferRoutes(service));
  await app.register(kycRoutes(service));
  await app.register(sandboxRoutes(service));
  await app.register(sandboxPageRoutes(service));
  await app.register(payinTokenRoutes(service));
  await app.register(payinChargeRoutes(service));
  await app.register(payinLifecycleRoutes(service));
  await app.register(payinTransactionRoutes(service));
  await app.register(payinSurchargeRoutes(service));
  await app.register(customerRoutes(service));
  await app.register(savedCardRoutes(service));
  await app.register(scheduleRoutes(service));
  await app.register(webhookRoutes(service));
  await app.register(hostedFormRoutes(service));
  await app.register(providerCallbackRoutes(service));
  await app.register(panelRoutes(service), { prefix: '/dashboard' });
  // Self-service sign-up exists in the sandbox only; production merchants are onboarded by the operator.
  if (service.config.environment === 'sandbox') await app.register(signupPages(service), { prefix: '/signup' });
  return app as unknown as App;
}
