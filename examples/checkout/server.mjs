// @ts-check
// A merchant's checkout, as small as it gets: this node:http server serves
// index.html (which mounts Payrail's hosted card form) and, at POST /pay,
// charges the nonce the page received with the payin source's API key and PIN,
// which never leave the server. See README.md.
//
//   PAYRAIL_URL=http://127.0.0.1:8080 PAYRAIL_TOKENIZATION_TOKEN=sbx_pt_... \
//   PAYRAIL_SOURCE_KEY=sbx_sk_... PAYRAIL_SOURCE_PIN=12345678 node examples/checkout/server.mjs
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Payrail, PayrailError } from '@payrail/client';

/** @param {string} name */
function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`Set ${name}: see examples/checkout/README.md`);
    process.exit(2);
  }
  return value;
}

const PAYRAIL_URL = required('PAYRAIL_URL').replace(/\/+$/, '');
const TOKENIZATION_TOKEN = required('PAYRAIL_TOKENIZATION_TOKEN');
const PORT = Number(process.env.PORT ?? 3000);
const HOST = process.env.HOST ?? '127.0.0.1';
/** The shop's price of the one thing it sells, in cents: the page never decides what is charged. */
const PRICE_CENTS = 4200;
/** A request body larger than this is not a nonce. */
const BODY_LIMIT_BYTES = 4096;

// The page, with the Payrail server's URL and the public tokenization token filled in.
const page = fs
  .readFileSync(path.join(import.meta.dirname, 'index.html'), 'utf8')
  .replaceAll('{{PAYRAIL_URL}}', PAYRAIL_URL)
  .replaceAll('{{TOKENIZATION_TOKEN}}', TOKENIZATION_TOKEN);

// payrail-charge:start
// Server side: the source's API key and PIN (Basic auth) charge the nonce.
const payrail = new Payrail({
  base_url: PAYRAIL_URL,
  payin: { api_key: required('PAYRAIL_SOURCE_KEY'), pin: required('PAYRAIL_SOURCE_PIN') },
});

/** @param {{ nonce: string, expiry_month: number, expiry_year: number }} card @param {string} orderId */
async function chargeOrder(card, orderId) {
  const charge = await payrail.charge({
    amount_cents: PRICE_CENTS,
    source: card.nonce,
    expiry_month: card.expiry_month,
    expiry_year: card.expiry_year,
    // Your checkout collects the billing address; a fixed one keeps the example short.
    billing_info: { first_name: 'Ada', last_name: 'Lovelace', street: '1 Main St', city: 'Austin', state: 'TX', zip: '78701', country: 'US' },
    transaction_details: { order_number: orderId },
    // The order id makes a retried request charge at most once.
    idempotency_key: `order-${orderId}`,
  });
  // approved, pending, declined or failed: a result to show, not an error.
  return { status: charge.status, reference_number: charge.reference_number, last_4: charge.last_4, error: charge.error };
}
// payrail-charge:end

/** @param {http.IncomingMessage} request @returns {Promise<string>} */
function readBody(request) {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      text += chunk;
      if (text.length > BODY_LIMIT_BYTES) reject(new Error('body too large'));
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

/** @param {http.ServerResponse} response @param {number} status @param {unknown} body */
function json(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

const server = http.createServer(async (request, response) => {
  try {
    if (request.method === 'GET' && request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
      return;
    }
    if (request.method === 'POST' && request.url === '/pay') {
      const card = JSON.parse(await readBody(request));
      if (typeof card?.nonce !== 'string' || !Number.isInteger(card.expiry_month) || !Number.isInteger(card.expiry_year)) {
        json(response, 400, { error: 'send {nonce, expiry_month, expiry_year}' });
        return;
      }
      json(response, 200, await chargeOrder(card, crypto.randomUUID()));
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not found\n');
  } catch (error) {
    // A refused request (a used nonce, a wrong key): say which, with the request id Payrail support can look up.
    if (error instanceof PayrailError) {
      json(response, error.status >= 400 && error.status < 500 ? 400 : 502, { error: error.code, message: error.message, request_id: error.requestId });
    } else json(response, 400, { error: error instanceof Error ? error.message : String(error) });
  }
});

server.listen(PORT, HOST, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : PORT;
  console.log(`checkout listening on http://${HOST}:${port}`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
