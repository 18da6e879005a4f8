// The audit trail (issue 13 finding 5, PCI DSS 10.2) on both stores: a row,
// with actor, action, target, client address, time and outcome, for every
// panel sign-in (and failure), operator action, credential change, user
// administration and refused API credential; no code path that alters or
// deletes a row; the operator's audit page with filters and pages; and
// request log lines that say who called from where.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AuditActor } from '../../src/domain/audit.ts';
import { auditEvents, type AuditEventRow } from '../../src/flows/operations/audit.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createUser, disableUser, enableUser, endUserSessions, resetUserPassword } from '../../src/flows/panel/users.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import * as auditStore from '../../src/store/audit-events.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PanelClient } from '../helpers/panel.ts';
import { basic, basicOf, chargeBody, nonceFor, postCharge } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';
const STORE_DIR = path.resolve(import.meta.dirname, '..', '..', 'src', 'store');

async function allEvents(t: TestApp): Promise<AuditEventRow[]> {
  return (await auditEvents(t.service, { action: null, fromMs: null, toMs: null, beforeId: null }, 10_000)).rows;
}

/** The newest event of an action, or a failure naming what was there. */
function newest(events: readonly AuditEventRow[], action: string, where: (e: AuditEventRow) => boolean = () => true): AuditEventRow {
  const found = events.find((e) => e.action === action && where(e));
  assert.ok(found, `no ${action} event among ${events.map((e) => e.action).join(', ')}`);
  return found;
}

function transfer(id: string, amount: string) {
  return {
    id,
    sender_phone: '+14155550123',
    receiver_phone: '+254712345678',
    amount,
    service: '1001',
    receiver_country: 'KE',
    receiver_currency: 'KES',
    attribute: [],
  };
}

