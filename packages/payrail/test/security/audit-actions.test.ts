// Sensitive actions leave audit rows (PCI DSS 10.2), on both stores: webhook
// endpoints created, changed, their secret rotated and deleted through the
// API and the panel (the CLI's are in test/cli/webhooks.test.ts); capture,
// void and refund from the panel; a schedule paused and resumed from the
// panel and the API. Each row names who acted (a panel user, an API key).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chargeCard, closeSandboxBatch } from '../helpers/lifecycle.ts';
import { PanelClient } from '../helpers/panel.ts';
import { basicOf } from '../helpers/payin.ts';
import { callOk, newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`audit rows of sensitive actions (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let panel: PanelClient;

    /** The events of a target, as "action actor_kind outcome". */
    async function eventsOf(target: string | number): Promise<string[]> {
      const rows = await t.service.db.read((tx) =>
        tx.all<{ action: string; actor_kind: string; outcome: string }>(
          "SELECT action, actor_kind, outcome FROM audit_events WHERE target = ? AND action NOT LIKE 'panel.%' ORDER BY id",
          [String(target)],
        ),
      );
      return rows.map((r) => `${r.action} ${r.actor_kind} ${r.outcome}`);
    }

    function api(method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
      return t.app.inject({ method, url, headers: { authorization: basicOf(shop) }, ...(payload === undefined ? {} : { payload }) });
    }

    before(async () => {
      t = await createTestApp(kind, { validateResponses: false });
      t.clock.set(Date.UTC(2030, 0, 15, 12));
      shop = await t.newMerchant({ name: 'Audited shop' });
      await createUser(
        { db: t.service.db, clock: t.clock },
        { email: 'audited@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD },
      );
      panel = new PanelClient(t.app);
      assert.equal((await panel.signIn('audited@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('finding 8: webhook endpoint create, update, secret rotation and delete are audited, through the API and the panel', async () => {
      const created = await api('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/a?token=private', events: ['transfer.created'] });
      assert.equal(created.statusCode, 200, created.body);
      const id = (created.json() as { id: string }).id;
      assert.equal((await api('PATCH', `/api/v2/webhooks/${id}`, { enabled: false })).statusCode, 200);
      assert.equal((await api('POST', `/api/v2/webhooks/${id}/rotate`)).statusCode, 200);
      assert.equal((await api('DELETE', `/api/v2/webhooks/${id}`)).statusCode, 200);
      assert.deepEqual(await eventsOf(id), [
        'webhook.endpoint_create credential success',
        'webhook.endpoint_update credential success',
        'webhook.secret_rotate credential success',
        'webhook.endpoint_delete credential success',
      ]);
      const details = await t.service.db.read((tx) => tx.all<{ detail: string | null }>('SELECT detail FROM audit_events WHERE target = ?', [id]));
      assert.ok(
        details.every((d) => !(d.detail ?? '').includes('token=private')),
        'a URL is described by its host only',
      );

      await panel.get('/dashboard/webhooks');
      const made = await panel.post('/dashboard/webhooks', { url: 'http://localhost:9/hook', events: 'transfer.created' });
      assert.equal(made.status, 200);
      const panelId = /we_[0-9A-Za-z]{16}/.exec(made.body)![0];
      await panel.get('/dashboard/webhooks');
      assert.equal((await panel.post(`/dashboard/webhooks/${panelId}/disable`)).status, 303);
      assert.equal((await panel.post(`/dashboard/webhooks/${panelId}/rotate`)).status, 200);
      await panel.get('/dashboard/webhooks');
      assert.equal((await panel.post(`/dashboard/webhooks/${panelId}/delete`)).status, 303);
      assert.deepEqual(await eventsOf(panelId), [
        'webhook.endpoint_create user success',
        'webhook.endpoint_update user success',
        'webhook.secret_rotate user success',
        'webhook.endpoint_delete user success',
      ]);
    });

    it('finding 8: capture, void and refund from the panel are audited, a refused one too', async () => {
      const captured = await chargeCard(t, shop, { amount: 30, capture: false });
      const voided = await chargeCard(t, shop, { amount: 9, capture: false });
      const refunded = await chargeCard(t, shop, { amount: 20 });
      await closeSandboxBatch(t, shop);
      await panel.get(`/dashboard/charges/${captured}`);
      assert.equal((await panel.post(`/dashboard/charges/${captured}/capture`, { amount: '30.00', confirm: 'yes' })).status, 303);
      assert.equal((await panel.post(`/dashboard/charges/${voided}/void`, { confirm: 'yes' })).status, 303);
      assert.equal((await panel.post(`/dashboard/charges/${refunded}/refund`, { amount: '5.00', confirm: 'yes' })).status, 303);
      assert.equal((await panel.post(`/dashboard/charges/${refunded}/refund`, { amount: '99.00', confirm: 'yes' })).status, 400);
      assert.deepEqual(await eventsOf(captured), ['charge.capture user success']);
      assert.deepEqual(await eventsOf(voided), ['charge.void user success']);
      assert.deepEqual(await eventsOf(refunded), ['charge.refund user success', 'charge.refund user failure']);
    });

    it('finding 8: pausing and resuming a schedule is audited, from the panel and the API', async () => {
      const customer = await newCustomer(t, shop, { customer_number: 'A-1' });
      const method = await saveCardFor(t, shop, customer.id, '4111111111111111', { name: 'Ada L' });
      const schedule = await callOk(
        t,
        shop,
        'POST',
        `/api/v2/customers/${customer.id}/recurring-schedules`,
        { title: 'Tea club', amount: 5, frequency: 'weekly', next_run_date: '2030-02-01', num_left: 3, payment_method_id: method.id },
        201,
      );
      await panel.get(`/dashboard/schedules/${schedule.id}`);
      assert.equal((await panel.post(`/dashboard/schedules/${schedule.id}/pause`)).status, 303);
      assert.equal((await panel.post(`/dashboard/schedules/${schedule.id}/resume`)).status, 303);
      await callOk(t, shop, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { active: false });
      await callOk(t, shop, 'PATCH', `/api/v2/recurring-schedules/${schedule.id}`, { title: 'Renamed' });
      assert.deepEqual(await eventsOf(schedule.id), ['schedule.pause user success', 'schedule.resume user success', 'schedule.pause credential success']);
    });
  });
}
