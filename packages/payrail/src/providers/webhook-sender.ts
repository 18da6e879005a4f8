// Sends one webhook POST. Node's http/https with a deadline for the whole
// exchange (an AbortSignal), an answer body read up to 1 KiB and then cut
// off, and a DNS look-up of our own at connection time that refuses any
// address the delivery rule does not allow (webhook-address-rule.ts: public
// addresses, and in the sandbox loopback or allow-listed ones). Never
// throws: every failure is an outcome the delivery worker records.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { hostAllowed, type WebhookAddressRule } from './webhook-address-rule.ts';

export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Which addresses may be sent to (checked on the resolved address), or null for any (the operator's own `webhooks tail`). */
  readonly rule: WebhookAddressRule | null;
  readonly responseBodyBytesMax: number;
  /** Aborts the send (a worker shutting down); the answer is then an error. */
  readonly signal?: AbortSignal;
}

export interface WebhookResponse {
  readonly statusCode: number | null;
  /** Why no answer came (timeout, refused, blocked address), or null. */
  readonly error: string | null;
  readonly latencyMs: number;
  /** The start of the answer's body, or null. */
  readonly body: string | null;
}

export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;

class BlockedAddressError extends Error {}

/** How names are resolved: dns.lookup (the system resolver), or a stand-in in tests. */
export type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/** `resolve`, then every address it returned must be allowed by the rule; the connection goes to one of them. */
const checkedLookupWith =
  (resolve: Resolve, rule: WebhookAddressRule): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = list.find((entry) => !rule.allows(entry.address));
      if (refused !== undefined || list.length === 0) {
        return callback(new BlockedAddressError(`${hostname} resolves to a non-public address`) as NodeJS.ErrnoException, '', 0);
      }
      if (options.all === true) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };

export function createWebhookSender(resolve: Resolve = dns.lookup): WebhookSender {
  return (request) => send(request, request.rule === null ? null : checkedLookupWith(resolve, request.rule));
}

export const sendWebhook: WebhookSender = createWebhookSender();

function send(request: WebhookRequest, checkedLookup: LookupFunction | null): Promise<WebhookResponse> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  return new Promise<WebhookResponse>((resolve) => {
    let settled = false;
    const finish = (response: Omit<WebhookResponse, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...response, latencyMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return finish({ statusCode: null, error: 'invalid url', body: null });
    }
    if (request.rule?.httpsOnly === true && url.protocol !== 'https:') return finish({ statusCode: null, error: 'url is not https', body: null });
    // An IP literal is not looked up, so it is checked here (the URL parser has made any IPv4 shorthand dotted).
    if (request.rule !== null && !hostAllowed(request.rule, url.hostname)) {
      return finish({ statusCode: null, error: 'url names a non-public address', body: null });
    }
    const deadline = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal === undefined ? deadline : AbortSignal.any([deadline, request.signal]);
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        signal,
        agent: false,
        ...(checkedLookup === null ? {} : { lookup: checkedLookup }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        const done = () => {
          const body = Buffer.concat(chunks).subarray(0, request.responseBodyBytesMax).toString('utf8');
          finish({ statusCode: res.statusCode ?? null, error: null, body });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (bytes < request.responseBodyBytesMax) chunks.push(chunk);
          bytes += chunk.length;
          // Enough is kept: the status is what counts, so stop reading.
          if (bytes >= request.responseBodyBytesMax) done();
        });
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    req.on('error', (error) => {
      const blocked = error instanceof BlockedAddressError || error.cause instanceof BlockedAddressError;
      const text =
        request.signal?.aborted === true
          ? 'stopped'
          : deadline.aborted
            ? `no answer within ${request.timeoutMs} ms`
            : blocked
              ? error.message
              : `connection failed (${(error as NodeJS.ErrnoException).code ?? error.name})`;
      finish({ statusCode: null, error: text, body: null });
    });
    req.end(request.body);
  });
}
