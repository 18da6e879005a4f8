// The stand-in as its own process, for end-to-end and crash tests: prints
// one JSON line {url, controlUrl, subscriptionKey, apiUser, apiKey} on
// stdout, serves POST /control/<verb> (failNext, expireTokens, resolve,
// callbackOptions, scriptNumber, callbacksIdle, transfers, requestCount) on the same port,
// and exits on SIGTERM or SIGINT.
// Run: node --import tsx test/providers/mtn-momo/stand-in-main.ts
// Optional environment: STANDIN_PORT, STANDIN_SUBSCRIPTION_KEY, STANDIN_API_USER, STANDIN_API_KEY, STANDIN_TOKEN_LIFETIME_S.
import { startMtnMomoStandIn } from './stand-in.ts';

const env = process.env;
const standIn = await startMtnMomoStandIn({
  control: true,
  ...(env.STANDIN_PORT ? { port: Number(env.STANDIN_PORT) } : {}),
  ...(env.STANDIN_SUBSCRIPTION_KEY ? { subscriptionKey: env.STANDIN_SUBSCRIPTION_KEY } : {}),
  ...(env.STANDIN_API_USER ? { apiUser: env.STANDIN_API_USER } : {}),
  ...(env.STANDIN_API_KEY ? { apiKey: env.STANDIN_API_KEY } : {}),
  ...(env.STANDIN_TOKEN_LIFETIME_S ? { tokenLifetimeSeconds: Number(env.STANDIN_TOKEN_LIFETIME_S) } : {}),
});
process.stdout.write(
  `${JSON.stringify({
    url: standIn.url,
    controlUrl: `${standIn.url}/control/`,
    subscriptionKey: standIn.subscriptionKey,
    apiUser: standIn.apiUser,
    apiKey: standIn.apiKey,
  })}\n`,
);
const stop = () => {
  void standIn.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
