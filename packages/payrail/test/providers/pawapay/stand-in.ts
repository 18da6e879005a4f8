// A stand-in for pawaPay's Merchant API v2 on 127.0.0.1, for the
// connector's contract test and Payrail's end-to-end and crash tests. It
// speaks what pawaPay documents: initiate payout (idempotent on payoutId,
// DUPLICATE_IGNORED), check payout status (FOUND/NOT_FOUND), predict
// provider, active configuration and the callback signing keys (request
// checks in wire.ts, sandbox numbers in test-data.ts); it sends
// signed callbacks when a payout reaches its final state, and plays the
// published sandbox numbers (test-data.ts). A test breaks the line on
// purpose with failNext, and disturbs callbacks (duplicates, out of order,
// unsigned, bad signatures). Nothing here leaves loopback.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type CallbackKey, newCallbackKey, signedHeaders } from './signing.ts';
import { courseOf, type PayoutCourse, PROVIDERS, providerOfNumber } from './test-data.ts';
import { checkPayoutRequest, payoutIdOf, payoutRejection, Refusal } from './wire.ts';

export * from './test-data.ts';
export { newCallbackKey, signedHeaders } from './signing.ts';

export interface StandInOptions {
  token?: string;
  port?: number;
  /** Status checks a payout answers ACCEPTED, then PROCESSING, before it is final (0: final at once). */
  pendingPolls?: number;
  /** Serve POST /control/<verb> on the same port (stand-in-main.ts). */
  control?: boolean;
  now?: () => number;
}

export type FailMode =
  /** Never answer (the socket stays open until close()). */
  | 'hang'
  /** Apply the request, then destroy the socket without answering. */
  | 'drop-after-accept'
  /** Answer 500 without applying the request. */
  | 'http-500'
  /** Answer 429 (rate limited) without applying the request, with a body that names no failure code. */
  | 'http-429'
  /** Apply the request, then answer 503 (a gateway that lost the answer). */
  | 'http-503-after-accept'
  /** The provider is CLOSED: payouts REJECTED with PROVIDER_TEMPORARILY_UNAVAILABLE. */
  | 'provider-closed'
  /** The merchant's pawaPay wallet is empty: REJECTED with PAWAPAY_WALLET_OUT_OF_FUNDS. */
  | 'wallet-out-of-funds'
  /** A payout's status check answers NOT_FOUND once. */
  | 'not-found';

export type CallbackMode = 'signed' | 'duplicate' | 'unsigned' | 'bad-signature';

export interface StandInPayout {
  readonly payoutId: string;
  status: 'ACCEPTED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  readonly request: Readonly<Record<string, unknown>>;
  readonly created: string;
  readonly course: PayoutCourse;
  providerTransactionId: string | null;
  failureReason: { failureCode: string; failureMessage: string } | null;
  pollsLeft: number;
  /** Initiation requests that named this payoutId (1 + duplicates). */
  initiations: number;
}

export interface CallbackDelivery {
  readonly payoutId: string;
  readonly status: string;
  readonly httpStatus: number | null;
}

export interface PawaPayStandIn {
  readonly url: string;
  readonly token: string;
  readonly callbackKey: CallbackKey;
  failNext(mode: FailMode, count?: number): void;
  payouts(): readonly StandInPayout[];
  /** Where callbacks go (null: none are sent). */
  callbackTo(url: string | null): void;
  callbackMode(mode: CallbackMode): void;
  /** Hold callbacks instead of sending them; releaseCallbacks sends them, newest first when `reverse`. */
  holdCallbacks(): void;
  releaseCallbacks(options?: { reverse?: boolean }): void;
  /** Resolves when every callback sent so far has been delivered (or failed). */
  callbacksIdle(): Promise<void>;
  deliveries(): readonly CallbackDelivery[];
  requestCount(): number;
  close(): Promise<void>;
}

const BODY_MAX_BYTES = 64 * 1024;

