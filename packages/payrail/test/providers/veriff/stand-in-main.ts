// The Veriff stand-in as its own process, for trying Payrail by hand against
// it (PAYRAIL_KYC_PROVIDER=veriff PAYRAIL_VERIFF_URL=<url> ...): prints one
// JSON line {url, controlUrl, apiKey, sharedSecret} on stdout, serves
// POST <controlUrl><verb> with a JSON body (sessions, submit {id},
// decide {id, status, reasonCode?}, resend {id, index}, webhookTo {url},
// failNext {mode, count?}, webhooksIdle, requestCount) on a second loopback
// port, and exits on SIGTERM or SIGINT.
// Run: node --import tsx test/providers/veriff/stand-in-main.ts
// Optional environment: STANDIN_PORT, STANDIN_API_KEY, STANDIN_SHARED_SECRET.
import { createServer } from 'node:http';
import { type FailMode, type StandInStatus, startVeriffStandIn } from './stand-in.ts';

const env = process.env;
const standIn = await startVeriffStandIn({
  ...(env.STANDIN_PORT ? { port: Number(env.STANDIN_PORT) } : {}),
  ...(env.STANDIN_API_KEY ? { apiKey: env.STANDIN_API_KEY } : {}),
  ...(env.STANDIN_SHARED_SECRET ? { sharedSecret: env.STANDIN_SHARED_SECRET } : {}),
});

const control = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const reply = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? null));
    try {
      const raw = Buffer.concat(chunks).toString('utf8');
      const args = (raw === '' ? {} : JSON.parse(raw)) as Record<string, unknown>;
      switch ((request.url ?? '').replace(/^\/control\//, '')) {
        case 'sessions':
          return reply(200, standIn.sessions());
        case 'submit':
          await standIn.submit(String(args.id));
          return reply(200, {});
        case 'decide':
          return reply(200, {
            callbackStatus: await standIn.decide(String(args.id), String(args.status) as StandInStatus, {
              reasonCode: typeof args.reasonCode === 'number' ? args.reasonCode : null,
            }),
          });
        case 'resend':
          return reply(200, { callbackStatus: await standIn.resend(String(args.id), Number(args.index ?? 0)) });
        case 'webhookTo':
          standIn.webhookTo(typeof args.url === 'string' ? args.url : null);
          return reply(200, {});
        case 'failNext':
          standIn.failNext(String(args.mode) as FailMode, args.count === undefined ? 1 : Number(args.count));
          return reply(200, {});
        case 'webhooksIdle':
          await standIn.webhooksIdle();
          return reply(200, {});
        case 'requestCount':
          return reply(200, { count: standIn.requestCount() });
        default:
          return reply(404, { error: 'unknown verb' });
      }
    } catch (error) {
      return reply(400, { error: error instanceof Error ? error.message : String(error) });
    }
  });
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', () => resolve()));
const address = control.address();
const controlPort = address !== null && typeof address === 'object' ? address.port : 0;
process.stdout.write(
  `${JSON.stringify({ url: standIn.url, controlUrl: `http://127.0.0.1:${controlPort}/control/`, apiKey: standIn.apiKey, sharedSecret: standIn.sharedSecret })}\n`,
);
const stop = () => {
  control.close();
  void standIn.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
