// Events and signed webhooks end to end (docs/api-decisions.md section 11):
// a real HTTP receiver on loopback gets every event of a scenario (charge,
// capture, void, batch close, refund, transfers to 60, 80 and waiting),
// each signed both ways, and de-duplicates them by event id; a receiver that
// answers 500 for a while gets the event after retries; one that never
// answers is disabled after 3 days of simulated time. The clock is manual:
// nothing waits for real time except a hung receiver's short deadline.
import { EVENT_TYPES } from '../../src/domain/webhooks.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/domain/clock.ts';
import { retryDelayMs } from '../../src/domain/webhooks.ts';
import { claimDeliveries, type DeliveryDeps, deliver, deliverDue, fanOut, SENDS_PER_ENDPOINT_MAX } from '../../src/flows/webhooks/deliver.ts';
import { sendWebhook } from '../../src/providers/webhook-sender.ts';
import { WebhookWorker } from '../../src/worker/webhook-worker.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch, operateOk } from '../helpers/lifecycle.ts';
import { basicOf } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { caller, transferBody } from '../helpers/transfers.ts';
import { signaturesValid, startReceiver } from '../helpers/webhook-receiver.ts';

type Merchant = Awaited<ReturnType<TestApp['newMerchant']>>;

function depsOf(t: TestApp, timeoutMs?: number): DeliveryDeps {
  return {
    db: t.service.db,
    clock: t.clock,
    log: t.service.log,
    config: t.service.config,
    send: sendWebhook,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

async function createEndpoint(t: TestApp, merchant: Merchant, body: Record<string, unknown>, auth: 'basic' | 'key' = 'basic') {
  const headers = auth === 'basic' ? { authorization: basicOf(merchant) } : { 'api-key': merchant.transfer_api_key };
  const response = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: body });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { id: string; signature: string; events: string[]; enabled: boolean };
}

/** How many of the endpoint's deliveries are not delivered. */
async function undeliveredOf(t: TestApp, endpointId: string): Promise<number> {
  const row = await t.service.db.read((tx) =>
    tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status <> 'delivered'", [endpointId]),
  );
  return Number(row!.n);
}

