// A stand-in for MTN MoMo's Open API (Disbursement product) on 127.0.0.1,
// written from MTN's API reference and its sandbox's rules: the token
// endpoint (Basic authentication with the API user and key, the
// subscription key), transfer (202, idempotent on X-Reference-Id: a second
// send of a reference is answered 409 RESOURCE_ALREADY_EXIST), transfer
// status, account-holder check, balance, and callbacks to the transfer's
// X-Callback-Url once it ends. Its transfers end as MTN's published sandbox
// numbers do (test-data.ts). Fault switches let a test break the line on
// purpose: hang, drop the connection after taking a transfer, answer 5xx,
// expire tokens; callbacks can be sent twice or followed by a stale one.
// Nothing here leaves loopback.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { hasWallet, outcomeOfNumber, SANDBOX_CURRENCY, SANDBOX_TARGET_ENVIRONMENT, type StandInOutcome } from './test-data.ts';

export * from './test-data.ts';

export interface StandInOptions {
  subscriptionKey?: string;
  apiUser?: string;
  apiKey?: string;
  /** expires_in of the tokens it grants (seconds); MoMo's are 3600. */
  tokenLifetimeSeconds?: number;
  port?: number;
  /** Serve POST /control/<verb> on the same port (stand-in-main.ts). */
  control?: boolean;
}

/**
 * 'hang': never answer. 'hang-after-accept': take the transfer, then never
 * answer (a crash test kills Payrail while it waits). 'drop-after-accept': take the transfer, then destroy
 * the socket before answering. 'http-500' / 'http-503': answer
 * INTERNAL_PROCESSING_ERROR / SERVICE_UNAVAILABLE without taking anything.
 * 'http-404': answer 404 without taking anything, as a wrong path or gateway
 * in front of MoMo would.
 * 'token-expired': refuse the next call's token with 401, as MoMo does for
 * a token it ended early.
 */
export type FailMode = 'hang' | 'hang-after-accept' | 'drop-after-accept' | 'http-404' | 'http-500' | 'http-503' | 'token-expired';

/** Which requests a failure applies to. */
export type FailTarget = 'transfer' | 'status' | 'token' | 'any';

export interface CallbackOptions {
  /** Send every callback twice. */
  duplicate?: boolean;
  /** After a final callback, send a stale PENDING one (an earlier state arriving late). */
  staleAfterFinal?: boolean;
}

export interface StandInTransfer {
  readonly referenceId: string;
  readonly externalId: string;
  readonly amount: string;
  readonly currency: string;
  readonly msisdn: string;
  readonly targetEnvironment: string;
  readonly callbackUrl: string | null;
  status: 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  reason: string | null;
  financialTransactionId: string | null;
}

export interface MtnMomoStandIn {
  /** The API root, for PAYRAIL_MTN_MOMO_URL. */
  readonly url: string;
  readonly subscriptionKey: string;
  readonly apiUser: string;
  readonly apiKey: string;
  failNext(mode: FailMode, count?: number, target?: FailTarget): void;
  /** Ends every token granted so far (the next call with one gets 401). */
  expireTokens(): void;
  /** Ends a PENDING transfer as `outcome`, and calls back. */
  resolve(referenceId: string, outcome: StandInOutcome): void;
  callbackOptions(options: CallbackOptions): void;
  /** Transfers to `msisdn` end as `outcome` from now on (a test's own number, beyond MTN's published ones). */
  scriptNumber(msisdn: string, outcome: StandInOutcome): void;
  /** Resolves when every callback sent so far was delivered (or failed). */
  callbacksIdle(): Promise<void>;
  transfers(): readonly StandInTransfer[];
  /** How many transfer POSTs took money (a 409 takes none). */
  transfersTaken(): number;
  tokenRequests(): number;
  requestCount(): number;
  close(): Promise<void>;
}

const BODY_MAX_BYTES = 64 * 1024;
const FAIL_COUNT_MAX = 1000;
const NOTE_CHARS_MAX = 160;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const AMOUNT = /^[0-9]{1,15}(\.[0-9]{1,4})?$/;
const MSISDN = /^[0-9]{7,15}$/;
const CALLBACK_TIMEOUT_MS = 2_000;
const BALANCE = '1000000.00';

