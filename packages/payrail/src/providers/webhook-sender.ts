// Sends one webhook POST. Node's http/https with a deadline for the whole
// exchange (an AbortSignal), an answer body read up to 1 KiB and then cut
// off, and in production a DNS look-up of our own at connection time that
// refuses any non-public address (public-address.ts). Never throws: every
// failure is an outcome the delivery worker records.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isPublicAddress } from './public-address.ts';

export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Production: only public addresses (checked on the resolved address). */
  readonly publicOnly: boolean;
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

/** `resolve`, then every address it returned must be public; the connection goes to one of them. */
const publicLookupWith =
  (resolve: Resolve): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = list.find((entry) => !isPublicAddress(entry.address));
      if (refused !== undefined || list.length === 0) {
        return callback(new BlockedAddressError(`${hostname} resolves to a non-public address`) as NodeJS.ErrnoException, '', 0);
      }
      if (options.all === true) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };

export function createWebhookSender(resolve: Resolve = dns.lookup): WebhookSender {
  const publicLookup = publicLookupWith(resolve);
  return (request) => send(request, publicLookup);
}

export const sendWebhook: WebhookSender = createWebhookSender();

function send(request: WebhookRequest, publicLookup: LookupFunction): Promise<WebhookResponse> {
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
    if (request.publicOnly && url.protocol !== 'https:') return finish({ statusCode: null, error: 'url is not https', body: null });
    // An IP literal is not looked up, so it is checked here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (request.publicOnly && (literal === 'localhost' || (/^[0-9.:a-f]+$/i.test(literal) && !isPublicAddress(literal)))) {
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
        ...(request.publicOnly ? { lookup: publicLookup } : {}),
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
