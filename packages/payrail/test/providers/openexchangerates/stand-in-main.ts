// The stand-in as its own process, for tests that run Payrail as a child
// (crash and end-to-end runs): prints one JSON line {url, controlUrl, appId}
// on stdout, serves POST /control/<verb> (setRate {currency, rate},
// setRates {rates}, setTimestamp {seconds}, failNext {fault, count},
// requestCount) on the same port, and exits on SIGTERM or SIGINT.
// Run: node --import tsx test/providers/openexchangerates/stand-in-main.ts
// Optional environment: STANDIN_PORT, STANDIN_APP_ID.
import { startOxrStandIn } from './stand-in.ts';

const env = process.env;
const standIn = await startOxrStandIn({
  control: true,
  ...(env.STANDIN_PORT ? { port: Number(env.STANDIN_PORT) } : {}),
  ...(env.STANDIN_APP_ID ? { appId: env.STANDIN_APP_ID } : {}),
});
process.stdout.write(`${JSON.stringify({ url: standIn.url, controlUrl: standIn.url.replace(/\/api$/, '/control/'), appId: standIn.appId })}\n`);
const stop = () => {
  void standIn.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