export async function startPawaPayStandIn(options: StandInOptions = {}): Promise<PawaPayStandIn> {
  const token = options.token ?? `standin-${randomBytes(16).toString('hex')}`;
  const now = options.now ?? Date.now;
  const pendingPolls = options.pendingPolls ?? 0;
  const callbackKey = newCallbackKey();
  const payouts = new Map<string, StandInPayout>();
  const failures: FailMode[] = [];
  const sockets = new Set<Socket>();
  const inFlight = new Set<Promise<void>>();
  const held: StandInPayout[] = [];
  const deliveries: CallbackDelivery[] = [];
  let callbackUrl: string | null = null;
  let callbackMode: CallbackMode = 'signed';
  let holding = false;
  let requests = 0;

  const takeFailure = (modes: readonly FailMode[]): FailMode | null => {
    const next = failures[0];
    if (next === undefined || !modes.includes(next)) return null;
    failures.shift();
    return next;
  };

  const publicView = (payout: StandInPayout): Record<string, unknown> => {
    const request = payout.request;
    const recipient = request.recipient as { accountDetails: { phoneNumber: string; provider: string } };
    const provider = PROVIDERS.find((entry) => entry.provider === recipient.accountDetails.provider);
    const metadata: Record<string, unknown> = {};
    for (const entry of (request.metadata as Array<Record<string, unknown>> | undefined) ?? []) {
      for (const [name, value] of Object.entries(entry)) if (name !== 'isPII') metadata[name] = value;
    }
    return {
      payoutId: payout.payoutId,
      status: payout.status,
      amount: request.amount,
      currency: request.currency,
      country: provider?.country,
      recipient: { type: 'MMO', accountDetails: recipient.accountDetails },
      ...(request.customerMessage === undefined ? {} : { customerMessage: request.customerMessage }),
      created: payout.created,
      ...(payout.providerTransactionId === null ? {} : { providerTransactionId: payout.providerTransactionId }),
      ...(payout.failureReason === null ? {} : { failureReason: payout.failureReason }),
      ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
    };
  };

  const send = (payout: StandInPayout) => {
    if (callbackUrl === null) return;
    if (holding) {
      held.push(payout);
      return;
    }
    const times = callbackMode === 'duplicate' ? 2 : 1;
    for (let i = 0; i < times; i += 1) deliver(payout, callbackUrl);
  };

  const deliver = (payout: StandInPayout, target: string) => {
    const url = new URL(target);
    const body = Buffer.from(JSON.stringify(publicView(payout)), 'utf8');
    let headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
    if (callbackMode !== 'unsigned') headers = signedHeaders(callbackKey, url, body, now());
    if (callbackMode === 'bad-signature') {
      // A signature by another key, as a forger would make.
      headers = signedHeaders(newCallbackKey(callbackKey.id), url, body, now());
    }
    const status = payout.status;
    const delivery = fetch(url, { method: 'POST', headers, body })
      .then(async (response) => {
        await response.body?.cancel().catch(() => undefined);
        deliveries.push({ payoutId: payout.payoutId, status, httpStatus: response.status });
      })
      .catch(() => {
        deliveries.push({ payoutId: payout.payoutId, status, httpStatus: null });
      });
    inFlight.add(delivery);
    void delivery.finally(() => inFlight.delete(delivery));
  };

  const finish = (payout: StandInPayout) => {
    // Final states stay final (a status check and the scheduled finish may both get here).
    if (payout.status === 'COMPLETED' || payout.status === 'FAILED') return;
    const course = payout.course;
    if (course.kind === 'stuck') {
      payout.status = 'PROCESSING';
      return;
    }
    if (course.kind === 'completed') {
      payout.status = 'COMPLETED';
      payout.providerTransactionId = `SBX${randomBytes(6).toString('hex').toUpperCase()}`;
    } else {
      payout.status = 'FAILED';
      payout.failureReason = { failureCode: course.failureCode, failureMessage: course.failureMessage };
    }
    send(payout);
  };

  const initiate = (body: unknown): Record<string, unknown> => {
    const { payoutId, request } = payoutIdOf(body);
    const existing = payouts.get(payoutId.toLowerCase());
    if (existing !== undefined) {
      existing.initiations += 1;
      return { payoutId, status: 'DUPLICATE_IGNORED', created: existing.created };
    }
    checkPayoutRequest(request);
    const rejected = (failureCode: string, failureMessage: string) => ({ payoutId, status: 'REJECTED', failureReason: { failureCode, failureMessage } });
    const checked = payoutRejection(request);
    if ('failureCode' in checked) return rejected(checked.failureCode, checked.failureMessage);
    const phone = checked.phone;
    const fault = takeFailure(['provider-closed', 'wallet-out-of-funds']);
    if (fault === 'provider-closed') return rejected('PROVIDER_TEMPORARILY_UNAVAILABLE', 'The provider is temporarily unavailable.');
    if (fault === 'wallet-out-of-funds') return rejected('PAWAPAY_WALLET_OUT_OF_FUNDS', 'The pawaPay wallet does not have enough funds.');
    const payout: StandInPayout = {
      payoutId,
      status: 'ACCEPTED',
      request,
      created: new Date(now()).toISOString(),
      course: courseOf(phone),
      providerTransactionId: null,
      failureReason: null,
      pollsLeft: pendingPolls,
      initiations: 1,
    };
    payouts.set(payoutId.toLowerCase(), payout);
    if (pendingPolls === 0) setImmediate(() => finish(payout));
    return { payoutId, status: 'ACCEPTED', created: payout.created };
  };

  const status = (payoutId: string): Record<string, unknown> => {
    const payout = payouts.get(payoutId.toLowerCase());
    if (payout === undefined || takeFailure(['not-found']) !== null) return { status: 'NOT_FOUND' };
    if (payout.status === 'ACCEPTED' || (payout.status === 'PROCESSING' && payout.course.kind !== 'stuck')) {
      if (payout.pollsLeft > 0) {
        payout.pollsLeft -= 1;
        const shown = publicView(payout);
        payout.status = 'PROCESSING';
        return { status: 'FOUND', data: shown };
      }
      finish(payout);
    }
    return { status: 'FOUND', data: publicView(payout) };
  };

  const predict = (body: unknown): { httpStatus: number; json: unknown } => {
    const raw = (body as { phoneNumber?: unknown } | null)?.phoneNumber;
    if (typeof raw !== 'string')
      return { httpStatus: 400, json: { failureReason: { failureCode: 'MISSING_PARAMETER', failureMessage: 'phoneNumber is required.' } } };
    // Documented sanitising: the leading +, whitespace and other non-digits are removed.
    const msisdn = raw.replace(/[^0-9]/g, '');
    const provider = providerOfNumber(msisdn);
    if (provider === undefined) {
      return { httpStatus: 400, json: { failureReason: { failureCode: 'INVALID_PHONE_NUMBER', failureMessage: 'The phone number is not a valid MSISDN.' } } };
    }
    return { httpStatus: 200, json: { country: provider.country, provider: provider.provider, phoneNumber: msisdn } };
  };

  const activeConf = (): Record<string, unknown> => {
    const countries = new Map<string, { country: string; prefix: string; providers: unknown[] }>();
    for (const entry of PROVIDERS) {
      const country = countries.get(entry.country) ?? { country: entry.country, prefix: entry.prefix, providers: [] };
      country.providers.push({
        provider: entry.provider,
        displayName: entry.provider,
        currencies: [
          {
            currency: entry.currency,
            operationTypes: {
              PAYOUT: { minAmount: entry.minAmount, maxAmount: entry.maxAmount, decimalsInAmount: entry.decimalsInAmount, status: 'OPERATIONAL', callbackUrl },
            },
          },
        ],
      });
      countries.set(entry.country, country);
    }
    return {
      companyName: 'Stand-in merchant',
      signatureConfiguration: { signedRequestsOnly: false, signedCallbacks: true },
      countries: [...countries.values()],
    };
  };

  const route = (method: string, path: string, body: unknown): { httpStatus: number; json: unknown } => {
    if (method === 'POST' && path === '/v2/payouts') {
      try {
        return { httpStatus: 200, json: initiate(body) };
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        const payoutId = (body as { payoutId?: unknown } | null)?.payoutId;
        return {
          httpStatus: error.httpStatus,
          json: {
            ...(typeof payoutId === 'string' ? { payoutId } : {}),
            status: 'REJECTED',
            failureReason: { failureCode: error.failureCode, failureMessage: error.failureMessage },
          },
        };
      }
    }
    const statusPath = /^\/v2\/payouts\/([^/]{1,64})$/.exec(path);
    if (method === 'GET' && statusPath !== null) return { httpStatus: 200, json: status(decodeURIComponent(statusPath[1]!)) };
    if (method === 'POST' && path === '/v2/predict-provider') return predict(body);
    if (method === 'GET' && path === '/v2/active-conf') return { httpStatus: 200, json: activeConf() };
    if (method === 'GET' && path === '/v2/public-key/http') return { httpStatus: 200, json: [{ id: callbackKey.id, key: callbackKey.publicKeyPem }] };
    return { httpStatus: 404, json: { failureReason: { failureCode: 'NOT_FOUND', failureMessage: 'No such endpoint.' } } };
  };

  const control = (verb: string, body: Record<string, unknown>): unknown => {
    if (verb === 'failNext') {
      api.failNext(body.mode as FailMode, typeof body.count === 'number' ? body.count : 1);
      return {};
    }
    if (verb === 'callbackTo') {
      api.callbackTo(typeof body.url === 'string' ? body.url : null);
      return {};
    }
    if (verb === 'payouts') return api.payouts().map((payout) => ({ payoutId: payout.payoutId, status: payout.status, initiations: payout.initiations }));
    if (verb === 'requestCount') return { count: requests };
    return null;
  };

  const handle = (request: IncomingMessage, response: ServerResponse, raw: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://standin');
    const answer = (httpStatus: number, json: unknown) => {
      response.writeHead(httpStatus, { 'content-type': 'application/json' });
      response.end(JSON.stringify(json));
    };
    if (options.control === true && request.method === 'POST' && url.pathname.startsWith('/control/')) {
      const result = control(url.pathname.slice('/control/'.length), raw.length === 0 ? {} : (JSON.parse(raw.toString('utf8')) as Record<string, unknown>));
      answer(result === null ? 404 : 200, result ?? {});
      return;
    }
    requests += 1;
    const fault = takeFailure(['hang', 'drop-after-accept', 'http-500', 'http-429', 'http-503-after-accept']);
    if (fault === 'hang') return;
    if (fault === 'http-429') {
      answer(429, { message: 'Too many requests' });
      return;
    }
    if (fault === 'http-500') {
      answer(500, { failureReason: { failureCode: 'UNKNOWN_ERROR', failureMessage: 'Internal error.' } });
      return;
    }
    const authorization = request.headers.authorization;
    if (authorization === undefined) {
      answer(401, { failureReason: { failureCode: 'NO_AUTHENTICATION', failureMessage: 'No API token in the request.' } });
      return;
    }
    if (authorization !== `Bearer ${token}`) {
      answer(403, { failureReason: { failureCode: 'AUTHENTICATION_ERROR', failureMessage: 'The API token is not valid.' } });
      return;
    }
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        answer(400, { status: 'REJECTED', failureReason: { failureCode: 'INVALID_INPUT', failureMessage: 'The body is not JSON.' } });
        return;
      }
    }
    const result = route(request.method ?? 'GET', url.pathname, body);
    if (fault === 'drop-after-accept') {
      request.socket.destroy();
      return;
    }
    if (fault === 'http-503-after-accept') {
      answer(503, {});
      return;
    }
    answer(result.httpStatus, result.json);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > BODY_MAX_BYTES) {
        request.socket.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => handle(request, response, Buffer.concat(chunks)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stand-in: no address');

  const api: PawaPayStandIn = {
    url: `http://127.0.0.1:${address.port}`,
    token,
    callbackKey,
    failNext(mode, count = 1) {
      for (let i = 0; i < Math.min(count, 1000); i += 1) failures.push(mode);
    },
    payouts: () => [...payouts.values()],
    callbackTo(url) {
      callbackUrl = url;
    },
    callbackMode(mode) {
      callbackMode = mode;
    },
    holdCallbacks() {
      holding = true;
    },
    releaseCallbacks({ reverse = false } = {}) {
      holding = false;
      const queued = held.splice(0, held.length);
      for (const payout of reverse ? queued.reverse() : queued) send(payout);
    },
    async callbacksIdle() {
      // Let finishing payouts (setImmediate) start their deliveries first.
      await new Promise((resolve) => setImmediate(resolve));
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    deliveries: () => [...deliveries],
    requestCount: () => requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

/** A fresh payoutId, as Payrail's keys are (UUID version 4 layout). */
export function newPayoutId(): string {
  return randomUUID();
}