for (const kind of STORE_KINDS) {
  describe(`webhook deliveries (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('delivers every event of a scenario, signed both ways, once per event id, with data as GET shows it', async () => {
      const receiver = await startReceiver();
      try {
        const merchant = await t.newMerchant({ fundCents: 1_000_000 });
        const endpoint = await createEndpoint(t, merchant, { url: receiver.url });
        assert.match(endpoint.signature, /^whsec_[0-9A-Za-z]{32}$/);
        assert.equal(endpoint.events.length, EVENT_TYPES.length);

        // Card: an authorization, its capture, another authorization voided, the batch closed, a refund.
        const auth = await chargeCard(t, merchant, { amount: 30, capture: false });
        await operateOk(t, merchant, 'capture', { reference_number: auth });
        const voided = await chargeCard(t, merchant, { amount: 12, capture: false });
        await operateOk(t, merchant, 'void', { reference_number: voided });
        await closeSandboxBatch(t, merchant);
        const refund = (await operateOk(t, merchant, 'refund', { reference_number: auth, amount: 5 })) as { reference_number: number };
        // Transfers: one to 60, one to 80, one waiting for an invitation.
        const api = caller(t.app, merchant.transfer_api_key);
        const ok = transferBody({ amount: '10.00', lastFour: '5678' });
        const bad = transferBody({ amount: '10.00', lastFour: '0004' });
        const waiting = transferBody({ amount: '10.00', lastFour: '0003' });
        for (const body of [ok, bad, waiting]) assert.equal((await api.execute(body)).status, 200);
        await t.worker.drain();

        assert.ok((await deliverDue(depsOf(t))) > 0);
        // Sent concurrently, so they may arrive in any order; event ids sort in the order of the changes.
        const events = receiver.received
          .map((r) => ({ ...(JSON.parse(r.body) as { id: string; type: string; livemode: boolean; data: Record<string, unknown> }), r }))
          .sort((a, b) => Number(a.id.slice(4)) - Number(b.id.slice(4)));
        for (const event of events) {
          assert.ok(signaturesValid(event.r, endpoint.signature), `signatures of ${event.type}`);
          assert.equal(event.r.headers['payrail-event-id'], event.id);
          assert.equal(event.r.headers['content-type'], 'application/json');
          assert.equal(event.livemode, false);
        }
        const types = events.map((e) => e.type);
        for (const type of [
          'charge.approved',
          'charge.captured',
          'charge.voided',
          'batch.closed',
          'refund.succeeded',
          'transfer.created',
          'transfer.processing',
          'transfer.succeeded',
          'transfer.failed',
          'transfer.waiting',
        ]) {
          assert.ok(types.includes(type), `${type} delivered (got ${types.join(', ')})`);
        }
        // Three transfers created, two processed, one waiting: per transfer id in order.
        const transferTypes = (id: string) => events.filter((e) => e.type.startsWith('transfer.') && e.data.id === id).map((e) => e.type);
        assert.deepEqual(transferTypes(ok.id), ['transfer.created', 'transfer.processing', 'transfer.succeeded']);
        assert.deepEqual(transferTypes(bad.id), ['transfer.created', 'transfer.processing', 'transfer.failed']);
        assert.deepEqual(transferTypes(waiting.id), ['transfer.created', 'transfer.waiting']);

        // data is the object as its GET endpoint shows it.
        const statusResult = ((await api.status(ok.id)).body as { status: { result: Record<string, unknown> } }).status.result;
        const succeeded = events.find((e) => e.type === 'transfer.succeeded' && e.data.id === ok.id)!;
        const { server_time: eventTime, ...eventStatus } = succeeded.data;
        const { server_time: _statusTime, ...statusWithoutTime } = statusResult;
        assert.deepEqual(eventStatus, statusWithoutTime);
        assert.equal(typeof eventTime, 'string');
        const refundGet = await t.app.inject({
          method: 'GET',
          url: `/api/v2/transactions/${refund.reference_number}`,
          headers: { authorization: basicOf(merchant) },
        });
        assert.deepEqual(events.find((e) => e.type === 'refund.succeeded')!.data, refundGet.json());

        // A re-send is a second delivery of the same event id: the receiver de-duplicates by it.
        const first = events[0]!;
        const resend = await t.app.inject({ method: 'POST', url: `/api/v2/events/${first.id}/resend`, headers: { 'api-key': merchant.transfer_api_key } });
        assert.equal(resend.statusCode, 200, resend.body);
        assert.deepEqual(resend.json(), { id: first.id, deliveries: 1 });
        await deliverDue(depsOf(t));
        const ids = receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
        assert.equal(ids.length, events.length + 1);
        assert.equal(new Set(ids).size, events.length);
        // Without the re-send every event went exactly once.
        const listed = await t.app.inject({ method: 'GET', url: '/api/v2/events?limit=100', headers: { authorization: basicOf(merchant) } });
        assert.equal((listed.json() as { data: unknown[] }).data.length, events.length);
      } finally {
        await receiver.close();
      }
    });

    it('writes each event with its deliveries: one per enabled endpoint of its merchant, none for a merchant without one, nothing left to fan out', async () => {
      const receiver = await startReceiver();
      try {
        const quiet = await t.newMerchant({ fundCents: 100_000 });
        const listened = await t.newMerchant({ fundCents: 100_000 });
        await createEndpoint(t, listened, { url: receiver.url });
        const paused = await t.newMerchant({ fundCents: 100_000 });
        const off = await createEndpoint(t, paused, { url: receiver.url });
        await t.service.db.write((tx) => tx.run('UPDATE webhook_endpoints SET enabled = 0 WHERE id = ?', [off.id]));
        // Events of every path: execute (alone and, on PostgreSQL, batched), the worker's transitions, a card charge.
        for (const merchant of [quiet, listened, paused]) {
          const api = caller(t.app, merchant.transfer_api_key);
          const replies = await Promise.all([transferBody(), transferBody(), transferBody()].map((body) => api.execute(body)));
          assert.deepEqual(
            replies.map((r) => r.status),
            [200, 200, 200],
          );
          await chargeCard(t, merchant, { amount: 5 });
        }
        await t.worker.drain();
        const eventsOf = async (merchantId: string) =>
          t.service.db.read((tx) =>
            tx.all<{ pk: number; fanned_out: number }>('SELECT pk, fanned_out FROM events WHERE merchant_id = ? ORDER BY pk', [merchantId]),
          );
        const deliveredEventsOf = async (merchantId: string) =>
          (
            await t.service.db.read((tx) =>
              tx.all<{ event_pk: number }>('SELECT event_pk FROM webhook_deliveries WHERE merchant_id = ? ORDER BY event_pk', [merchantId]),
            )
          ).map((r) => Number(r.event_pk));
        const quietEvents = await eventsOf(quiet.merchant_id);
        assert.ok(quietEvents.length >= 7, `events of the quiet merchant: ${quietEvents.length}`);
        for (const merchant of [quiet, listened, paused]) {
          assert.deepEqual(new Set((await eventsOf(merchant.merchant_id)).map((e) => Number(e.fanned_out))), new Set([1]), 'written fanned out');
        }
        // Before any fan-out or send: the listened merchant's events each have their delivery already.
        assert.deepEqual(
          await deliveredEventsOf(listened.merchant_id),
          (await eventsOf(listened.merchant_id)).map((e) => Number(e.pk)),
        );
        assert.deepEqual(await deliveredEventsOf(quiet.merchant_id), [], 'no endpoint, no delivery');
        assert.deepEqual(await deliveredEventsOf(paused.merchant_id), [], 'a disabled endpoint counts as none');
        assert.equal(await fanOut(depsOf(t)), 0, 'nothing left to fan out');

        const delivered = await deliverDue(depsOf(t));
        assert.equal(delivered, (await eventsOf(listened.merchant_id)).length, 'one delivery per event of the merchant with an endpoint, none for the others');
        assert.equal(
          await undeliveredOf(
            t,
            (await t.service.db.read((tx) => tx.get<{ id: string }>('SELECT id FROM webhook_endpoints WHERE merchant_id = ?', [listened.merchant_id])))!.id,
          ),
          0,
        );
      } finally {
        await receiver.close();
      }
    });

    it('fans out, once and as of now, an event written before events came with their deliveries (fanned_out 0)', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const all = await createEndpoint(t, merchant, { url: 'https://hooks.example.com/all' });
      const other = await createEndpoint(t, merchant, { url: 'https://hooks.example.com/other', events: ['charge.approved'] });
      const pausedUntilMs = t.clock.nowMs() + 60_000;
      await t.service.db.write((tx) => tx.run('UPDATE webhook_endpoints SET paused_until_ms = ? WHERE id = ?', [pausedUntilMs, all.id]));
      t.clock.advance(1);
      const createdAtMs = t.clock.nowMs();
      const eventPk = await t.service.db.write((tx) =>
        tx.insert('INSERT INTO events (merchant_id, type, data_json, created_at_ms, fanned_out) VALUES (?, ?, ?, ?, 0)', [
          merchant.merchant_id,
          'transfer.created',
          '{}',
          createdAtMs,
        ]),
      );
      t.clock.advance(5_000);
      assert.ok((await fanOut(depsOf(t))) >= 1);
      const deliveries = await t.service.db.read((tx) =>
        tx.all<{ endpoint_id: string; next_attempt_at_ms: number; created_at_ms: number }>(
          'SELECT endpoint_id, next_attempt_at_ms, created_at_ms FROM webhook_deliveries WHERE event_pk = ?',
          [eventPk],
        ),
      );
      // The endpoint subscribed to its type gets it, due when its pause ends; the other does not.
      assert.deepEqual(
        deliveries.map((d) => ({ endpoint_id: d.endpoint_id, at: Number(d.next_attempt_at_ms), created: Number(d.created_at_ms) })),
        [{ endpoint_id: all.id, at: pausedUntilMs, created: t.clock.nowMs() }],
      );
      assert.notEqual(other.id, all.id);
      assert.equal(await fanOut(depsOf(t)), 0, 'fanned out once');
      assert.equal(
        Number((await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_pk = ?', [eventPk])))!.n),
        1,
      );
      await t.service.db.write((tx) => tx.run("UPDATE webhook_deliveries SET status = 'failed' WHERE event_pk = ?", [eventPk]));
    });

    it('retries a receiver that answers 500 with growing delays and delivers once it answers 200', async () => {
      const receiver = await startReceiver((index) => (index < 3 ? 500 : 200));
      try {
        const merchant = await t.newMerchant({ fundCents: 100_000 });
        const endpoint = await createEndpoint(t, merchant, { url: receiver.url, events: ['transfer.created'] });
        const api = caller(t.app, merchant.transfer_api_key);
        const body = transferBody({ amount: '10.00', lastFour: '5678' });
        assert.equal((await api.execute(body)).status, 200);

        assert.equal(await deliverDue(depsOf(t)), 1);
        for (let attempt = 1; attempt <= 3; attempt++) {
          // Not due before its delay, due at it.
          t.clock.advance(retryDelayMs(attempt) - 1);
          assert.equal(await deliverDue(depsOf(t)), 0);
          t.clock.advance(1);
          assert.equal(await deliverDue(depsOf(t)), 1);
        }
        assert.equal(receiver.received.length, 4);
        assert.equal(new Set(receiver.received.map((r) => r.headers['payrail-event-id'])).size, 1);
        for (const r of receiver.received) assert.ok(signaturesValid(r, endpoint.signature));
        const row = await t.service.db.read((tx) =>
          tx.get<{ status: string; attempts: number; last_status_code: number; last_response_body: string }>(
            'SELECT status, attempts, last_status_code, last_response_body FROM webhook_deliveries WHERE endpoint_id = ?',
            [endpoint.id],
          ),
        );
        assert.deepEqual(
          { ...row, attempts: Number(row!.attempts), last_status_code: Number(row!.last_status_code) },
          {
            status: 'delivered',
            attempts: 4,
            last_status_code: 200,
            last_response_body: 'ok',
          },
        );
        // A 500's long body was kept to 1 KiB at most, and never logged.
        assert.ok(!t.logLines.join('').includes('x'.repeat(100)));
        t.clock.advance(DAY_MS);
        assert.equal(await deliverDue(depsOf(t)), 0);
      } finally {
        await receiver.close();
      }
    });

    it('pauses a failing endpoint as a whole: its new events wait for the pause, other endpoints do not', async () => {
      const failing = await startReceiver((index) => (index === 0 ? 503 : 200));
      const healthy = await startReceiver();
      try {
        const merchant = await t.newMerchant({ fundCents: 100_000 });
        const a = await createEndpoint(t, merchant, { url: failing.url, events: ['transfer.created'] });
        await createEndpoint(t, merchant, { url: healthy.url, events: ['transfer.created'] });
        const api = caller(t.app, merchant.transfer_api_key);
        assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
        await deliverDue(depsOf(t));
        assert.deepEqual([failing.received.length, healthy.received.length], [1, 1]);
        for (let i = 0; i < 3; i++) assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
        await deliverDue(depsOf(t));
        assert.deepEqual([failing.received.length, healthy.received.length], [1, 4], 'the paused endpoint waits, the other does not');
        const due = await t.service.db.read((tx) =>
          tx.all<{ at: number }>("SELECT next_attempt_at_ms AS at FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'", [a.id]),
        );
        assert.deepEqual(
          due.map((row) => Number(row.at)),
          Array(4).fill(t.clock.nowMs() + retryDelayMs(1)),
        );
        t.clock.advance(retryDelayMs(1));
        await deliverDue(depsOf(t));
        assert.equal(failing.received.length, 5);
        assert.equal(new Set(failing.received.map((r) => r.headers['payrail-event-id'])).size, 4);
        assert.equal(await undeliveredOf(t, a.id), 0);
      } finally {
        await failing.close();
        await healthy.close();
      }
    });

    it('pauses a failing endpoint without rewriting its backlog: its waiting deliveries keep their times, claims skip them until the pause ends', async () => {
      const failing = await startReceiver((index) => (index === 0 ? 503 : 200));
      const healthy = await startReceiver();
      try {
        const merchant = await t.newMerchant({ fundCents: 1_000_000 });
        const a = await createEndpoint(t, merchant, { url: failing.url, events: ['transfer.created'] });
        const api = caller(t.app, merchant.transfer_api_key);
        const backlog = 30;
        for (let i = 0; i < backlog; i++) assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
        const createdAtMs = t.clock.nowMs();
        // One delivery at a time: the first fails, and the endpoint pauses with the rest of the backlog due.
        const deps = depsOf(t);
        await fanOut(deps);
        const first = await claimDeliveries(deps, 1, new Map(), { perEndpointMax: 1 });
        assert.equal(first.length, 1);
        assert.equal(await deliver(deps, first[0]!), 'retry');
        const waiting = await t.service.db.read((tx) =>
          tx.all<{ at: number }>("SELECT next_attempt_at_ms AS at FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' AND pk <> ?", [
            a.id,
            first[0]!.pk,
          ]),
        );
        assert.equal(waiting.length, backlog - 1);
        assert.ok(
          waiting.every((row) => Number(row.at) <= createdAtMs),
          'the waiting deliveries were not rewritten',
        );
        // Paused: nothing of its backlog is claimed, while another endpoint's new events are.
        await createEndpoint(t, merchant, { url: healthy.url, events: ['transfer.created'] });
        assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
        assert.equal(await deliverDue(deps), 1);
        assert.deepEqual([failing.received.length, healthy.received.length], [1, 1]);
        // Once the pause ends, the whole backlog goes.
        t.clock.advance(retryDelayMs(1));
        await deliverDue(deps);
        assert.equal(failing.received.length, 1 + backlog + 1);
        assert.equal(await undeliveredOf(t, a.id), 0);
      } finally {
        await failing.close();
        await healthy.close();
      }
    });

    it('a hung endpoint holds at most its share of delivery slots: another endpoint gets every event meanwhile', async () => {
      const hung = await startReceiver(() => 'hang');
      const fast = await startReceiver();
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      await createEndpoint(t, merchant, { url: hung.url, events: ['transfer.created'] });
      await createEndpoint(t, merchant, { url: fast.url, events: ['transfer.created'] });
      const api = caller(t.app, merchant.transfer_api_key);
      for (let i = 0; i < 10; i++) assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
      // Six slots, and sends to the hung endpoint would wait 60 s for an answer.
      const worker = new WebhookWorker(depsOf(t, 60_000), t.service.log, SENDS_PER_ENDPOINT_MAX + 2);
      worker.start();
      try {
        const deadline = Date.now() + 20_000;
        while (fast.received.length < 10) {
          assert.ok(Date.now() < deadline, `${fast.received.length} of 10 delivered to the healthy endpoint`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(hung.received.length <= SENDS_PER_ENDPOINT_MAX, `${hung.received.length} sends to the hung endpoint at once`);
        // Once its sends have hung a while, the endpoint is paused: claims skip it without reading its backlog.
        const pausedUntil = async () =>
          Number(
            (await t.service.db.read((tx) => tx.get<{ at: number }>('SELECT paused_until_ms AS at FROM webhook_endpoints WHERE url = ?', [hung.url])))!.at,
          );
        while ((await pausedUntil()) <= t.clock.nowMs()) {
          assert.ok(Date.now() < deadline, 'the hung endpoint was paused');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // Stopping ends the hung sends at once (not after their 60 s), recording nothing: their claims lapse and they are sent again later.
        const stopped = await Promise.race([worker.stop().then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5000))]);
        assert.equal(stopped, true, 'the worker stopped without waiting for the hung sends');
        const recorded = await t.service.db.read((tx) =>
          tx.get<{ n: number }>(
            "SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.url = ? AND (d.status <> 'pending' OR d.last_attempt_at_ms IS NOT NULL)",
            [hung.url],
          ),
        );
        assert.equal(Number(recorded!.n), 0);
      } finally {
        await worker.stop();
        await hung.close();
        await fast.close();
      }
    });

    it('disables an endpoint that never answers after 3 days, and fails its delivery', async () => {
      const receiver = await startReceiver(() => 'hang');
      try {
        const merchant = await t.newMerchant({ fundCents: 100_000 });
        const endpoint = await createEndpoint(t, merchant, { url: receiver.url, events: ['transfer.created'] }, 'key');
        const api = caller(t.app, merchant.transfer_api_key);
        assert.equal((await api.execute(transferBody({ amount: '10.00', lastFour: '5678' }))).status, 200);
        const startMs = t.clock.nowMs();
        const deps = depsOf(t, 100);
        for (let round = 0; round < 100; round++) {
          await deliverDue(deps);
          const next = await t.service.db.read((tx) =>
            tx.get<{ at: number | null }>("SELECT MIN(next_attempt_at_ms) AS at FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'", [
              endpoint.id,
            ]),
          );
          if (next?.at === null || next?.at === undefined) break;
          t.clock.set(Number(next.at));
        }
        assert.equal(t.clock.nowMs() - startMs, 3 * DAY_MS, 'the last attempt is at the end of the 3 days');
        // Earlier tests' deliveries may be retried meanwhile; this endpoint's are counted in its row.
        const row = await t.service.db.read((tx) =>
          tx.get<{ attempts: number }>('SELECT attempts FROM webhook_deliveries WHERE endpoint_id = ?', [endpoint.id]),
        );
        const attempts = Number(row!.attempts);
        assert.equal(receiver.received.length, attempts);
        assert.ok(attempts > 5 && attempts < 40, `${attempts} attempts`);
        const shown = await t.app.inject({ method: 'GET', url: `/api/v2/webhooks/${endpoint.id}`, headers: { 'api-key': merchant.transfer_api_key } });
        assert.equal(shown.statusCode, 200);
        assert.equal(shown.json().enabled, false);
        assert.equal(shown.json().disabled_reason, 'every delivery failed for 3 days');
        const delivery = await t.service.db.read((tx) =>
          tx.get<{ status: string; last_error: string }>('SELECT status, last_error FROM webhook_deliveries WHERE endpoint_id = ?', [endpoint.id]),
        );
        assert.equal(delivery!.status, 'failed');
        assert.match(delivery!.last_error, /no answer within 100 ms/);
        // A disabled endpoint gets no new deliveries.
        assert.equal((await api.execute(transferBody({ amount: '10.00', lastFour: '5678' }))).status, 200);
        assert.equal(await deliverDue(deps), 0);
      } finally {
        await receiver.close();
      }
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`webhook delivery claims (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('fills a claim from several endpoints when each has fewer due than it may take, and takes at most its allowance of each', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const endpoints = [];
      for (let i = 0; i < 3; i++) endpoints.push(await createEndpoint(t, merchant, { url: `https://hooks.example.com/${i}`, events: ['transfer.created'] }));
      const api = caller(t.app, merchant.transfer_api_key);
      // One event, one delivery to each endpoint.
      assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
      const deps = depsOf(t);
      await fanOut(deps);
      const claimed = await claimDeliveries(deps, 3, new Map(), { perEndpointMax: 4 });
      assert.deepEqual(claimed.map((c) => c.endpoint_id).sort(), endpoints.map((e) => e.id).sort());
      // Claimed: none is due again before its lease ends.
      assert.deepEqual(await claimDeliveries(deps, 3, new Map(), { perEndpointMax: 4 }), []);
      for (let i = 0; i < 3; i++) assert.equal((await api.execute(transferBody({ amount: '1.00' }))).status, 200);
      await fanOut(deps);
      // Three due at each endpoint now; the first has its 2 sends under way already, the others take 2 each.
      const busy = new Map([[endpoints[0]!.id, 2]]);
      const next = await claimDeliveries(deps, 10, busy, { perEndpointMax: 2 });
      const perEndpoint = (id: string) => next.filter((c) => c.endpoint_id === id).length;
      assert.deepEqual(
        endpoints.map((e) => perEndpoint(e.id)),
        [0, 2, 2],
      );
    });
  });
}
