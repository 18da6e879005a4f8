// The SDK's events and webhooks against a real `payrail serve` (sandbox): an
// endpoint made with the SDK receives the deliveries of a transfer from the
// server's own worker, verifyWebhook accepts each and types it, and the
// events API returns the same events.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSandbox } from '../../../examples/local-sandbox.mjs';
import { Payrail, type PayrailEvent, verifyWebhook } from '../src/index.ts';

interface Sandbox {
  url: string;
  merchant: { merchant_id: string; transfer_api_key: string; source: { api_key: string; pin: string; tokenization_token: string } };
  stop(): Promise<void>;
}

const DEADLINE_MS = 30_000;

describe('SDK webhooks against a real server', () => {
  let sandbox: Sandbox;
  let server: http.Server;
  let url = '';
  const deliveries: Array<{ body: Buffer; headers: http.IncomingHttpHeaders }> = [];
  before(async () => {
    sandbox = (await startSandbox({ fund: '100.00' })) as Sandbox;
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ body: Buffer.concat(chunks), headers: request.headers });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  after(async () => {
    await sandbox.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("receives a transfer's events signed, verifies and types them, and lists the same events", async () => {
    const payrail = new Payrail({ base_url: sandbox.url, api_key: sandbox.merchant.transfer_api_key });
    const endpoint = await payrail.createWebhookEndpoint({ url, events: ['transfer.created', 'transfer.processing', 'transfer.succeeded'] });
    const sent = await payrail.send(
      { sender_phone: '+14155552671', receiver_phone: '+254712345678', amount: '10.00', service: '1001', receiver_country: 'KE', receiver_currency: 'KES' },
      { wait: true, timeout_ms: DEADLINE_MS },
    );
    const deadline = Date.now() + DEADLINE_MS;
    while (deliveries.length < 3) {
      assert.ok(Date.now() < deadline, `${deliveries.length} of 3 deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const events: PayrailEvent[] = [];
    for (const delivery of deliveries) events.push(await verifyWebhook(delivery.body, delivery.headers, endpoint.signature));
    events.sort((a, b) => Number(a.id.slice(4)) - Number(b.id.slice(4)));
    assert.deepEqual(
      events.map((e) => e.type),
      ['transfer.created', 'transfer.processing', 'transfer.succeeded'],
    );
    const last = events[2]!;
    if (last.type !== 'transfer.succeeded') assert.fail(last.type);
    assert.equal(sent.outcome, 'succeeded');
    assert.equal(last.data.id, sent.id);
    assert.equal(last.data.final, 1);

    const page = await payrail.listEvents({ limit: 3 });
    assert.deepEqual(
      page.data.map((e) => e.id),
      events.map((e) => e.id).reverse(),
    );
    assert.deepEqual(await payrail.getEvent(last.id), last);
    // A rotated secret no longer verifies what the old one signed.
    const rotated = await payrail.rotateWebhookSecret(endpoint.id);
    await assert.rejects(verifyWebhook(deliveries[0]!.body, deliveries[0]!.headers, rotated.signature), { code: 'invalid_signature' });
  });
});
