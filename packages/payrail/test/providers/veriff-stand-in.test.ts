// The Veriff stand-in itself, as documented behaviour the other tests rely
// on: test sessions named "Approve", "Decline" or "Resubmit" are decided that
// way once submitted, every webhook is signed with the shared secret over
// its raw body, decisions can be sent again and out of order, and its
// answers to wrong keys are Veriff's refusals.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { hmacHex, startVeriffStandIn, type VeriffStandIn } from './veriff/stand-in.ts';

interface Received {
  readonly body: string;
  readonly signature: string | undefined;
}

describe('veriff stand-in', () => {
  let standIn: VeriffStandIn;
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const signature = request.headers['x-hmac-signature'];
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: typeof signature === 'string' ? signature : undefined });
      response.writeHead(200).end();
    });
  });

  before(async () => {
    standIn = await startVeriffStandIn();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    standIn.webhookTo(`http://127.0.0.1:${address.port}/hooks`);
  });
  after(async () => {
    await standIn.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const create = async (firstName?: string) => {
    const response = await fetch(`${standIn.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-client': standIn.apiKey },
      body: JSON.stringify({ verification: { vendorData: 'ref-1', ...(firstName === undefined ? {} : { person: { firstName } }) } }),
    });
    assert.equal(response.status, 201);
    return ((await response.json()) as { verification: { id: string } }).verification.id;
  };

  it('decides test sessions by their first name once submitted, with signed event and decision webhooks', async () => {
    for (const [firstName, status, code] of [
      ['Approve', 'approved', 9001],
      ['Decline', 'declined', 9102],
      ['Resubmit', 'resubmission_requested', 9103],
    ] as const) {
      received.length = 0;
      const id = await create(firstName);
      await standIn.submit(id);
      await standIn.webhooksIdle();
      assert.deepEqual(
        received.map((hook) => JSON.parse(hook.body).action ?? JSON.parse(hook.body).verification.status),
        ['started', 'submitted', status],
      );
      for (const hook of received) assert.equal(hook.signature, hmacHex(standIn.sharedSecret, hook.body));
      assert.equal(JSON.parse(received[2]!.body).verification.code, code);
    }
  });

  it('leaves other sessions undecided until a decision is forced; can send decisions again and with bad signatures', async () => {
    received.length = 0;
    const id = await create();
    await standIn.submit(id);
    assert.equal(standIn.session(id).decision, null);
    await standIn.decide(id, 'review');
    await standIn.decide(id, 'approved');
    await standIn.resend(id, 0);
    await standIn.sendRaw('{"x":1}', 'bad');
    await standIn.webhooksIdle();
    const statuses = received.map((hook) => JSON.parse(hook.body).verification?.status ?? JSON.parse(hook.body).action ?? 'raw');
    assert.deepEqual(statuses, ['started', 'submitted', 'review', 'approved', 'review', 'raw']);
    assert.notEqual(received.at(-1)!.signature, hmacHex(standIn.sharedSecret, received.at(-1)!.body));
  });

  it('refuses a wrong API key and a decision read without the session id signature', async () => {
    const wrong = await fetch(`${standIn.url}/v1/sessions`, { method: 'POST', headers: { 'x-auth-client': 'nope' }, body: '{"verification":{}}' });
    assert.equal(wrong.status, 401);
    const id = await create();
    const unsigned = await fetch(`${standIn.url}/v1/sessions/${id}/decision`, { headers: { 'x-auth-client': standIn.apiKey } });
    assert.equal(unsigned.status, 401);
    const signed = await fetch(`${standIn.url}/v1/sessions/${id}/decision`, {
      headers: { 'x-auth-client': standIn.apiKey, 'x-hmac-signature': hmacHex(standIn.sharedSecret, id) },
    });
    assert.deepEqual(await signed.json(), { status: 'success', verification: null, technicalData: { ip: null } });
  });
});
