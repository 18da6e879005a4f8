// A real HTTP webhook receiver on loopback for the delivery tests: it keeps
// every request (raw body and headers) and answers as the test says: a
// status code, or never (the socket stays open until the server closes).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** How to answer the next request: a status code, or 'hang'. */
  answer: (index: number) => number | 'hang';
  close(): Promise<void>;
}

export async function startReceiver(answer: (index: number) => number | 'hang' = () => 200, options: { delayMs?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = {
    url: '',
    received,
    answer,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = received.length;
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
      const what = receiver.answer(index);
      if (what === 'hang') return;
      // A slow receiver keeps deliveries in flight (the crash test kills the server meanwhile).
      if (options.delayMs !== undefined) {
        setTimeout(() => response.writeHead(what, { 'content-type': 'text/plain' }).end('ok'), options.delayMs);
        return;
      }
      response.writeHead(what, { 'content-type': 'text/plain' }).end(what >= 200 && what < 300 ? 'ok' : 'x'.repeat(5000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Checks both signatures of a delivery the way a receiver would (independently of the SDK and the server). */
export function signaturesValid(received: Received, secret: string): boolean {
  const hmac = (text: string) => crypto.createHmac('sha256', secret).update(text, 'utf8').digest('hex');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received.headers['payrail-signature']));
  if (match === null) return false;
  return received.headers['x-signature'] === hmac(received.body) && match[2] === hmac(`${match[1]}.${received.body}`);
}
