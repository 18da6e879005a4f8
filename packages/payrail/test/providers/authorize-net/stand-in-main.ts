// The stand-in as its own process, for the crash test (Payrail runs as a
// child there, and so does this): prints one JSON line
// {url, controlUrl, loginId, transactionKey, signatureKey} on stdout, serves
// POST /control/<verb> (failNext, transactions, resolveHeld, settle,
// returnItem {transId, code, description?}, webhookTo, webhooksIdle, requestCount) on the same port, and exits on
// SIGTERM or SIGINT. Run: node --import tsx test/providers/authorize-net/stand-in-main.ts
// Optional environment: STANDIN_PORT, STANDIN_LOGIN_ID, STANDIN_TRANSACTION_KEY, STANDIN_SIGNATURE_KEY.
import { API_PATH, startAuthorizeNetStandIn } from './stand-in.ts';

const env = process.env;
const standIn = await startAuthorizeNetStandIn({
  control: true,
  ...(env.STANDIN_PORT ? { port: Number(env.STANDIN_PORT) } : {}),
  ...(env.STANDIN_LOGIN_ID ? { loginId: env.STANDIN_LOGIN_ID } : {}),
  ...(env.STANDIN_TRANSACTION_KEY ? { transactionKey: env.STANDIN_TRANSACTION_KEY } : {}),
  ...(env.STANDIN_SIGNATURE_KEY ? { signatureKey: env.STANDIN_SIGNATURE_KEY } : {}),
});
process.stdout.write(
  `${JSON.stringify({
    url: standIn.url,
    controlUrl: standIn.url.replace(API_PATH, '/control/'),
    loginId: standIn.loginId,
    transactionKey: standIn.transactionKey,
    signatureKey: standIn.signatureKey,
  })}\n`,
);
const stop = () => {
  void standIn.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
