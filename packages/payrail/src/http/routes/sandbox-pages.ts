// The public sandbox pages behind kyc_url and the invitation link: what a
// receiver would see on their phone. Server-rendered, one button each, no
// script, readable on a small screen. Sandbox only.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { formatCents } from '../../domain/money.ts';
import { ApiError, isApiError } from '../../errors.ts';
import { acceptInvitation, sandboxReceiver, verifyKyc } from '../../flows/transfers/sandbox.ts';
import type { Service } from '../../service.ts';
import { html, type Html } from '../../web/html.ts';

/** The pages take no form fields; anything bigger than this is not from them. */
const FORM_BODY_LIMIT_BYTES = 1024;

function page(reply: FastifyReply, status: number, title: string, body: Html): FastifyReply {
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Payrail sandbox</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 1.5rem; color: #1b1f24; background: #f6f7f9; }
  main { max-width: 28rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.35rem; margin-top: 0; }
  .tag { display: inline-block; font-size: .8rem; background: #fff3cd; padding: .1rem .5rem; border-radius: 4px; }
  button { width: 100%; font-size: 1.1rem; padding: .9rem; border: 0; border-radius: 8px; background: #1a56db; color: #fff; cursor: pointer; }
  button:focus { outline: 3px solid #93b4f5; outline-offset: 2px; }
  .ok { color: #0f6b2f; } .error { color: #a4161a; }
</style>
</head>
<body><main><p class="tag">Sandbox: no real money moves</p>${body}</main></body>
</html>`;
  return (
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      // Its own policy over the API's (src/http/security-headers.ts): the inline style, and the form posting back here.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
      .send(document.text)
  );
}

function errorPage(reply: FastifyReply, error: unknown): FastifyReply {
  if (!isApiError(error)) throw error;
  return page(reply, error.status, 'Not possible', html`<h1>Not possible</h1><p class="error">${error.message}</p>`);
}

/**
 * The pages live under /sandbox/, the transfer API's prefix, at exactly the
 * links Payrail hands out: /sandbox/{kyc,invitations}/<account>, with no
 * query or fragment. Anything else that reaches them (an empty account
 * segment, one holding a decoded "/", "?", "#" or a control character, or a
 * raw "?" or "#" after which the router cut the path) is a malformed API
 * path, answered by the app's error handler in the API's JSON envelope,
 * never with a page.
 */
function pagePathAccount(request: { url: string; params: { account: string } }): string {
  const account = request.params.account;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (account === '' || /[/?#\u0000-\u001f\u007f]/.test(account) || /[?#]/.test(request.url)) {
    throw new ApiError('invalid_request', 'the URL is not valid: its account segment is empty or holds a reserved character');
  }
  return account;
}

export function sandboxPageRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    // The buttons post empty forms; their bodies carry nothing to read.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, _body, done) =>
      done(null, {}),
    );
    const hide = { hide: true };

    app.get<{ Params: { account: string } }>('/sandbox/kyc/:account', { schema: hide }, async (request, reply) => {
      const account = pagePathAccount(request);
      try {
        const receiver = await sandboxReceiver(service, account, 'kyc');
        const phone = receiver.phone;
        if (!receiver.registered) {
          return page(reply, 404, 'Not on the network', html`<h1>Not on the network yet</h1><p>${phone} has no wallet. Accept a payment invitation first.</p>`);
        }
        if (receiver.kycVerified) {
          return page(
            reply,
            200,
            'Verified',
            html`<h1 class="ok">Verified</h1><p>${phone} can receive up to ${formatCents(receiver.moneyLimitCents)} USD per transfer.</p>`,
          );
        }
        return page(
          reply,
          200,
          'Verify your identity',
          html`<h1>Verify your identity</h1>
<p>${phone} can receive up to ${formatCents(receiver.moneyLimitCents)} USD per transfer. Verify to receive up to 3000.00.</p>
<form method="post"><button type="submit">Complete verification</button></form>`,
        );
      } catch (error) {
        return errorPage(reply, error);
      }
    });

    app.post<{ Params: { account: string } }>('/sandbox/kyc/:account', { schema: hide }, async (request, reply) => {
      const account = pagePathAccount(request);
      try {
        await verifyKyc(service, account);
        return page(reply, 200, 'Verified', html`<h1 class="ok">Verified</h1><p>You can now receive up to 3000.00 USD per transfer.</p>`);
      } catch (error) {
        return errorPage(reply, error);
      }
    });

    app.get<{ Params: { account: string } }>('/sandbox/invitations/:account', { schema: hide }, async (request, reply) => {
      const account = pagePathAccount(request);
      try {
        const receiver = await sandboxReceiver(service, account, 'invitation');
        const phone = receiver.phone;
        if (receiver.registered) {
          return page(
            reply,
            200,
            'Already on the network',
            html`<h1 class="ok">You are on the network</h1><p>${phone} already has a wallet; payments reach it directly.</p>`,
          );
        }
        return page(
          reply,
          200,
          'Payment invitation',
          html`<h1>Someone sent you money</h1>
<p>Open a wallet for ${phone} to receive it. The invitation expires 6 hours after it was sent.</p>
<form method="post"><button type="submit">Accept and receive</button></form>`,
        );
      } catch (error) {
        return errorPage(reply, error);
      }
    });

    app.post<{ Params: { account: string } }>('/sandbox/invitations/:account', { schema: hide }, async (request, reply) => {
      const account = pagePathAccount(request);
      try {
        const { released } = await acceptInvitation(service, account);
        const what = released === 1 ? '1 payment is' : `${released} payments are`;
        return page(reply, 200, 'Invitation accepted', html`<h1 class="ok">Welcome</h1><p>Your wallet is open and verified. ${what} on the way.</p>`);
      } catch (error) {
        return errorPage(reply, error);
      }
    });
  };
}
