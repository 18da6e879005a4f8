// A stand-in for Veriff's public API on 127.0.0.1, written from Veriff's
// documentation (devdocs.veriff.com): POST /v1/sessions (X-AUTH-CLIENT),
// GET /v1/sessions/{id}/decision (X-AUTH-CLIENT and X-HMAC-SIGNATURE of the
// session id), and the decision and event webhooks, signed with the shared
// secret (X-HMAC-SIGNATURE of the raw body), sent to a configured URL.
//
// Test integrations get no decision from Veriff's reviewers: a tester forces
// one, or creates the session with "Approve", "Decline" or "Resubmit" as the
// person's firstName, which decides the session that way once the end user
// submits it (submit()). decide() is the forced decision. A test may also
// send webhooks on purpose twice, out of order or with a bad signature, and
// break the line (failNext). Nothing here leaves loopback.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type StandInStatus = 'approved' | 'declined' | 'resubmission_requested' | 'expired' | 'abandoned' | 'review';

/** Veriff's status codes (its status codes table). */
export const STATUS_CODES: Readonly<Record<StandInStatus, number>> = {
  approved: 9001,
  declined: 9102,
  resubmission_requested: 9103,
  expired: 9104,
  abandoned: 9104,
  review: 9121,
};

/** The documented test-session first names and the decision each produces. */
const TEST_FIRST_NAMES: Readonly<Record<string, { status: StandInStatus; reasonCode: number | null; reason: string | null }>> = {
  Approve: { status: 'approved', reasonCode: null, reason: null },
  Decline: { status: 'declined', reasonCode: 102, reason: 'Suspected document tampering' },
  Resubmit: { status: 'resubmission_requested', reasonCode: 201, reason: 'Video and/or photos missing' },
};

export interface StandInDecision {
  readonly status: StandInStatus;
  readonly reasonCode: number | null;
  readonly reason: string | null;
  readonly decisionTime: string;
}

export interface StandInSession {
  readonly id: string;
  readonly url: string;
  readonly vendorData: string | null;
  readonly firstName: string | null;
  readonly attemptId: string;
  decision: StandInDecision | null;
  /** Every decision the session had, oldest first (webhooks can be replayed from it). */
  readonly history: StandInDecision[];
}

export type FailMode = 'hang' | 'http-500' | 'drop-after-commit';

export interface VeriffStandIn {
  /** The API root, as PAYRAIL_VERIFF_URL takes it. */
  readonly url: string;
  readonly apiKey: string;
  readonly sharedSecret: string;
  sessions(): readonly StandInSession[];
  session(id: string): StandInSession;
  /** The end user submits the session: event webhooks started and submitted, then a test first name's decision. */
  submit(id: string): Promise<void>;
  /** Forces a decision (the portal's "forcing the status"); sends the decision webhook unless told not to. */
  decide(id: string, status: StandInStatus, options?: { reasonCode?: number | null; decisionTime?: string; webhook?: boolean }): Promise<number | null>;
  /** Sends one of the session's past decisions again (duplicates, out of order); answers the callback's HTTP status. */
  resend(id: string, historyIndex: number): Promise<number | null>;
  /** Posts `body` with a signature made with `secret` (a wrong one) or the header left out (null); answers the callback's HTTP status. */
  sendRaw(body: string, signature: 'good' | 'bad' | 'missing' | 'malformed'): Promise<number | null>;
  webhookTo(url: string | null): void;
  /** Resolves when every webhook sent so far has been answered (or failed). */
  webhooksIdle(): Promise<void>;
  /** The next n API requests: 'hang' (never answer), 'http-500', 'drop-after-commit' (apply, then cut the connection). */
  failNext(mode: FailMode, count?: number): void;
  requestCount(): number;
  close(): Promise<void>;
}

const BODY_MAX_BYTES = 64 * 1024;

