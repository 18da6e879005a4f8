// Every path under an API prefix answers JSON in that API's envelope, however
// its segments are mangled: an encoded "#" or "?", an empty segment, an
// encoded "/", a control character, bad percent-encoding, an over-long
// segment. No path under an API prefix answers an HTML page or a 500.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf } from '../helpers/payin.ts';

/** Segments a fuzzer puts where a route takes a parameter (or adds after a prefix). */
const MALFORMED_SEGMENTS = ['%23', '%3F', '?', '?/x', '', '%2F', '%2Fx', '%00', '%0A', '%7F', '%ZZ', '%', 'a%23b', '%C0%AF', 'x'.repeat(600)];

/** Route templates under each API prefix, ":p" where the route takes a parameter. */
const TEMPLATES: ReadonlyArray<{ family: 'transfer' | 'payin' | 'other'; template: string }> = [
  { family: 'transfer', template: '/api/:p' },
  { family: 'transfer', template: '/api/status/:p' },
  { family: 'transfer', template: '/api/kyc/:p' },
  { family: 'transfer', template: '/sandbox/:p' },
  { family: 'transfer', template: '/sandbox/invitations/:p' },
  { family: 'transfer', template: '/sandbox/invitations/:p/accept' },
  { family: 'transfer', template: '/sandbox/kyc/:p' },
  { family: 'transfer', template: '/sandbox/kyc/:p/verify' },
  { family: 'transfer', template: '/sandbox/schedules/:p/run' },
  { family: 'payin', template: '/api/v2/:p' },
  { family: 'payin', template: '/api/v2/transactions/:p' },
  { family: 'payin', template: '/api/v2/batches/:p/transactions' },
  { family: 'payin', template: '/api/v2/saved-cards/:p' },
  { family: 'payin', template: '/api/v2/customers/:p/payment-methods' },
  { family: 'payin', template: '/api/v2/payment-methods/:p' },
  { family: 'payin', template: '/api/v2/recurring-schedules/:p/transactions' },
  { family: 'payin', template: '/api/v2/webhooks/:p/rotate' },
  { family: 'payin', template: '/api/v2/events/:p/resend' },
  { family: 'other', template: '/providers/:p/callbacks' },
];

describe('malformed API paths (sqlite)', () => {
  let t: TestApp;
  let headersOf: (family: string) => Record<string, string>;

  before(async () => {
    t = await createTestApp('sqlite', { validateResponses: false });
    const merchant = await t.newMerchant();
    headersOf = (family): Record<string, string> => (family === 'payin' ? { authorization: basicOf(merchant) } : { 'api-key': merchant.transfer_api_key });
  });
  after(() => t.close());

  it('finding 15: every malformed path under an API prefix answers JSON in its envelope, never an HTML page', async () => {
    const wrong: string[] = [];
    let asked = 0;
    for (const { family, template } of TEMPLATES) {
      for (const segment of MALFORMED_SEGMENTS) {
        const url = template.replace(':p', segment);
        for (const method of ['GET', 'POST'] as const) {
          for (const authenticated of [false, true]) {
            asked += 1;
            const reply = await t.app.inject({ method, url, headers: authenticated ? headersOf(family) : {} });
            const where = `${method} ${url}${authenticated ? ' (authenticated)' : ''}: ${reply.statusCode} ${reply.headers['content-type']}`;
            if (reply.statusCode >= 500 || !String(reply.headers['content-type']).startsWith('application/json')) {
              wrong.push(where);
              continue;
            }
            const body = JSON.parse(reply.body) as { success?: unknown; error?: { code?: unknown; message?: unknown } };
            if (reply.statusCode < 400) continue;
            const envelope = family === 'transfer' ? body.success === 'false' && typeof body.error?.code === 'string' : typeof body.error?.code === 'string';
            if (!envelope) wrong.push(`${where} ${reply.body.slice(0, 120)}`);
          }
        }
      }
    }
    assert.ok(asked > 1000);
    assert.deepEqual(wrong, []);
  });

  it('finding 15: POST /sandbox/invitations/%23/accept and an empty account segment are refused in the transfer envelope', async () => {
    for (const url of ['/sandbox/invitations/%23', '/sandbox/invitations/?/accept', '/sandbox/kyc/', '/sandbox/invitations/%2Faccept']) {
      const reply = await t.app.inject({ method: 'POST', url });
      assert.equal(reply.statusCode, 400, url);
      assert.deepEqual(JSON.parse(reply.body), {
        success: 'false',
        error: { message: 'the URL is not valid: its account segment is empty or holds a reserved character', code: 'invalid_request' },
      });
    }
  });

  it('finding 15: a raw "#" or "?" in the request line (the router cuts the path there) is answered in the envelope too', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (t.app.server.address() as net.AddressInfo).port;
    const raw = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`));
        let data = '';
        socket.on('data', (chunk: Buffer) => {
          data += chunk.toString('utf8');
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    for (const path of [
      '/sandbox/invitations/#/accept',
      '/sandbox/invitations/a#b/accept',
      '/sandbox/invitations/254712340003?/accept',
      '/sandbox/kyc/#',
      '/api/status/#x',
      '/api/v2/transactions/#',
    ]) {
      const answer = await raw(path);
      assert.match(answer, /^HTTP\/1\.1 4\d\d /, path);
      assert.match(answer, /content-type: application\/json/i, path);
    }
  });

  it('the receiver pages still answer a page for a well-formed link', async () => {
    const reply = await t.app.inject({ method: 'GET', url: '/sandbox/invitations/12ab' });
    assert.equal(reply.statusCode, 400);
    assert.match(String(reply.headers['content-type']), /text\/html/);
  });
});
