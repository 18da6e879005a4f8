// A stand-in for Open Exchange Rates' API on 127.0.0.1, written from its
// documentation (docs.openexchangerates.org): GET {root}/latest.json with
// the App ID (required) in the header `Authorization: Token <app id>` or,
// as the API also takes it, the `app_id` query parameter; `symbols` (comma-separated codes; unknown ones are
// left out) and `base` (USD only: changing it needs a paid plan, answered
// as the documented not_allowed). The answer is
// `{disclaimer, license, timestamp, base, rates}`; errors are
// `{error: true, status, message, description}` with the documented
// messages (missing_app_id and invalid_app_id 401, not_allowed 429,
// access_restricted 403/429, not_found 404). A test sets the rates (as JSON
// number text, so it can send numbers a double cannot hold), the
// timestamp, and faults for the next requests. Nothing here leaves loopback.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const STAND_IN_APP_ID = '0123456789abcdef0123456789abcdef';

/** Rates the stand-in starts with: units per 1 USD, as the JSON number text it sends. */
export const STAND_IN_RATES: Readonly<Record<string, string>> = {
  KES: '129.5',
  NGN: '1532.123456',
  PHP: '58.25',
  GHS: '15.43',
  UGX: '3702.5',
  EGP: '48.6',
  EUR: '0.924123',
};

/**
 * The next requests: 'hang' (accept, never answer), 'drop' (destroy the
 * connection without an answer), 'http-500' and 'http-502' (an error page
 * that is not JSON), 'rate-limited' (429 access_restricted, repeated
 * over-use), 'not-allowed' (429 not_allowed), 'not-json' (200 with a body
 * that is no JSON).
 */
export type OxrFault = 'hang' | 'drop' | 'http-500' | 'http-502' | 'rate-limited' | 'not-allowed' | 'not-json';

