// A stand-in for Authorize.net's API on 127.0.0.1, for the connector's
// contract test, the end-to-end lifecycle test and the crash test. It speaks
// the JSON API at /xml/v1/request.api as documented (wire.ts,
// create-transaction.ts, reports.ts; test data in test-data.ts), keeps its
// transactions in memory, sends signed webhooks (webhooks.ts), and lets a
// test break the line on purpose (failNext). Nothing here leaves loopback.
//
// eChecks (echeck.ts) are kept beside the cards. Stand-in-only triggers, by
// the account number's last four digits (test-data.ts): 7999 declines;
// 7001 R01, 7002 R02, 7003 R03, 7010 R10 settle at one settle() and are
// returned at the next. returnItem(transId, code) returns any settled eCheck
// on demand. Control verbs (stand-in-main.ts): settle, returnItem.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createTransaction, type LedgerEvent, resolveHeld as resolveHeldTransaction, updateSplitTenderGroup } from './create-transaction.ts';
import { dueTriggeredReturns, returnItem as returnEcheck } from './echeck.ts';
import { Ledger, type StandInTransaction } from './ledger.ts';
import { settledBatchList, transactionDetails, transactionList, unsettledList } from './reports.ts';
import { WebhookSender } from './webhooks.ts';
import { ApiRefusal, answerText, checkOrder, child, isObject, type JsonObject, messages, text } from './wire.ts';

export type { StandInTransaction } from './ledger.ts';
export { anetSignature } from './webhooks.ts';
export * from './test-data.ts';

export interface StandInOptions {
  loginId?: string;
  transactionKey?: string;
  signatureKey?: string;
  port?: number;
  /** Serve POST /control/<verb> on the same port (stand-in-main.ts). */
  control?: boolean;
  /** The stand-in's clock (ms since the epoch); tests of the duplicate window move it. */
  now?: () => number;
}

export type FailMode = 'hang' | 'drop-after-commit' | 'http-500' | `slow:${number}`;

export interface AuthorizeNetStandIn {
  readonly url: string;
  readonly loginId: string;
  readonly transactionKey: string;
  readonly signatureKey: string;
  /** The next n API requests: 'hang' (never answer), 'drop-after-commit' (apply, then destroy the socket), 'http-500', 'slow:<ms>' (apply, answer late). */
  failNext(mode: FailMode, count?: number): void;
  transactions(): readonly StandInTransaction[];
  resolveHeld(transId: string, decision: 'approve' | 'decline'): void;
  /** The gateway ends a transaction on its own without moving money (declined after review, an error): its status becomes `status`. */
  endWithoutMoving(transId: string, status: 'declined' | 'failedReview' | 'generalError'): void;
  /** The daily cut-off: eChecks owing a triggered return (test-data.ts ECHECK_RETURNS) are returned first, then everything captured settles. Answers the card batch's id. */
  settle(): string;
  /** Returns a settled eCheck now with a NACHA code (R01...): its details then list the return in returnedItems. Answers the return's transId. */
  returnItem(transId: string, code: string, description?: string): string;
  webhookTo(url: string | null): void;
  /** Resolves when every webhook sent so far has been delivered (or failed). */
  webhooksIdle(): Promise<void>;
  requestCount(): number;
  close(): Promise<void>;
}

export const API_PATH = '/xml/v1/request.api';

/** Return texts when a test names only the code (Authorize.net's eCheck return report wording). */
const ACH_RETURN_TEXTS: Readonly<Record<string, string>> = {
  R01: 'Insufficient Funds',
  R02: 'Account Closed',
  R03: 'No Account/Unable to Locate Account',
  R04: 'Invalid Account Number',
  R10: 'Customer Advises Not Authorized',
  R29: 'Corporate Customer Advises Not Authorized',
};
/** The real endpoint's documented request limit is not published; 64 KiB is far above any request the connector sends. */
const BODY_MAX_BYTES = 64 * 1024;
const FAIL_COUNT_MAX = 1000;
const SLOW_MAX_MS = 60_000;

