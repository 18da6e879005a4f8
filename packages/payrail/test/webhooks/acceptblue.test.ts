// accept.blue-shaped webhooks (behaviour section 16; reference A.5 Webhook,
// A.8, B.1 "Webhook registration" and "Webhook receipt"), written from what
// the Vendure plugin (Pinelab) does: on every save of its payment method it
// lists the webhooks (a 404 would crash it), takes the `signature` of the one
// with its URL, or registers {webhook_url, description, active: true} and
// reads `signature` from the answer. Its receiver takes the raw body and
// X-Signature, drops `event: "batch"`, refuses unless
// hex(HMAC_SHA256(signature, rawBody)) === X-Signature, and reads type,
// subType, id, data.transaction.id, data.transaction.transaction_details.schedule_id
// and data.transaction.custom_fields.custom1. Payrail's own endpoints are untouched
// (test/webhooks/api.test.ts). Both stores.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ACCEPTBLUE_EVENT_TYPES, acceptBlueKindOf } from '../../src/domain/acceptblue-webhooks.ts';
import { type DeliveryDeps, deliverDue } from '../../src/flows/webhooks/deliver.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { sendWebhook } from '../../src/providers/webhook-sender.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch, operateOk } from '../helpers/lifecycle.ts';
import { basicOf } from '../helpers/payin.ts';
import { callOk, dayOf, type Json, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { type Received, startReceiver } from '../helpers/webhook-receiver.ts';

const DESCRIPTION = 'Notify Vendure of any events on the Accept Blue platform';

/** The plugin's request(): 404 reads as undefined, other 4xx/5xx throw with error_message; 200 and 201 both return the body. */
async function pluginRequest(t: TestApp, merchant: CreatedMerchant, method: 'GET' | 'POST', path: string, data?: unknown): Promise<Json> {
  const response = await t.app.inject({
    method,
    url: `/api/v2/${path}`,
    headers: { authorization: basicOf(merchant), ...(data === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(data === undefined ? {} : { payload: JSON.stringify(data) }),
  });
  if (response.statusCode === 404) return undefined;
  if (response.statusCode >= 400) throw new Error(`${response.statusCode}: ${response.json().error_message ?? response.body}`);
  return response.json();
}

/** The plugin's webhook registration: find by webhook_url in the list, else create; returns the secret. */
async function registerWebhook(t: TestApp, merchant: CreatedMerchant, webhookUrl: string): Promise<string> {
  const webhooks: Json[] = await pluginRequest(t, merchant, 'GET', 'webhooks');
  const existing = webhooks.find((webhook) => webhook.webhook_url === webhookUrl);
  if (existing !== undefined) return existing.signature;
  const created = await pluginRequest(t, merchant, 'POST', 'webhooks', { webhook_url: webhookUrl, description: DESCRIPTION, active: true });
  return created.signature;
}

/** The plugin's receiver check: the hex HMAC of the raw body, compared as plain text. */
function pinelabAccepts(received: Received, secret: string): boolean {
  return crypto.createHmac('sha256', secret).update(received.body).digest('hex') === received.headers['x-signature'];
}

/** Sources in the accept.blue dialect, as a merchant moving from accept.blue has them. */
async function acceptBlueMerchant(t: TestApp): Promise<CreatedMerchant> {
  const merchant = await t.newMerchant();
  await t.service.db.write((tx) => tx.run("UPDATE sources SET dialect = 'acceptblue' WHERE merchant_id = ?", [merchant.merchant_id]));
  return merchant;
}

function depsOf(t: TestApp): DeliveryDeps {
  return { db: t.service.db, clock: t.clock, log: t.service.log, config: t.service.config, send: sendWebhook };
}

describe('accept.blue event kinds', () => {
  it("maps Payrail's card events to accept.blue's event, type and subType", () => {
    const charge = { kind: 'charge', status: 'approved' };
    assert.deepEqual(acceptBlueKindOf('charge.approved', charge), { event: 'transaction', type: 'succeeded', subType: 'charge' });
    assert.deepEqual(acceptBlueKindOf('charge.approved', { kind: 'credit', status: 'approved' }), {
      event: 'transaction',
      type: 'succeeded',
      subType: 'credit',
    });
    assert.deepEqual(acceptBlueKindOf('charge.declined', { ...charge, status: 'declined' }), { event: 'transaction', type: 'declined', subType: 'charge' });
    assert.deepEqual(acceptBlueKindOf('charge.failed', { ...charge, status: 'failed' }), { event: 'transaction', type: 'error', subType: 'charge' });
    assert.deepEqual(acceptBlueKindOf('charge.voided', charge), { event: 'transaction', type: 'updated', subType: 'void' });
    assert.deepEqual(acceptBlueKindOf('charge.adjusted', charge), { event: 'transaction', type: 'updated', subType: 'adjust' });
    assert.deepEqual(acceptBlueKindOf('refund.succeeded', { kind: 'credit', status: 'approved' }), {
      event: 'transaction',
      type: 'succeeded',
      subType: 'credit',
    });
    assert.deepEqual(acceptBlueKindOf('refund.succeeded', { kind: 'refund', status: 'approved' }), {
      event: 'transaction',
      type: 'succeeded',
      subType: 'refund',
    });
    assert.deepEqual(acceptBlueKindOf('refund.declined', { kind: 'refund', status: 'failed' }), { event: 'transaction', type: 'error', subType: 'refund' });
    assert.deepEqual(acceptBlueKindOf('batch.closed', null), { event: 'batch', type: 'closed', subType: null });
    for (const type of ['charge.captured', 'charge.pending', 'transfer.succeeded', 'schedule.charged'] as const) {
      assert.equal(acceptBlueKindOf(type, charge), null, type);
      assert.ok(!ACCEPTBLUE_EVENT_TYPES.includes(type), `${type} is not subscribed`);
    }
    for (const type of ACCEPTBLUE_EVENT_TYPES) assert.notEqual(acceptBlueKindOf(type, charge), null, `${type} has an accept.blue form`);
  });
});

for (const kind of STORE_KINDS) {
  describe(`accept.blue webhooks (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('registers as the Vendure plugin does: [] first, then created (201) with its signature, found again by webhook_url, 409 for the same URL', async () => {
      const merchant = await acceptBlueMerchant(t);
      const webhookUrl = 'https://shop.example/accept-blue/webhook/channel-token-1';

      const empty = await t.app.inject({ method: 'GET', url: '/api/v2/webhooks', headers: { authorization: basicOf(merchant) } });
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(empty.json(), []);

      const created = await callOk(t, merchant, 'POST', '/api/v2/webhooks', { webhook_url: webhookUrl, description: DESCRIPTION, active: true }, 201);
      assert.deepEqual(Object.keys(created).sort(), ['active', 'description', 'id', 'signature', 'webhook_url']);
      assert.ok(Number.isInteger(created.id) && created.id >= 1);
      assert.deepEqual([created.webhook_url, created.description, created.active], [webhookUrl, DESCRIPTION, true]);
      assert.match(created.signature, /^[0-9A-Za-z]{32}$/);

      // Every later save of the payment method: the list has it, with the same secret, and nothing new is made.
      assert.equal(await registerWebhook(t, merchant, webhookUrl), created.signature);
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/webhooks'), [created]);
      assert.deepEqual(await callOk(t, merchant, 'GET', `/api/v2/webhooks/${created.id}`), created);

      const again = await t.app.inject({
        method: 'POST',
        url: '/api/v2/webhooks',
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: JSON.stringify({ webhook_url: webhookUrl, description: DESCRIPTION, active: true }),
      });
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json().status, 'Error');
      assert.equal(again.json().error_code, 'duplicate_webhook');
      assert.match(again.json().error_message, /already registered/);
      assert.equal((await callOk(t, merchant, 'GET', '/api/v2/webhooks')).length, 1);

      // Another channel of the same shop registers its own URL; another merchant may register the first one.
      const second = await registerWebhook(t, merchant, 'https://shop.example/accept-blue/webhook/channel-token-2');
      assert.notEqual(second, created.signature);
      const other = await acceptBlueMerchant(t);
      assert.deepEqual(await pluginRequest(t, other, 'GET', 'webhooks'), []);
      assert.notEqual(await registerWebhook(t, other, webhookUrl), created.signature);
      assert.equal(await pluginRequest(t, other, 'GET', `webhooks/${created.id}`), undefined, "another merchant's webhook reads as unknown");

      // The secret is sealed at rest.
      const stored = await t.service.db.read((tx) => tx.get<{ secret_enc: Buffer }>('SELECT secret_enc FROM webhook_endpoints WHERE number = ?', [created.id]));
      assert.ok(!Buffer.from(stored!.secret_enc).toString('latin1').includes(created.signature));
      assert.ok(!t.logLines.some((line) => line.includes(created.signature)), 'the secret is never logged');
    });

    it("changes and deletes by accept.blue id; lists Payrail's own endpoints beside, each in its own shape; refuses bad fields", async () => {
      const merchant = await t.newMerchant();
      const payrail = await callOk(t, merchant, 'POST', '/api/v2/webhooks', { url: 'https://hooks.example/payrail', events: ['transfer.failed'] });
      t.clock.advance(1000);
      const made = await callOk(t, merchant, 'POST', '/api/v2/webhooks', { webhook_url: 'https://hooks.example/ab' }, 201);
      assert.deepEqual([made.description, made.active], [null, true]);
      const { signature: _secret, ...payrailShown } = payrail;
      assert.deepEqual(await callOk(t, merchant, 'GET', '/api/v2/webhooks'), [payrailShown, made]);

      const changed = await callOk(t, merchant, 'PATCH', `/api/v2/webhooks/${made.id}`, { description: 'Shop', active: false });
      assert.deepEqual(changed, { ...made, description: 'Shop', active: false });
      // A URL already registered is refused on a change too, and the change is not made.
      await callOk(t, merchant, 'POST', '/api/v2/webhooks', { webhook_url: 'https://hooks.example/taken' }, 201);
      const taken = await t.app.inject({
        method: 'PATCH',
        url: `/api/v2/webhooks/${made.id}`,
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: JSON.stringify({ webhook_url: 'https://hooks.example/taken' }),
      });
      assert.equal(taken.statusCode, 409, taken.body);
      assert.equal((await callOk(t, merchant, 'GET', `/api/v2/webhooks/${made.id}`)).webhook_url, 'https://hooks.example/ab');

      for (const [method, url, body] of [
        ['POST', '/api/v2/webhooks', { webhook_url: 'ftp://hooks.example/x' }],
        ['POST', '/api/v2/webhooks', { webhook_url: `https://hooks.example/${'x'.repeat(250)}` }],
        ['POST', '/api/v2/webhooks', { webhook_url: 'https://hooks.example/y', description: '' }],
        ['POST', '/api/v2/webhooks', { webhook_url: 'https://hooks.example/y', url: 'https://hooks.example/y' }],
        ['PATCH', `/api/v2/webhooks/${made.id}`, { events: ['charge.approved'] }],
        ['PATCH', `/api/v2/webhooks/${payrail.id}`, { webhook_url: 'https://hooks.example/z' }],
      ] as const) {
        const response = await t.app.inject({
          method,
          url,
          headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        assert.equal(response.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}: ${response.body}`);
      }

      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v2/webhooks/${made.id}`, headers: { authorization: basicOf(merchant) } });
      assert.equal(deleted.statusCode, 204);
      assert.equal(deleted.body, '');
      const gone = await t.app.inject({ method: 'GET', url: `/api/v2/webhooks/${made.id}`, headers: { authorization: basicOf(merchant) } });
      assert.equal(gone.statusCode, 404);
      // Its URL is free again; the new webhook gets a new id.
      const remade = await callOk(t, merchant, 'POST', '/api/v2/webhooks', { webhook_url: 'https://hooks.example/ab' }, 201);
      assert.ok(remade.id > made.id);
    });

    it("delivers accept.blue's envelope, signed with `signature`, that the plugin's receiver accepts: a schedule run's charge, a decline, a void, a refund and the batch", async () => {
      const receiver = await startReceiver(() => 201);
      const own = await startReceiver();
      try {
        t.clock.set(Date.UTC(2031, 2, 10, 9));
        const merchant = await acceptBlueMerchant(t);
        const secret = await registerWebhook(t, merchant, receiver.url);
        // Payrail's own endpoint of the same merchant keeps getting Payrail's events.
        const payrailEndpoint = await callOk(t, merchant, 'POST', '/api/v2/webhooks', { url: own.url });

        const customer = await newCustomer(t, merchant);
        const method = await saveCardFor(t, merchant, customer.id);
        const schedule = await pluginRequest(t, merchant, 'POST', `customers/${customer.id}/recurring-schedules`, {
          title: 'Monthly box',
          amount: 19.99,
          payment_method_id: method.id,
          frequency: 'monthly',
          next_run_date: dayOf(t, 1),
        });
        t.clock.advance(86_400_000);
        await t.worker.drain();
        const runs: Json[] = await callOk(t, merchant, 'GET', `/api/v2/recurring-schedules/${schedule.id}/transactions`);
        assert.equal(runs.length, 1);
        // A bare transaction in the accept.blue dialect (its id), a charge answer in the spec dialect (its reference_number).
        const runId = Number(runs[0].reference_number ?? runs[0].id);
        const runCustomFields = runs[0].transaction?.custom_fields ?? runs[0].custom_fields;

        // The plugin's checkout charge: pm-<id> with the order lines in custom1.
        const custom1 = JSON.stringify(['order-line-1', 'order-line-2']);
        const checkout = await pluginRequest(t, merchant, 'POST', 'transactions/charge', {
          source: `pm-${method.id}`,
          amount: 25,
          custom_fields: { custom1 },
        });
        assert.equal(checkout.status, 'Approved');
        const declined = await chargeCard(t, merchant, { card: '4000000000000002', amount: 7 });
        const voided = await chargeCard(t, merchant, { amount: 12, capture: false });
        await operateOk(t, merchant, 'void', { reference_number: voided });
        const sold = await chargeCard(t, merchant, { amount: 30 });
        await closeSandboxBatch(t, merchant);
        await operateOk(t, merchant, 'refund', { reference_number: sold, amount: 5 });
        // A transfer-free merchant has no transfer events; a capture has no accept.blue counterpart and is not sent.
        await deliverDue(depsOf(t));

        const bodies = receiver.received.map((received) => ({ received, body: JSON.parse(received.body) as Json }));
        for (const { received, body } of bodies) {
          assert.ok(pinelabAccepts(received, secret), `X-Signature of ${body.event} ${body.type} ${body.subType}`);
          assert.equal(received.headers['content-type'], 'application/json');
          assert.deepEqual(Object.keys(body), ['event', 'type', 'subType', 'id', 'timestamp', 'data']);
          assert.match(body.id, /^[0-9a-f]{32}$/);
          assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        }
        const kinds = bodies.map(({ body }) => `${body.event}/${body.type}/${body.subType}`).sort();
        assert.deepEqual(kinds, [
          'batch/closed/null',
          'transaction/declined/charge',
          'transaction/succeeded/charge',
          'transaction/succeeded/charge',
          'transaction/succeeded/charge',
          'transaction/succeeded/charge',
          'transaction/succeeded/refund',
          'transaction/updated/void',
        ]);
        assert.equal(new Set(bodies.map(({ body }) => body.id)).size, bodies.length, 'one id per event');

        // What the plugin reads of the schedule run's charge.
        const run = bodies.find(({ body }) => body.data.transaction?.id === runId)!.body;
        assert.deepEqual([run.event, run.type, run.subType], ['transaction', 'succeeded', 'charge']);
        assert.equal(run.data.reference_number, runId);
        assert.equal(run.data.status, 'Approved');
        assert.equal(run.data.transaction.transaction_details.schedule_id, schedule.id);
        assert.equal(typeof run.data.transaction.custom_fields, 'object');
        assert.deepEqual(run.data.transaction.custom_fields, runCustomFields);

        // A checkout's charge: the plugin falls back to custom1 (a JSON array of order lines) when there is no schedule_id.
        const paid = bodies.find(({ body }) => body.data.transaction?.id === checkout.transaction.id)!.body;
        assert.deepEqual([paid.event, paid.type, paid.subType], ['transaction', 'succeeded', 'charge']);
        assert.equal(paid.data.transaction.transaction_details.schedule_id, null);
        assert.deepEqual(JSON.parse(paid.data.transaction.custom_fields.custom1), ['order-line-1', 'order-line-2']);

        const decline = bodies.find(({ body }) => body.type === 'declined')!.body;
        assert.equal(Number(decline.data.reference_number ?? decline.data.id), declined);
        const refund = bodies.find(({ body }) => body.subType === 'refund')!.body;
        assert.equal(Number(refund.data.transaction.transaction_details.reference_number), sold, 'the refund names the charge it refunds');
        const batch = bodies.find(({ body }) => body.event === 'batch')!.body;
        assert.deepEqual(Object.keys(batch.data).sort(), ['auto_close_date', 'closed_at', 'id', 'opened_at', 'platform', 'sequence_number']);
        assert.equal(typeof batch.data.id, 'number');

        // Deliveries of the same event carry the same id: a re-send is recognised.
        const runEventId = run.id;
        const events = (await callOk(t, merchant, 'GET', '/api/v2/events?type=charge.approved&limit=100')).data as Json[];
        const runEvent = events.find((event) => event.data.reference_number === runId)!;
        await callOk(t, merchant, 'POST', `/api/v2/events/${runEvent.id}/resend`);
        const before = receiver.received.length;
        await deliverDue(depsOf(t));
        const resent = receiver.received.slice(before).map((received) => JSON.parse(received.body) as Json);
        assert.deepEqual(
          resent.map((body) => body.id),
          [runEventId],
        );

        // Payrail's own endpoint got Payrail's events, the capture-free ones and the transfer-free ones alike.
        const ownTypes = own.received.map((received) => (JSON.parse(received.body) as Json).type);
        for (const type of ['charge.approved', 'charge.declined', 'charge.voided', 'batch.closed', 'refund.succeeded', 'schedule.charged']) {
          assert.ok(ownTypes.includes(type), `${type} to Payrail's endpoint ${payrailEndpoint.id}`);
        }
      } finally {
        await receiver.close();
        await own.close();
      }
    });
  });
}