export interface OxrStandIn {
  /** The API root, like https://openexchangerates.org/api. */
  readonly url: string;
  readonly appId: string;
  /** Replaces the rates (JSON number text per currency; a currency left out is absent from answers). */
  setRates(rates: Readonly<Record<string, string>>): void;
  /** Sets one rate. */
  setRate(currency: string, numberText: string): void;
  /** The published time the answers carry (UNIX seconds). */
  setTimestamp(seconds: number): void;
  failNext(fault: OxrFault, count?: number): void;
  /** latest.json requests received (faulty ones too). */
  requestCount(): number;
  /** The query of every request received, the app_id blanked (what the connector asked for). */
  queries(): ReadonlyArray<Readonly<Record<string, string>>>;
  /** Resolves when `n` requests have arrived in all. */
  requestsReached(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface OxrStandInOptions {
  appId?: string;
  port?: number;
  /** Serve POST /control/<verb> on the same port (stand-in-main.ts): setRate, setRates, setTimestamp, failNext, requestCount. */
  control?: boolean;
  /** The timestamp before setTimestamp (UNIX seconds); default the real time at start. */
  timestampSeconds?: number;
}

const FAULTS_MAX = 1000;
const CONTROL_BODY_MAX_BYTES = 64 * 1024;
const FAULTS: readonly OxrFault[] = ['hang', 'drop', 'http-500', 'http-502', 'rate-limited', 'not-allowed', 'not-json'];

export async function startOxrStandIn(options: OxrStandInOptions = {}): Promise<OxrStandIn> {
  const appId = options.appId ?? STAND_IN_APP_ID;
  let rates: Record<string, string> = { ...STAND_IN_RATES };
  let timestamp = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const faults: OxrFault[] = [];
  const queries: Array<Record<string, string>> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch {
      if (!response.headersSent) response.writeHead(500).end();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    if (options.control === true && request.method === 'POST' && url.pathname.startsWith('/control/')) {
      readControl(request, response, url.pathname.slice('/control/'.length));
      return;
    }
    if (request.method !== 'GET' || url.pathname !== '/api/latest.json') {
      error(response, 404, 'not_found', 'Client requested a non-existent resource/route.');
      return;
    }
    const query = Object.fromEntries(url.searchParams);
    queries.push({ ...query, ...(query.app_id === undefined ? {} : { app_id: '[app id]' }) });
    for (const waiter of waiters.filter((w) => queries.length >= w.n)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const fault = faults.shift();
    if (fault === 'hang') return;
    if (fault === 'drop') {
      request.socket.destroy();
      return;
    }
    if (fault === 'http-500' || fault === 'http-502') {
      response.writeHead(fault === 'http-500' ? 500 : 502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
      return;
    }
    if (fault === 'rate-limited') {
      error(response, 429, 'access_restricted', 'Access restricted for repeated over-use (status: 429).');
      return;
    }
    if (fault === 'not-json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"timestamp": 1700000000, "rates": {');
      return;
    }
    if (fault === 'not-allowed') {
      error(response, 429, 'not_allowed', 'Changing the API `base` currency is available for Developer, Enterprise and Unlimited plan clients.');
      return;
    }
    const header = request.headers.authorization;
    const given = header === undefined ? url.searchParams.get('app_id') : (/^Token (\S+)$/.exec(header)?.[1] ?? '');
    if (given === null || given === '') {
      error(response, 401, 'missing_app_id', 'No App ID provided. Please sign up at https://openexchangerates.org/signup, or contact support.');
      return;
    }
    if (given !== appId) {
      error(response, 401, 'invalid_app_id', 'Invalid App ID provided. Please sign up at https://openexchangerates.org/signup, or contact support.');
      return;
    }
    const base = url.searchParams.get('base');
    if (base !== null && base !== 'USD') {
      error(response, 429, 'not_allowed', 'Changing the API `base` currency is available for Developer, Enterprise and Unlimited plan clients.');
      return;
    }
    const symbols = url.searchParams.get('symbols');
    const wanted = symbols === null ? Object.keys(rates) : symbols.split(',').map((code) => code.trim().toUpperCase());
    const entries = wanted.filter((code) => Object.hasOwn(rates, code)).map((code) => `    ${JSON.stringify(code)}: ${rates[code]!}`);
    // Written by hand, not JSON.stringify: the rates are number text as set, digits a double might not hold included.
    const body = [
      '{',
      '  "disclaimer": "Usage subject to terms: https://openexchangerates.org/terms",',
      '  "license": "https://openexchangerates.org/license",',
      `  "timestamp": ${timestamp},`,
      '  "base": "USD",',
      '  "rates": {',
      entries.join(',\n'),
      '  }',
      '}',
    ].join('\n');
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  }

  /** A control verb with its JSON body; answers {ok: true, ...} or 400. */
  function readControl(request: IncomingMessage, response: ServerResponse, verb: string): void {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= CONTROL_BODY_MAX_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const reply = (status: number, body: object) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      let body: Record<string, unknown>;
      try {
        body = bytes === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      } catch {
        reply(400, { ok: false, error: 'the body is not JSON' });
        return;
      }
      const numberText = (value: unknown) => (typeof value === 'string' && /^-?[0-9][0-9.eE+-]*$/.test(value) ? value : null);
      if (verb === 'setRate' && typeof body.currency === 'string' && numberText(body.rate) !== null) {
        rates[body.currency] = numberText(body.rate)!;
      } else if (verb === 'setRates' && body.rates !== null && typeof body.rates === 'object') {
        const next = Object.entries(body.rates as Record<string, unknown>).map(([code, rate]) => [code, numberText(rate)] as const);
        if (next.some(([, rate]) => rate === null)) return reply(400, { ok: false, error: 'rates are JSON number text' });
        rates = Object.fromEntries(next) as Record<string, string>;
      } else if (verb === 'setTimestamp' && Number.isSafeInteger(body.seconds)) {
        timestamp = body.seconds as number;
      } else if (verb === 'failNext' && FAULTS.includes(body.fault as OxrFault)) {
        const count = Number.isSafeInteger(body.count) ? Math.min(body.count as number, FAULTS_MAX) : 1;
        for (let i = 0; i < count; i++) faults.push(body.fault as OxrFault);
      } else if (verb !== 'requestCount') {
        return reply(400, { ok: false, error: `unknown verb or bad body: ${verb.slice(0, 40)}` });
      }
      reply(200, { ok: true, requestCount: queries.length });
    });
  }

  function error(response: ServerResponse, status: number, message: string, description: string): void {
    response
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify({ error: true, status, message, description }, null, 2));
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in has no port');
  return {
    url: `http://127.0.0.1:${address.port}/api`,
    appId,
    setRates(next) {
      rates = { ...next };
    },
    setRate(currency, numberText) {
      rates[currency] = numberText;
    },
    setTimestamp(seconds) {
      timestamp = seconds;
    },
    failNext(fault, count = 1) {
      for (let i = 0; i < Math.min(count, FAULTS_MAX); i++) faults.push(fault);
    },
    requestCount: () => queries.length,
    queries: () => queries,
    requestsReached(n) {
      if (queries.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