export async function startMtnMomoStandIn(options: StandInOptions = {}): Promise<MtnMomoStandIn> {
  const subscriptionKey = options.subscriptionKey ?? randomBytes(16).toString('hex');
  const apiUser = options.apiUser ?? randomUUID();
  const apiKey = options.apiKey ?? randomBytes(16).toString('hex');
  const lifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  const transfers = new Map<string, StandInTransfer>();
  const tokens = new Map<string, number>();
  const failures: Array<{ mode: FailMode; target: FailTarget }> = [];
  const sockets = new Set<Socket>();
  const deliveries = new Set<Promise<void>>();
  let callbackOptions: CallbackOptions = {};
  const scripted = new Map<string, StandInOutcome>();
  let requests = 0;
  let tokenRequests = 0;
  let taken = 0;

  const send = (response: ServerResponse, status: number, body?: unknown) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  const error = (response: ServerResponse, status: number, code: string, message: string) => send(response, status, { code, message });

  const resultOf = (transfer: StandInTransfer, status = transfer.status) => ({
    amount: transfer.amount,
    currency: transfer.currency,
    ...(status === 'SUCCESSFUL' && transfer.financialTransactionId !== null ? { financialTransactionId: transfer.financialTransactionId } : {}),
    externalId: transfer.externalId,
    payee: { partyIdType: 'MSISDN', partyId: transfer.msisdn },
    payerMessage: 'Payrail',
    payeeNote: 'Payrail',
    status,
    ...(status === 'FAILED' && transfer.reason !== null ? { reason: transfer.reason } : {}),
  });

  const deliver = (url: string, body: unknown) => {
    const delivery = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    })
      .then((response) => response.body?.cancel())
      .catch(() => undefined)
      .then(() => {
        deliveries.delete(delivery);
      });
    deliveries.add(delivery);
    return delivery;
  };

  /** MoMo calls back once a transfer ends (MTN's callback page); in order, one delivery after another. */
  const callBack = (transfer: StandInTransfer) => {
    if (transfer.callbackUrl === null || transfer.status === 'PENDING') return;
    const url = transfer.callbackUrl;
    const final = resultOf(transfer);
    const sequence = async () => {
      await deliver(url, final);
      if (callbackOptions.duplicate === true) await deliver(url, final);
      if (callbackOptions.staleAfterFinal === true) await deliver(url, resultOf(transfer, 'PENDING'));
    };
    const all = sequence();
    const tracked = all.then(() => {
      deliveries.delete(tracked);
    });
    deliveries.add(tracked);
  };

  const end = (transfer: StandInTransfer, outcome: StandInOutcome) => {
    transfer.status = outcome.status;
    transfer.reason = outcome.status === 'FAILED' ? outcome.reason : null;
    transfer.financialTransactionId = outcome.status === 'SUCCESSFUL' ? String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999)) : null;
    callBack(transfer);
  };

  const takeFailure = (target: Exclude<FailTarget, 'any'>): FailMode | null => {
    // 'any' means any API call; the token endpoint fails only when a test names it.
    const index = failures.findIndex((failure) => failure.target === target || (failure.target === 'any' && target !== 'token'));
    if (index < 0) return null;
    return failures.splice(index, 1)[0]!.mode;
  };

  const bearerValid = (request: IncomingMessage): boolean => {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return false;
    const expiresAtMs = tokens.get(header.slice('Bearer '.length));
    return expiresAtMs !== undefined && Date.now() < expiresAtMs;
  };

  const handleToken = (request: IncomingMessage, response: ServerResponse) => {
    tokenRequests += 1;
    const expected = `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`;
    if (request.headers.authorization !== expected) return send(response, 401, { error: 'login_failed' });
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, Date.now() + lifetimeSeconds * 1000);
    return send(response, 200, { access_token: token, token_type: 'access_token', expires_in: lifetimeSeconds });
  };

  /** POST /disbursement/v1_0/transfer; answers the status, or 'dropped'. */
  const handleTransfer = (request: IncomingMessage, response: ServerResponse, raw: string, mode: FailMode | null) => {
    const referenceId = String(request.headers['x-reference-id'] ?? '');
    // MTN documents the 400 ("request does not follow the specification", e.g. an X-Reference-Id that is no UUID v4) but no body for it: none is sent.
    if (!UUID_V4.test(referenceId)) return send(response, 400);
    if (transfers.has(referenceId)) return error(response, 409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(response, 400);
    }
    const payee = body.payee as { partyIdType?: unknown; partyId?: unknown } | undefined;
    const notes = [body.payerMessage, body.payeeNote];
    if (
      typeof body.amount !== 'string' ||
      !AMOUNT.test(body.amount) ||
      Number(body.amount) <= 0 ||
      typeof body.externalId !== 'string' ||
      payee?.partyIdType !== 'MSISDN' ||
      typeof payee.partyId !== 'string' ||
      !MSISDN.test(payee.partyId) ||
      notes.some((note) => note !== undefined && (typeof note !== 'string' || note.length > NOTE_CHARS_MAX || note.includes("'")))
    ) {
      return send(response, 400);
    }
    const target = String(request.headers['x-target-environment'] ?? '');
    if (target !== SANDBOX_TARGET_ENVIRONMENT) return error(response, 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.');
    if (body.currency !== SANDBOX_CURRENCY) return error(response, 500, 'INVALID_CURRENCY', 'Currency not supported.');
    const callbackHeader = request.headers['x-callback-url'];
    const callbackUrl = typeof callbackHeader === 'string' && /^https?:\/\//.test(callbackHeader) ? callbackHeader : null;
    const transfer: StandInTransfer = {
      referenceId,
      externalId: body.externalId,
      amount: body.amount,
      currency: body.currency,
      msisdn: payee.partyId,
      targetEnvironment: target,
      callbackUrl,
      status: 'PENDING',
      reason: null,
      financialTransactionId: null,
    };
    transfers.set(referenceId, transfer);
    taken += 1;
    // The sandbox ends a transfer at once, after answering; its callback follows.
    setImmediate(() => {
      const outcome = scripted.get(transfer.msisdn) ?? outcomeOfNumber(transfer.msisdn);
      if (outcome.status !== 'PENDING') end(transfer, outcome);
    });
    if (mode === 'drop-after-accept') {
      request.socket.destroy();
      return;
    }
    if (mode === 'hang-after-accept') return;
    return send(response, 202);
  };

  const handleApi = (request: IncomingMessage, response: ServerResponse, path: string, raw: string) => {
    if (request.headers['ocp-apim-subscription-key'] !== subscriptionKey) {
      return send(response, 401, {
        statusCode: 401,
        message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
      });
    }
    if (path === '/disbursement/token/' && request.method === 'POST') {
      const mode = takeFailure('token');
      if (mode === 'hang') return;
      if (mode === 'drop-after-accept') return request.socket.destroy();
      if (mode === 'http-500') return error(response, 500, 'INTERNAL_PROCESSING_ERROR', 'An internal error occurred');
      if (mode === 'http-503') return error(response, 503, 'SERVICE_UNAVAILABLE', 'Service unavailable');
      return handleToken(request, response);
    }
    const isTransfer = path === '/disbursement/v1_0/transfer' && request.method === 'POST';
    const mode = takeFailure(isTransfer ? 'transfer' : 'status');
    if (mode === 'hang') return;
    if (mode === 'token-expired') tokens.clear();
    if (!bearerValid(request)) return send(response, 401, { code: 'UNAUTHORIZED', message: 'Access token is missing, invalid or expired' });
    if (mode === 'http-500') return error(response, 500, 'INTERNAL_PROCESSING_ERROR', 'An internal error occurred');
    if (mode === 'http-503') return error(response, 503, 'SERVICE_UNAVAILABLE', 'Service unavailable');
    if (mode === 'http-404') return error(response, 404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
    if (isTransfer) return handleTransfer(request, response, raw, mode);
    if (request.method !== 'GET') return error(response, 404, 'RESOURCE_NOT_FOUND', 'No such operation');
    const target = String(request.headers['x-target-environment'] ?? '');
    if (target !== SANDBOX_TARGET_ENVIRONMENT) return error(response, 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.');
    if (mode === 'drop-after-accept') return request.socket.destroy();
    const status = /^\/disbursement\/v1_0\/transfer\/([^/]+)$/.exec(path);
    if (status !== null) {
      const transfer = transfers.get(decodeURIComponent(status[1]!));
      if (transfer === undefined) return error(response, 404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
      return send(response, 200, resultOf(transfer));
    }
    const holder = /^\/disbursement\/v1_0\/accountholder\/msisdn\/([0-9]{1,20})\/active$/.exec(path);
    if (holder !== null) return send(response, 200, { result: hasWallet(holder[1]!) });
    if (path === '/disbursement/v1_0/account/balance') return send(response, 200, { availableBalance: BALANCE, currency: SANDBOX_CURRENCY });
    return error(response, 404, 'RESOURCE_NOT_FOUND', 'No such operation');
  };

  const standIn: Omit<MtnMomoStandIn, 'url'> = {
    subscriptionKey,
    apiUser,
    apiKey,
    failNext(mode, count = 1, target = mode === 'drop-after-accept' || mode === 'hang-after-accept' ? 'transfer' : 'any') {
      if (!Number.isSafeInteger(count) || count < 1 || count > FAIL_COUNT_MAX) throw new Error(`failNext count must be 1 to ${FAIL_COUNT_MAX}`);
      for (let i = 0; i < count; i += 1) failures.push({ mode, target });
    },
    expireTokens() {
      tokens.clear();
    },
    resolve(referenceId, outcome) {
      const transfer = transfers.get(referenceId);
      if (transfer === undefined) throw new Error(`no transfer ${referenceId}`);
      if (transfer.status !== 'PENDING') throw new Error(`transfer ${referenceId} already ended ${transfer.status}`);
      end(transfer, outcome);
    },
    callbackOptions(next) {
      callbackOptions = { ...next };
    },
    scriptNumber(msisdn, outcome) {
      scripted.set(msisdn, outcome);
    },
    async callbacksIdle() {
      while (deliveries.size > 0) await Promise.all([...deliveries]);
    },
    transfers: () => [...transfers.values()],
    transfersTaken: () => taken,
    tokenRequests: () => tokenRequests,
    requestCount: () => requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handleControl = (verb: string, raw: string, response: ServerResponse) => {
    const args = (raw === '' ? {} : JSON.parse(raw)) as Record<string, unknown>;
    switch (verb) {
      case 'failNext':
        standIn.failNext(args.mode as FailMode, (args.count as number | undefined) ?? 1, args.target as FailTarget | undefined);
        return send(response, 200, { ok: true });
      case 'expireTokens':
        standIn.expireTokens();
        return send(response, 200, { ok: true });
      case 'resolve':
        standIn.resolve(String(args.referenceId), args.outcome as StandInOutcome);
        return send(response, 200, { ok: true });
      case 'callbackOptions':
        standIn.callbackOptions(args as CallbackOptions);
        return send(response, 200, { ok: true });
      case 'scriptNumber':
        standIn.scriptNumber(String(args.msisdn), args.outcome as StandInOutcome);
        return send(response, 200, { ok: true });
      case 'callbacksIdle':
        return void standIn.callbacksIdle().then(() => send(response, 200, { ok: true }));
      case 'transfers':
        return send(response, 200, { transfers: standIn.transfers(), taken: standIn.transfersTaken() });
      case 'requestCount':
        return send(response, 200, { requests: standIn.requestCount(), tokenRequests: standIn.tokenRequests() });
      default:
        return error(response, 404, 'RESOURCE_NOT_FOUND', `no control verb ${verb}`);
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > BODY_MAX_BYTES) request.socket.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
      try {
        if (options.control === true && path.startsWith('/control/') && request.method === 'POST') {
          return handleControl(path.slice('/control/'.length), raw, response);
        }
        requests += 1;
        handleApi(request, response, path, raw);
      } catch (failure) {
        send(response, 500, { code: 'INTERNAL_PROCESSING_ERROR', message: (failure as Error).message });
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in has no port');
  return { ...standIn, url: `http://127.0.0.1:${address.port}` };
}