export function hmacHex(secret: string, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

export async function startVeriffStandIn(options: { apiKey?: string; sharedSecret?: string; now?: () => number; port?: number } = {}): Promise<VeriffStandIn> {
  const apiKey = options.apiKey ?? randomUUID();
  const sharedSecret = options.sharedSecret ?? randomUUID();
  const now = options.now ?? Date.now;
  const sessions = new Map<string, StandInSession>();
  const failures: FailMode[] = [];
  const sockets = new Set<Socket>();
  const pending = new Set<Promise<unknown>>();
  let webhookUrl: string | null = null;
  let requests = 0;
  let base = '';

  const verificationOf = (session: StandInSession, decision: StandInDecision) => ({
    id: session.id,
    attemptId: session.attemptId,
    vendorData: session.vendorData,
    endUserId: null,
    status: decision.status,
    code: STATUS_CODES[decision.status],
    reason: decision.reason,
    reasonCode: decision.reasonCode,
    decisionTime: decision.decisionTime,
    acceptanceTime: decision.decisionTime,
    person: { firstName: session.firstName, lastName: null, idNumber: null },
    document: { number: null, type: null, country: null },
    comments: [],
    additionalVerifiedData: {},
    riskLabels: [],
  });

  const post = (body: string, signature: string | null): Promise<number | null> => {
    if (webhookUrl === null) return Promise.resolve(null);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-auth-client': apiKey };
    if (signature !== null) headers['x-hmac-signature'] = signature;
    const delivery = fetch(webhookUrl, { method: 'POST', headers, body }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => null,
    );
    pending.add(delivery);
    void delivery.finally(() => pending.delete(delivery));
    return delivery;
  };
  const signedPost = (payload: unknown) => {
    const body = JSON.stringify(payload);
    return post(body, hmacHex(sharedSecret, body));
  };
  const sendDecision = (session: StandInSession, decision: StandInDecision) =>
    signedPost({ status: 'success', verification: verificationOf(session, decision), technicalData: { ip: null } });
  const sendEvent = (session: StandInSession, action: 'started' | 'submitted') =>
    signedPost({
      id: session.id,
      attemptId: session.attemptId,
      feature: 'selfid',
      code: action === 'started' ? 7001 : 7002,
      action,
      vendorData: session.vendorData,
      endUserId: null,
    });

  const known = (id: string): StandInSession => {
    const session = sessions.get(id);
    if (session === undefined) throw new Error(`no session ${id}`);
    return session;
  };
  const decideSession = (session: StandInSession, status: StandInStatus, reasonCode: number | null, decisionTime: string): StandInDecision => {
    const reason = status === 'approved' ? null : (Object.values(TEST_FIRST_NAMES).find((entry) => entry.reasonCode === reasonCode)?.reason ?? null);
    const decision: StandInDecision = { status, reasonCode: status === 'approved' ? null : reasonCode, reason, decisionTime };
    session.decision = decision;
    session.history.push(decision);
    return decision;
  };

  const standIn: Omit<VeriffStandIn, 'url'> = {
    apiKey,
    sharedSecret,
    sessions: () => [...sessions.values()],
    session: known,
    async submit(id) {
      const session = known(id);
      await sendEvent(session, 'started');
      await sendEvent(session, 'submitted');
      const test = session.firstName === null ? undefined : TEST_FIRST_NAMES[session.firstName];
      if (test !== undefined) await sendDecision(session, decideSession(session, test.status, test.reasonCode, new Date(now()).toISOString()));
    },
    async decide(id, status, decideOptions = {}) {
      const session = known(id);
      const decision = decideSession(
        session,
        status,
        decideOptions.reasonCode ?? (status === 'declined' ? 102 : status === 'resubmission_requested' ? 201 : null),
        decideOptions.decisionTime ?? new Date(now()).toISOString(),
      );
      return decideOptions.webhook === false ? null : sendDecision(session, decision);
    },
    resend(id, historyIndex) {
      const session = known(id);
      const decision = session.history[historyIndex];
      if (decision === undefined) throw new Error(`session ${id} has no decision ${historyIndex}`);
      return sendDecision(session, decision);
    },
    sendRaw(body, signature) {
      const header =
        signature === 'good'
          ? hmacHex(sharedSecret, body)
          : signature === 'bad'
            ? hmacHex(`${sharedSecret}x`, body)
            : signature === 'malformed'
              ? 'sha256=zz'
              : null;
      return post(body, header);
    },
    webhookTo(url) {
      webhookUrl = url;
    },
    async webhooksIdle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    failNext(mode, count = 1) {
      if (!['hang', 'http-500', 'drop-after-commit'].includes(mode)) throw new Error(`unknown failure mode ${mode}`);
      for (let i = 0; i < count; i++) failures.push(mode);
    },
    requestCount: () => requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  /** Answers never sent: the connection was cut after the request was applied. */
  const muted = new WeakSet<ServerResponse>();
  const reply = (response: ServerResponse, status: number, body: unknown): undefined => {
    if (response.destroyed || muted.has(response)) return;
    const text = JSON.stringify(body);
    // Veriff signs its answers too (X-HMAC-SIGNATURE of the body).
    response.writeHead(status, { 'content-type': 'application/json', 'x-hmac-signature': hmacHex(sharedSecret, text) });
    response.end(text);
  };
  const refuse = (response: ServerResponse, status: number, code: string, message: string): undefined =>
    reply(response, status, { status: 'fail', code, message });

  const handle = (request: IncomingMessage, response: ServerResponse, raw: string): undefined => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (request.headers['x-auth-client'] !== apiKey)
      return refuse(response, 401, '1801', 'Mandatory X-AUTH-CLIENT header containing the API key is missing or invalid.');
    if (request.method === 'POST' && (path === '/v1/sessions' || path === '/v1/sessions/')) {
      let body: { verification?: { vendorData?: unknown; person?: { firstName?: unknown } } };
      try {
        body = JSON.parse(raw) as typeof body;
      } catch {
        return refuse(response, 400, '1102', 'Mandatory parameters are missing from the request.');
      }
      const verification = body?.verification;
      if (verification === null || typeof verification !== 'object') return refuse(response, 400, '1102', 'Mandatory parameters are missing from the request.');
      const vendorData = verification.vendorData;
      if (vendorData !== undefined && (typeof vendorData !== 'string' || vendorData.length > 1000))
        return refuse(response, 400, '1104', 'vendorData must be a string of at most 1000 characters.');
      const token = randomBytes(24).toString('base64url');
      const firstName = typeof verification.person?.firstName === 'string' ? verification.person.firstName : null;
      const session: StandInSession = {
        id: randomUUID(),
        url: `${base}/v/${token}`,
        vendorData: vendorData ?? null,
        firstName,
        attemptId: randomUUID(),
        decision: null,
        history: [],
      };
      sessions.set(session.id, session);
      return reply(response, 201, {
        status: 'success',
        verification: { id: session.id, url: session.url, vendorData: session.vendorData, host: base, status: 'created', sessionToken: token },
      });
    }
    const match = /^\/v1\/sessions\/([^/]+)\/decision$/.exec(path);
    if (request.method === 'GET' && match !== null) {
      const id = decodeURIComponent(match[1]!);
      const signature = request.headers['x-hmac-signature'];
      if (typeof signature !== 'string' || signature.toLowerCase() !== hmacHex(sharedSecret, id))
        return refuse(response, 401, '1812', 'Signature is not valid.');
      const session = sessions.get(id);
      if (session === undefined) return refuse(response, 404, '1818', 'Session not found.');
      return reply(response, 200, {
        status: 'success',
        verification: session.decision === null ? null : verificationOf(session, session.decision),
        technicalData: { ip: null },
      });
    }
    return refuse(response, 404, '1001', 'Not found.');
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_MAX_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      requests += 1;
      if (size > BODY_MAX_BYTES) return void response.writeHead(413).end();
      const failure = failures.shift();
      if (failure === 'hang') return;
      if (failure === 'http-500') return void response.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      if (failure === 'drop-after-commit') {
        muted.add(response);
        handle(request, response, Buffer.concat(chunks).toString('utf8'));
        request.socket.destroy();
        return;
      }
      handle(request, response, Buffer.concat(chunks).toString('utf8'));
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
  base = `http://127.0.0.1:${address.port}`;
  return { ...standIn, url: base };
}
