// The stand-in as its own process, for Payrail's end-to-end and crash tests:
// prints one JSON line {url, controlUrl, token} on stdout, serves
// POST /control/<verb> (failNext, callbackTo, payouts, requestCount) on the
// same port, and exits on SIGTERM or SIGINT.
// Run: node --import tsx test/providers/pawapay/stand-in-main.ts
// Optional environment: STANDIN_PORT, STANDIN_TOKEN, STANDIN_CALLBACK_URL, STANDIN_PENDING_POLLS.
import { startPawaPayStandIn } from './stand-in.ts';

const env = process.env;
const standIn = await startPawaPayStandIn({
  control: true,
  ...(env.STANDIN_PORT ? { port: Number(env.STANDIN_PORT) } : {}),
  ...(env.STANDIN_TOKEN ? { token: env.STANDIN_TOKEN } : {}),
  ...(env.STANDIN_PENDING_POLLS ? { pendingPolls: Number(env.STANDIN_PENDING_POLLS) } : {}),
});
if (env.STANDIN_CALLBACK_URL) standIn.callbackTo(env.STANDIN_CALLBACK_URL);
process.stdout.write(`${JSON.stringify({ url: standIn.url, controlUrl: `${standIn.url}/control/`, token: standIn.token })}\n`);
const stop = () => {
  void standIn.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