/** API reference field limits: name (API login id) up to 25 characters, transactionKey 16. */
const LOGIN_ID_MAX = 25;
const TRANSACTION_KEY_MAX = 16;

export async function startAuthorizeNetStandIn(options: StandInOptions = {}): Promise<AuthorizeNetStandIn> {
  const loginId = options.loginId ?? `standin${randomBytes(4).toString('hex')}`;
  const transactionKey = options.transactionKey ?? randomBytes(8).toString('hex');
  // A real Signature Key is 128 hex characters; HMAC uses its text as the key.
  const signatureKey = options.signatureKey ?? randomBytes(64).toString('hex').toUpperCase();
  const now = options.now ?? Date.now;
  const ledger = new Ledger();
  const webhooks = new WebhookSender(signatureKey);
  const failures: FailMode[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let requests = 0;

  const emit = (events: readonly LedgerEvent[]) => webhooks.send(events, now());

  const handleApi = (raw: string): JsonObject => {
    const refusal = (error: unknown): JsonObject => {
      if (error instanceof ApiRefusal) return { messages: messages(error.code, error.text) };
      throw error;
    };
    let body: unknown;
    try {
      body = JSON.parse(raw.replace(/^\uFEFF/, ''));
    } catch {
      return { messages: messages('E00003', 'Unexpected character encountered while parsing value.') };
    }
    if (!isObject(body as JsonObject) || Object.keys(body as JsonObject).length !== 1) {
      return { messages: messages('E00003', 'The request must be one object named after its request type.') };
    }
    const [name, request] = Object.entries(body as JsonObject)[0]!;
    try {
      if (!isObject(request)) throw new ApiRefusal('E00003', `The element '${name}' is invalid.`);
      checkOrder(name, request);
      const auth = child(request, 'merchantAuthentication');
      const refId = text(request, 'refId', 20);
      if (auth === null || text(auth, 'name', LOGIN_ID_MAX) !== loginId || text(auth, 'transactionKey', TRANSACTION_KEY_MAX) !== transactionKey) {
        return { ...(refId === null ? {} : { refId }), messages: messages('E00007') };
      }
      const answer = dispatch(name, request, refId);
      return refId === null || 'refId' in answer ? answer : { refId, ...answer };
    } catch (error) {
      return refusal(error);
    }
  };

  const dispatch = (name: string, request: JsonObject, refId: string | null): JsonObject => {
    switch (name) {
      case 'authenticateTestRequest':
        return { messages: messages('I00001') };
      case 'createTransactionRequest': {
        const outcome = createTransaction(ledger, request, { loginId, nowMs: now(), refId });
        emit(outcome.events);
        return outcome.answer;
      }
      case 'updateSplitTenderGroupRequest':
        return updateSplitTenderGroup(ledger, request).answer;
      case 'getTransactionDetailsRequest':
        return transactionDetails(ledger, request);
      case 'getUnsettledTransactionListRequest':
        return unsettledList(ledger, request);
      case 'getSettledBatchListRequest':
        return settledBatchList(ledger, request, now());
      case 'getTransactionListRequest':
        return transactionList(ledger, request);
      default:
        throw new ApiRefusal('E00003', `The element '${name}' is not a request this stand-in knows.`);
    }
  };

  const standIn: Omit<AuthorizeNetStandIn, 'url'> = {
    loginId,
    transactionKey,
    signatureKey,
    failNext(mode, count = 1) {
      if (!/^(hang|drop-after-commit|http-500|slow:\d+)$/.test(mode)) throw new Error(`unknown failure mode ${mode}`);
      if (mode.startsWith('slow:') && Number(mode.slice(5)) > SLOW_MAX_MS) throw new Error(`slow is at most ${SLOW_MAX_MS} ms`);
      if (!Number.isInteger(count) || count < 1 || failures.length + count > FAIL_COUNT_MAX) throw new Error('bad failure count');
      for (let i = 0; i < count; i++) failures.push(mode);
    },
    transactions: () => ledger.all().map((transaction) => ({ ...transaction })),
    resolveHeld(transId, decision) {
      const transaction = ledger.get(transId);
      if (transaction === undefined) throw new Error(`no transaction ${transId}`);
      emit([resolveHeldTransaction(transaction, decision)]);
    },
    endWithoutMoving(transId, status) {
      const transaction = ledger.get(transId);
      if (transaction === undefined) throw new Error(`no transaction ${transId}`);
      transaction.status = status;
    },
    settle: () => {
      dueTriggeredReturns(ledger, now());
      return ledger.settle(now()).batchId;
    },
    returnItem: (transId, code, description) => returnEcheck(ledger, transId, code, description ?? ACH_RETURN_TEXTS[code] ?? `Return ${code}`, now()).transId,
    webhookTo: (url) => webhooks.to(url),
    webhooksIdle: () => webhooks.idle(),
    requestCount: () => requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const answer = (response: ServerResponse, body: JsonObject) => {
    if (response.destroyed) return;
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(answerText(body));
  };

  const serveApi = (request: IncomingMessage, response: ServerResponse, raw: string) => {
    requests += 1;
    const failure = failures.shift();
    if (failure === 'hang') return;
    if (failure === 'http-500') {
      response.writeHead(500, { 'content-type': 'text/html' });
      response.end('<html><body>Internal Server Error</body></html>');
      return;
    }
    const body = handleApi(raw);
    if (failure === 'drop-after-commit') {
      request.socket.destroy();
      return;
    }
    if (failure?.startsWith('slow:')) {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          answer(response, body);
        },
        Number(failure.slice(5)),
      );
      timers.add(timer);
      return;
    }
    answer(response, body);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_MAX_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0];
      if (size > BODY_MAX_BYTES) {
        response.writeHead(413).end();
      } else if (request.method === 'POST' && path === API_PATH) {
        serveApi(request, response, Buffer.concat(chunks).toString('utf8'));
      } else if (options.control === true && request.method === 'POST' && path?.startsWith('/control/')) {
        void serveControl(standIn, path.slice('/control/'.length), Buffer.concat(chunks).toString('utf8'), response);
      } else {
        response.writeHead(404).end();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in has no TCP address');
  return { ...standIn, url: `http://127.0.0.1:${address.port}${API_PATH}` };
}

/** POST /control/<verb> with a JSON body: the control surface for a stand-in in another process. */
async function serveControl(standIn: Omit<AuthorizeNetStandIn, 'url'>, verb: string, raw: string, response: ServerResponse): Promise<void> {
  const reply = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? null));
  };
  try {
    const args = (raw === '' ? {} : JSON.parse(raw)) as Record<string, unknown>;
    switch (verb) {
      case 'failNext':
        standIn.failNext(String(args.mode) as FailMode, args.count === undefined ? 1 : Number(args.count));
        return reply(200, {});
      case 'transactions':
        return reply(200, standIn.transactions());
      case 'resolveHeld':
        standIn.resolveHeld(String(args.transId), args.decision === 'decline' ? 'decline' : 'approve');
        return reply(200, {});
      case 'settle':
        return reply(200, { batchId: standIn.settle() });
      case 'returnItem':
        return reply(200, {
          transId: standIn.returnItem(String(args.transId), String(args.code), typeof args.description === 'string' ? args.description : undefined),
        });
      case 'webhookTo':
        standIn.webhookTo(typeof args.url === 'string' ? args.url : null);
        return reply(200, {});
      case 'webhooksIdle':
        await standIn.webhooksIdle();
        return reply(200, {});
      case 'requestCount':
        return reply(200, { count: standIn.requestCount() });
      default:
        return reply(404, { error: `unknown control verb ${verb}` });
    }
  } catch (error) {
    return reply(400, { error: error instanceof Error ? error.message : String(error) });
  }
}
