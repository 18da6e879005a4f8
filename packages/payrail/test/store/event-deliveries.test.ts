// Events written with their webhook deliveries (store/events.ts insertEvents),
// on both stores: in one call of many events of merchants with and without
// endpoints, cut into several multi-row statements, each event gets exactly
// one delivery per enabled endpoint of its merchant that subscribes to its
// type (due when the endpoint's pause ends, if it is paused), and nothing is
// left for the fan-out. A failure later in the same transaction takes the
// events and their deliveries back together.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertEvents } from '../../src/store/events.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** More than the largest multi-row chunk (64), so the call runs several statements. */
const EVENTS = 70;

async function endpoint(t: TestApp, merchantId: string, values: { id: string; eventTypes: string; enabled: number; pausedUntilMs: number }) {
  await t.service.db.write((tx) =>
    tx.run(
      `INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, enabled, secret_enc, paused_until_ms, created_at_ms, updated_at_ms)
       VALUES (?, ?, 'https://hooks.example.com/x', ?, ?, ?, ?, 1, 1)`,
      [values.id, merchantId, values.eventTypes, values.enabled, Buffer.alloc(1), values.pausedUntilMs],
    ),
  );
}

for (const kind of STORE_KINDS) {
  describe(`events written with their deliveries (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('gives each event one delivery per subscribed enabled endpoint of its merchant, in the same statements, and leaves nothing to fan out', async () => {
      const listened = (await t.newMerchant()).merchant_id;
      const quiet = (await t.newMerchant()).merchant_id;
      const suffix = listened.slice(-8);
      const nowMs = t.clock.nowMs();
      const pausedUntilMs = nowMs + 60_000;
      await endpoint(t, listened, { id: `we_all_${suffix}`, eventTypes: '', enabled: 1, pausedUntilMs: 0 });
      await endpoint(t, listened, { id: `we_paused_${suffix}`, eventTypes: ' charge.approved ', enabled: 1, pausedUntilMs });
      await endpoint(t, listened, { id: `we_off_${suffix}`, eventTypes: '', enabled: 0, pausedUntilMs: 0 });
      const events = Array.from({ length: EVENTS }, (_, i) => ({
        merchantId: i % 3 === 0 ? quiet : listened,
        type: i % 2 === 0 ? 'transfer.created' : 'charge.approved',
        dataJson: JSON.stringify({ i }),
        nowMs,
      }));
      await t.service.db.write((tx) => insertEvents(tx, events));

      const written = await t.service.db.read((tx) =>
        tx.all<{ pk: number; merchant_id: string; type: string; fanned_out: number }>(
          'SELECT pk, merchant_id, type, fanned_out FROM events WHERE merchant_id IN (?, ?) ORDER BY pk',
          [listened, quiet],
        ),
      );
      assert.deepEqual(
        written.map((e) => [e.merchant_id, e.type]),
        events.map((e) => [e.merchantId, e.type]),
        'in order',
      );
      assert.deepEqual(new Set(written.map((e) => Number(e.fanned_out))), new Set([1]));
      const deliveries = await t.service.db.read((tx) =>
        tx.all<{ event_pk: number; endpoint_id: string; next_attempt_at_ms: number; status: string }>(
          'SELECT event_pk, endpoint_id, next_attempt_at_ms, status FROM webhook_deliveries WHERE merchant_id IN (?, ?) ORDER BY event_pk, endpoint_id',
          [listened, quiet],
        ),
      );
      const expected = written.flatMap((e) => {
        if (e.merchant_id !== listened) return [];
        const mine = [{ event_pk: Number(e.pk), endpoint_id: `we_all_${suffix}`, next_attempt_at_ms: nowMs, status: 'pending' }];
        if (e.type === 'charge.approved')
          mine.push({ event_pk: Number(e.pk), endpoint_id: `we_paused_${suffix}`, next_attempt_at_ms: pausedUntilMs, status: 'pending' });
        return mine.sort((a, b) => (a.endpoint_id < b.endpoint_id ? -1 : 1));
      });
      assert.deepEqual(
        deliveries.map((d) => ({ ...d, event_pk: Number(d.event_pk), next_attempt_at_ms: Number(d.next_attempt_at_ms) })),
        expected,
      );
      const unfanned = await t.service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM events WHERE fanned_out = 0'));
      assert.equal(Number(unfanned!.n), 0);
    });

    it('takes an event and its deliveries back together when the transaction fails after them', async () => {
      const merchant = (await t.newMerchant()).merchant_id;
      await endpoint(t, merchant, { id: `we_${merchant.slice(-8)}`, eventTypes: '', enabled: 1, pausedUntilMs: 0 });
      await assert.rejects(
        t.service.db.write(async (tx) => {
          await insertEvents(tx, [{ merchantId: merchant, type: 'transfer.created', dataJson: '{}', nowMs: t.clock.nowMs() }]);
          throw new Error('later refusal');
        }),
        /later refusal/,
      );
      const count = async (table: string) =>
        Number((await t.service.db.read((tx) => tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE merchant_id = ?`, [merchant])))!.n);
      assert.deepEqual([await count('events'), await count('webhook_deliveries')], [0, 0]);
    });
  });
}
