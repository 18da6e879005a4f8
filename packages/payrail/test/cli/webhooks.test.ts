// `payrail webhook ...` and `payrail events ...` as an operator runs them
// (docs/api-decisions.md section 11), on the embedded store: endpoints are
// managed, the secret is shown once, and `events tail --forward-to` prints a
// merchant's events as they happen and posts each one signed to a local URL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, fundMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Service } from '../../src/service.ts';
import { BIN, runCli, runCliJson } from '../helpers/cli.ts';
import { createStore, type TestStore, testConfigHome } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';
import { signaturesValid, startReceiver } from '../helpers/webhook-receiver.ts';

describe('payrail webhook and events commands (sqlite)', () => {
  let store: TestStore;
  let service: Service;
  let merchantId: string;
  before(async () => {
    store = await createStore('sqlite');
    service = await createService(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PAYRAIL_SANDBOX_DELAY_MS: '0' }), {
      db: store.db,
      log: createLogger('silent'),
    });
    const merchant = await createMerchant(issuingDeps(service), { name: 'CLI hooks' });
    await fundMerchant(issuingDeps(service), { merchantId: merchant.merchant_id, amountCents: 100_000 });
    merchantId = merchant.merchant_id;
  });
  after(() => store.dispose());

  it('creates, lists, updates, rotates and deletes an endpoint, each audited (finding 8: the CLI); refuses a bad URL with a clear message', async () => {
    const created = await runCliJson<{ id: string; signature: string; events: string[] }>(
      ['webhook', 'create', '--merchant', merchantId, '--url', 'http://localhost:9999/hooks', '--events', 'transfer.created,transfer.failed'],
      store.env,
    );
    assert.match(created.signature, /^whsec_/);
    assert.deepEqual(created.events, ['transfer.created', 'transfer.failed']);
    const listed = await runCliJson<Array<Record<string, unknown>>>(['webhook', 'list', '--merchant', merchantId], store.env);
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.signature, undefined, 'the secret is shown only at creation');
    const disabled = await runCliJson<{ enabled: boolean }>(['webhook', 'update', '--merchant', merchantId, '--endpoint', created.id, '--disable'], store.env);
    assert.equal(disabled.enabled, false);
    const rotated = await runCliJson<{ signature: string }>(['webhook', 'rotate', '--merchant', merchantId, '--endpoint', created.id], store.env);
    assert.notEqual(rotated.signature, created.signature);
    const text = await runCli(['webhook', 'show', '--merchant', merchantId, '--endpoint', created.id], store.env);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /enabled +no/);
    assert.deepEqual(await runCliJson(['webhook', 'delete', '--merchant', merchantId, '--endpoint', created.id], store.env), { id: created.id, deleted: true });
    // finding 8: each change is in the audit trail, made by the command line.
    const events = await store.db.read((tx) =>
      tx.all<{ action: string; actor_kind: string }>('SELECT action, actor_kind FROM audit_events WHERE target = ? ORDER BY id', [created.id]),
    );
    assert.deepEqual(
      events.map((e) => `${e.action} ${e.actor_kind}`),
      ['webhook.endpoint_create cli', 'webhook.endpoint_update cli', 'webhook.secret_rotate cli', 'webhook.endpoint_delete cli'],
    );
    const refused = await runCli(['webhook', 'create', '--merchant', merchantId, '--url', 'ftp://example.com/'], store.env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /url must be an http\(s\) URL/);
  });

  it('events tail prints new events and forwards each one signed; events list and resend find them', async () => {
    const receiver = await startReceiver();
    const secret = 'whsec_tailtailtailtailtailtailtailtail';
    const child = spawn(
      process.execPath,
      [BIN, '--json', 'events', 'tail', '--merchant', merchantId, '--forward-to', receiver.url, '--secret', secret, '--count', '2'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), LOG_LEVEL: 'warn', ...store.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 30_000;
      while (!stderr.includes('tailing events')) {
        assert.ok(Date.now() < deadline && child.exitCode === null, stderr);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // One waiting transfer: transfer.created then transfer.waiting.
      const body = transferBody({ lastFour: '0003' });
      await executeTransfer(service, merchantId, body);
      assert.equal(await exited, 0, stderr);
      const printed = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; type: string; data: { id: string } });
      assert.deepEqual(
        printed.map((e) => [e.type, e.data.id]),
        [
          ['transfer.created', body.id],
          ['transfer.waiting', body.id],
        ],
      );
      assert.equal(receiver.received.length, 2);
      for (const r of receiver.received) assert.ok(signaturesValid(r, secret));
      assert.deepEqual(
        receiver.received.map((r) => r.headers['payrail-event-id']),
        printed.map((e) => e.id),
      );

      const page = await runCliJson<{ data: Array<{ id: string }> }>(['events', 'list', '--merchant', merchantId, '--type', 'transfer.waiting'], store.env);
      assert.deepEqual(
        page.data.map((e) => e.id),
        [printed[1]!.id],
      );
      const shown = await runCliJson<{ id: string; type: string }>(['events', 'show', '--merchant', merchantId, '--event', printed[0]!.id], store.env);
      assert.equal(shown.type, 'transfer.created');
      assert.deepEqual(await runCliJson(['events', 'resend', '--merchant', merchantId, '--event', printed[0]!.id], store.env), {
        id: printed[0]!.id,
        deliveries: 0,
      });
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      await receiver.close();
    }
  });
});