for (const kind of STORE_KINDS) {
  describe(`audit trail (${kind})`, () => {
    let t: TestApp;
    let shop: CreatedMerchant;
    let operator: PanelClient;
    let merchantUser: PanelClient;
    let operatorId: string;

    before(async () => {
      t = await createTestApp(kind);
      shop = await t.newMerchant({ fundCents: 100_000, name: 'Audited shop' });
      const deps = { db: t.service.db, clock: t.clock };
      operatorId = (await createUser(deps, { email: 'ops@example.com', role: 'operator', password: PASSWORD })).id;
      await createUser(deps, { email: 'shop@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
      operator = new PanelClient(t.app);
      merchantUser = new PanelClient(t.app);
      assert.equal((await operator.signIn('ops@example.com', PASSWORD)).status, 303);
      assert.equal((await merchantUser.signIn('shop@example.com', PASSWORD)).status, 303);
    });
    after(() => t.close());

    it('records panel sign-ins, failures, second-factor enrolment and sign-out with the client address', async () => {
      const stranger = new PanelClient(t.app);
      assert.equal((await stranger.signIn('ops@example.com', 'not the password')).status, 401);
      assert.equal((await stranger.signIn('nobody@example.com', PASSWORD)).status, 401);
      const events = await allEvents(t);
      const ok = newest(events, 'panel.sign_in', (e) => e.outcome === 'success' && e.actor_id === operatorId);
      assert.deepEqual([ok.actor_kind, ok.actor_label, ok.client_address, ok.target], ['user', 'ops@example.com', operator.address, operatorId]);
      assert.equal(typeof ok.at_ms, 'number');
      const wrong = newest(events, 'panel.sign_in', (e) => e.outcome === 'denied' && e.actor_id === operatorId);
      assert.deepEqual([wrong.client_address, wrong.detail], [stranger.address, 'wrong password']);
      const unknown = newest(events, 'panel.sign_in', (e) => e.actor_kind === 'anonymous');
      assert.deepEqual(
        [unknown.actor_label, unknown.client_address, unknown.outcome, unknown.detail],
        ['nobody@example.com', stranger.address, 'denied', 'unknown e-mail'],
      );
      assert.equal(newest(events, 'panel.totp_enrol').actor_id, operatorId);

      const leaving = new PanelClient(t.app);
      await leaving.signIn('shop@example.com', PASSWORD);
      await leaving.get('/dashboard/overview');
      await leaving.post('/dashboard/logout');
      const out = newest(await allEvents(t), 'panel.sign_out');
      assert.deepEqual([out.actor_label, out.client_address, out.outcome], ['shop@example.com', leaving.address, 'success']);
    });

    it('records every operator action: merchant create, fund, overdraft, link-required, link and cancel', async () => {
      await operator.get('/dashboard/operator/merchants');
      const created = await operator.post('/dashboard/operator/merchants', { name: 'New shop' });
      assert.equal(created.status, 200);
      const newId = /<input id="merchant-id" class="mono" readonly value="(mer_[0-9A-Za-z]+)"/.exec(created.body)![1]!;
      const base = `/dashboard/operator/merchants/${shop.merchant_id}`;
      await operator.get(base);
      assert.equal((await operator.post(`${base}/fund`, { amount: '250.00' })).status, 303);
      assert.equal((await operator.post(`${base}/overdraft`, { amount: '50' })).status, 303);
      assert.equal((await operator.post(`${base}/link-required`, { on: '1' })).status, 303);

      // Two transfers wait for reconciliation; one is linked to a charge made afterwards, the other cancelled.
      await executeTransfer(t.service, shop.merchant_id, transfer('9101', '15.00'));
      await executeTransfer(t.service, shop.merchant_id, transfer('9102', '5.00'));
      await t.worker.drain();
      const charged = await postCharge(t.app, basicOf(shop), chargeBody(await nonceFor(t.app, shop), { amount: 40 }));
      const chargeRef = (charged.json() as { reference_number: number }).reference_number;
      await operator.get('/dashboard/operator/reconciliation');
      const linked = await operator.post('/dashboard/operator/reconciliation/link', {
        merchant: shop.merchant_id,
        transfer: '9101',
        charge: String(chargeRef),
      });
      assert.equal(linked.location, '/dashboard/operator/reconciliation?notice=linked');
      await operator.get('/dashboard/operator/reconciliation');
      const refused = await operator.post('/dashboard/operator/reconciliation/cancel', { merchant: shop.merchant_id, transfer: '9101' });
      assert.equal(refused.status, 400);
      await operator.get('/dashboard/operator/reconciliation');
      assert.equal((await operator.post('/dashboard/operator/reconciliation/cancel', { merchant: shop.merchant_id, transfer: '9102' })).status, 303);

      const events = await allEvents(t);
      const byOperator = (e: AuditEventRow) => e.actor_id === operatorId && e.client_address === operator.address && e.actor_kind === 'user';
      assert.deepEqual(pick(newest(events, 'merchant.create', byOperator)), ['success', newId, newId, 'name New shop']);
      assert.deepEqual(pick(newest(events, 'merchant.fund', byOperator)), ['success', shop.merchant_id, shop.merchant_id, 'amount 250.00 USD']);
      assert.deepEqual(pick(newest(events, 'merchant.overdraft', byOperator)), ['success', shop.merchant_id, shop.merchant_id, 'overdraft 50.00 USD']);
      assert.equal(newest(events, 'merchant.link_required', byOperator).detail, 'on');
      assert.deepEqual(pick(newest(events, 'transfer.link', byOperator)), ['success', '9101', shop.merchant_id, `charge ${chargeRef}`]);
      assert.deepEqual(pick(newest(events, 'transfer.cancel', (e) => byOperator(e) && e.outcome === 'success')), ['success', '9102', shop.merchant_id, null]);
      // Refused actions are there too, with why.
      const refusedCancel = newest(events, 'transfer.cancel', (e) => e.outcome === 'failure');
      assert.deepEqual([refusedCancel.target, refusedCancel.detail?.startsWith('invalid_request: only a waiting transfer')], ['9101', true]);
      // The refused cancel rolled back, so no success event claims it.
      assert.equal(events.filter((e) => e.action === 'transfer.cancel' && e.target === '9101' && e.outcome === 'success').length, 0);
    });

    it('records credential creation, rotation and revocation by merchant users', async () => {
      await merchantUser.get('/dashboard/credentials');
      const created = await merchantUser.post('/dashboard/credentials/sources', { name: 'Till' });
      const sourceId = /Source (src_[0-9A-Za-z]+) created/.exec(created.body)![1]!;
      await merchantUser.get('/dashboard/credentials');
      await merchantUser.post(`/dashboard/credentials/sources/${sourceId}/rotate`);
      await merchantUser.get('/dashboard/credentials');
      await merchantUser.post(`/dashboard/credentials/sources/${sourceId}/revoke`);
      await merchantUser.get('/dashboard/credentials');
      const rotated = await merchantUser.post('/dashboard/credentials/transfer-key/rotate');
      const newKey = /sbx_tk_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}/.exec(rotated.body)![0];
      const events = await allEvents(t);
      const byUser = (e: AuditEventRow) => e.actor_label === 'shop@example.com' && e.client_address === merchantUser.address;
      for (const action of ['source.create', 'source.rotate', 'source.revoke'] as const) {
        assert.deepEqual(pick(newest(events, action, byUser)), ['success', sourceId, shop.merchant_id, null], action);
      }
      assert.deepEqual(pick(newest(events, 'transfer_key.rotate', byUser)), ['success', shop.merchant_id, shop.merchant_id, null]);
      // No secret of any kind is in the trail.
      const text = JSON.stringify(events);
      for (const secret of [newKey, newKey.split('_')[3]!, PASSWORD, shop.source.pin]) assert.ok(!text.includes(secret), secret);
    });

    it('records user administration with its actor', async () => {
      const cli: AuditActor = { kind: 'cli', id: 'root', label: null, address: null };
      const deps = { db: t.service.db, clock: t.clock };
      const user = await createUser(deps, { email: 'temp@example.com', role: 'merchant', merchantId: shop.merchant_id }, cli);
      await disableUser(deps, 'temp@example.com', cli);
      await enableUser(deps, 'temp@example.com', cli);
      await resetUserPassword(deps, 'temp@example.com', cli);
      await endUserSessions(deps, 'temp@example.com', cli);
      await assert.rejects(disableUser(deps, 'ghost@example.com', cli));
      const events = await allEvents(t);
      for (const action of ['user.create', 'user.disable', 'user.enable', 'user.reset_password', 'user.end_sessions'] as const) {
        const event = newest(events, action, (e) => e.target === user.id);
        assert.deepEqual([event.actor_kind, event.actor_id, event.outcome], ['cli', 'root', 'success'], action);
      }
      const ghost = newest(events, 'user.disable', (e) => e.outcome === 'failure');
      assert.equal(ghost.target, 'ghost@example.com');
      assert.ok(!JSON.stringify(events).includes(user.generated_password!));
    });

    it('records every refused API credential with its id and the client address, never its secret or PIN', async () => {
      const address = '198.51.100.77';
      const [, , keyId, secret] = shop.transfer_api_key.split('_') as [string, string, string, string];
      const wrongSecret = `sbx_tk_${keyId}_${'x'.repeat(32)}`;
      const refused = await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': wrongSecret }, remoteAddress: address });
      assert.equal(refused.statusCode, 401);
      const wrongPin = await postCharge(t.app, basic(shop.source.api_key, '00000000'), chargeBody('nonce-x'), {});
      assert.equal(wrongPin.statusCode, 401);
      const missing = await t.app.inject({ method: 'GET', url: '/api/agent_balance', remoteAddress: address });
      assert.equal(missing.statusCode, 401);
      const events = await allEvents(t);
      const transferFailure = newest(events, 'api.auth_failure', (e) => e.actor_id === keyId);
      assert.deepEqual(
        [transferFailure.actor_kind, transferFailure.client_address, transferFailure.target, transferFailure.outcome],
        ['credential', address, '/api/agent_balance', 'denied'],
      );
      const sourceKeyId = shop.source.api_key.split('_')[2]!;
      assert.equal(newest(events, 'api.auth_failure', (e) => e.actor_id === sourceKeyId).target, '/api/v2/transactions/charge');
      assert.equal(newest(events, 'api.auth_failure', (e) => e.actor_kind === 'anonymous').client_address, address);
      const text = JSON.stringify(events);
      assert.ok(!text.includes(secret) && !text.includes('x'.repeat(32)) && !text.includes('00000000'));
    });

    it('has no way to alter or delete an event: no such statement in the store, no such function', () => {
      const statements: string[] = [];
      for (const file of fs.readdirSync(STORE_DIR, { recursive: true }) as string[]) {
        if (!/\.(ts|sql)$/.test(file)) continue;
        const text = fs.readFileSync(path.join(STORE_DIR, file), 'utf8');
        for (const match of text.matchAll(/\b(UPDATE|DELETE\s+FROM|TRUNCATE|DROP\s+TABLE|ALTER\s+TABLE)\s+audit_events\b/gi))
          statements.push(`${file}: ${match[0]}`);
      }
      assert.deepEqual(statements, []);
      // Appending (insertAuditEvent and the row builders the commands append through) and reading: nothing else.
      assert.deepEqual(Object.keys(auditStore).sort(), ['appendAudit', 'appendAuditNote', 'auditRow', 'insertAuditEvent', 'listAuditEvents']);
    });

    it('shows the operator the trail, filtered by action and day and paged; merchant users may not see it', async () => {
      const deps = { db: t.service.db, clock: t.clock };
      await createUser(deps, { email: 'paged@example.com', role: 'merchant', merchantId: shop.merchant_id });
      for (let i = 0; i < 55; i++) await endUserSessions(deps, 'paged@example.com', { kind: 'cli', id: `page-${i}`, label: null, address: null });
      await operator.get('/dashboard/operator/merchants');
      const first = await operator.get('/dashboard/operator/audit?action=user.end_sessions');
      assert.equal(first.status, 200);
      const actors = (body: string) => [...body.matchAll(/<td>cli (page-\d+)<\/td>/g)].map((m) => m[1]);
      assert.deepEqual(actors(first.body).slice(0, 3), ['page-54', 'page-53', 'page-52']);
      assert.equal(actors(first.body).length, 50);
      assert.doesNotMatch(first.body, /<code>merchant\.fund<\/code>/);
      const older = /<a class="button" href="([^"]+)">Older<\/a>/.exec(first.body)![1]!.replace(/&amp;/g, '&');
      const second = await operator.get(older);
      assert.deepEqual(actors(second.body), ['page-4', 'page-3', 'page-2', 'page-1', 'page-0']);
      const today = new Date(t.clock.nowMs()).toISOString().slice(0, 10);
      const yesterday = new Date(t.clock.nowMs() - 86_400_000).toISOString().slice(0, 10);
      assert.match((await operator.get(`/dashboard/operator/audit?action=merchant.fund&from=${today}&to=${today}`)).body, /<code>merchant\.fund<\/code>/);
      assert.match((await operator.get(`/dashboard/operator/audit?action=merchant.fund&to=${yesterday}`)).body, /No events match these filters/);
      assert.equal((await operator.get('/dashboard/operator/audit?action=drop_table')).status, 400);
      assert.equal((await merchantUser.get('/dashboard/operator/audit')).status, 403);
    });

    it('writes request log lines with the client address and the authenticated merchant', async () => {
      const address = '203.0.113.200';
      // The shop's own key was rotated above; another merchant calls.
      const caller = await t.newMerchant({ name: 'Logged caller' });
      await t.app.inject({ method: 'GET', url: '/api/agent_balance?x=1', headers: { 'api-key': caller.transfer_api_key }, remoteAddress: address });
      const line = t.logLines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request' && l.url === '/api/agent_balance' && l.client_address === address && l.status === 200);
      assert.ok(line, 'no request line with the client address');
      assert.equal(line.merchant_id, caller.merchant_id);
      assert.equal(line.credential_id, caller.transfer_api_key.split('_')[2]);
      await merchantUser.get('/dashboard/overview');
      const panelLine = t.logLines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request' && l.url === '/dashboard/overview' && l.client_address === merchantUser.address);
      assert.equal(panelLine?.merchant_id, shop.merchant_id);
      assert.match(String(panelLine?.user_id), /^usr_/);
    });
  });
}

/** Outcome, target, merchant and detail of an event. */
function pick(e: AuditEventRow): [string, string | null, string | null, string | null] {
  return [e.outcome, e.target, e.merchant_id, e.detail];
}
