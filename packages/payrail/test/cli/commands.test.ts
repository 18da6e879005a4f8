// The operator's CLI, spawned as a real process against each store.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createService } from '../../src/runtime.ts';
import { createLogger } from '../../src/log.ts';
import type { App } from '../../src/http/app.ts';
import { runCli, runCliJson, storeNamed } from '../helpers/cli.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

interface Created {
  merchant_id: string;
  transfer_api_key: string;
  source: { id: string; api_key: string; pin: string; tokenization_token: string };
}

for (const kind of STORE_KINDS) {
  describe(`payrail CLI (${kind})`, () => {
    let store: TestStore;
    let app: App;
    let env: Record<string, string>;
    let created: Created;
    before(async () => {
      store = await createStore(kind);
      env = store.env;
      const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
      app = await buildApp(await createService(config, { db: store.db, log: createLogger('silent') }));
    });
    after(async () => {
      await app.close();
      await store.dispose();
    });

    const balance = async (key: string) => app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': key } });

    it('migrate reports nothing left to apply', async () => {
      assert.deepEqual(await runCliJson(['migrate'], env), { applied: 0 });
    });

    it('merchant create prints every credential once, in the documented shape', async () => {
      created = await runCliJson<Created>(['merchant', 'create', '--name', 'Acme Ltd'], env);
      assert.deepEqual(Object.keys(created).sort(), ['merchant_id', 'source', 'transfer_api_key']);
      // behaviour.md section 16: the source's wire dialect beside its credentials (spec by default).
      assert.deepEqual(Object.keys(created.source).sort(), ['api_key', 'dialect', 'id', 'pin', 'tokenization_token']);
      assert.equal((created.source as { dialect?: string }).dialect, 'spec');
      assert.match(created.merchant_id, /^mer_[0-9A-Za-z]{16}$/);
      assert.match(created.transfer_api_key, /^sbx_tk_/);
      assert.match(created.source.api_key, /^sbx_sk_/);
      assert.match(created.source.pin, /^[0-9]{8}$/);
      assert.match(created.source.tokenization_token, /^sbx_pt_/);
      const stored = await store.db.read((tx) =>
        tx.all<{ secret_hash: string }>('SELECT secret_hash FROM credentials WHERE merchant_id = ?', [created.merchant_id]),
      );
      for (const row of stored) {
        assert.ok(!created.transfer_api_key.includes(row.secret_hash));
      }
      const dump = JSON.stringify(await store.db.read((tx) => tx.all('SELECT * FROM credentials')));
      assert.ok(!dump.includes(created.transfer_api_key.split('_')[3]!), 'no secret stored in clear');
      assert.ok(!dump.includes(created.source.pin), 'no PIN stored in clear');
    });

    it('merchant fund, overdraft and show move and report money exactly', async () => {
      const funded = await runCliJson<{ balance_cents: number }>(['merchant', 'fund', '--merchant', created.merchant_id, '--amount', '250.00'], env);
      assert.equal(funded.balance_cents, 25_000);
      const overdraft = await runCliJson<{ overdraft_cents: number; available_cents: number }>(
        ['merchant', 'overdraft', '--merchant', created.merchant_id, '--amount', '50'],
        env,
      );
      assert.equal(overdraft.overdraft_cents, 5_000);
      assert.equal(overdraft.available_cents, 30_000);
      const response = await balance(created.transfer_api_key);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true, error: '', balance: { balance: 25_000, overdraft: 5_000 } });
      const shown = await runCliJson<Record<string, unknown>>(['merchant', 'show', '--merchant', created.merchant_id], env);
      assert.equal(shown.balance_cents, 25_000);
      assert.equal(shown.payouts_must_link, false);
      const text = await runCli(['merchant', 'show', '--merchant', created.merchant_id], env);
      assert.equal(text.code, 0);
      assert.match(text.stdout, /balance +250\.00 USD/);
    });

    it('merchant link-required turns the flag on and off', async () => {
      assert.equal(
        (await runCliJson<{ payouts_must_link: boolean }>(['merchant', 'link-required', '--merchant', created.merchant_id, '--on'], env)).payouts_must_link,
        true,
      );
      assert.equal(
        (await runCliJson<{ payouts_must_link: boolean }>(['merchant', 'link-required', '--merchant', created.merchant_id, '--off'], env)).payouts_must_link,
        false,
      );
      const both = await runCli(['merchant', 'link-required', '--merchant', created.merchant_id], env);
      assert.notEqual(both.code, 0);
      assert.match(both.stderr, /--on or --off/);
    });

    it('merchant reference-cards turns the setting on and off, and show tells it', async () => {
      const on = await runCliJson<{ keeps_reference_cards: boolean }>(['merchant', 'reference-cards', '--merchant', created.merchant_id, '--on'], env);
      assert.equal(on.keeps_reference_cards, true);
      assert.match((await runCli(['merchant', 'show', '--merchant', created.merchant_id], env)).stdout, /reference cards +kept 13 months/);
      const off = await runCliJson<{ keeps_reference_cards: boolean }>(['merchant', 'reference-cards', '--merchant', created.merchant_id, '--off'], env);
      assert.equal(off.keeps_reference_cards, false);
    });

    it('refuses bad input with a message on stderr and a non-zero exit, changing nothing', async () => {
      for (const amount of ['-5', '1.234', 'abc', '1e3', '0']) {
        const result = await runCli(['merchant', 'fund', '--merchant', created.merchant_id, '--amount', amount], env);
        assert.notEqual(result.code, 0, `amount ${amount}`);
        assert.match(result.stderr, /amount/);
        assert.equal(result.stdout, '');
      }
      const unknown = await runCli(['--json', 'merchant', 'fund', '--merchant', 'mer_nope', '--amount', '1.00'], env);
      assert.equal(unknown.code, 1);
      assert.deepEqual(JSON.parse(unknown.stderr), { error: { code: 'not_found', message: 'merchant mer_nope not found', store: storeNamed(env) } });
      const missing = await runCli(['merchant', 'fund', '--amount', '1.00'], env);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /--merchant/);
      assert.equal((await runCliJson<{ balance_cents: number }>(['merchant', 'show', '--merchant', created.merchant_id], env)).balance_cents, 25_000);
    });

    it('source create, rotate and revoke issue and retire credentials at once', async () => {
      const source = await runCliJson<Created['source']>(['source', 'create', '--merchant', created.merchant_id, '--name', 'Web shop'], env);
      assert.match(source.id, /^src_/);
      const rotated = await runCliJson<Created['source']>(['source', 'rotate', '--merchant', created.merchant_id, '--source', source.id], env);
      assert.equal(rotated.id, source.id);
      assert.notEqual(rotated.api_key, source.api_key);
      const rows = await store.db.read((tx) =>
        tx.all<{ revoked_at_ms: number | null }>('SELECT revoked_at_ms FROM credentials WHERE source_id = ? ORDER BY created_at_ms', [source.id]),
      );
      assert.equal(rows.filter((r) => r.revoked_at_ms === null).length, 2, 'only the new key and token are live');
      assert.deepEqual(await runCliJson(['source', 'revoke', '--merchant', created.merchant_id, '--source', source.id], env), { id: source.id, revoked: true });
      const live = await store.db.read((tx) => tx.all('SELECT id FROM credentials WHERE source_id = ? AND revoked_at_ms IS NULL', [source.id]));
      assert.equal(live.length, 0);
      const foreign = await runCli(['source', 'revoke', '--merchant', 'mer_other', '--source', created.source.id], env);
      assert.equal(foreign.code, 1);
    });

    it('merchant rotate-key retires the old transfer key immediately', async () => {
      const rotated = await runCliJson<{ transfer_api_key: string }>(['merchant', 'rotate-key', '--merchant', created.merchant_id], env);
      const old = await balance(created.transfer_api_key);
      assert.equal(old.statusCode, 401);
      // One message for every failed authentication (docs/api-decisions.md section 13).
      assert.deepEqual(old.json(), { success: 'false', error: { message: 'invalid or missing API-KEY', code: 'authentication_error' } });
      assert.equal((await balance(rotated.transfer_api_key)).statusCode, 200);
    });

    it('ledger verify passes, and fails loudly when a balance is tampered with', async () => {
      const ok = await runCli(['ledger', 'verify'], env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^ledger OK/);
      await store.db.write((tx) => tx.run('UPDATE accounts SET balance_cents = balance_cents + 7 WHERE id = ?', [`${created.merchant_id}:available`]));
      const bad = await runCli(['--json', 'ledger', 'verify'], env);
      assert.equal(bad.code, 1);
      const report = JSON.parse(bad.stdout) as { ok: boolean; problems: string[] };
      assert.equal(report.ok, false);
      assert.ok(report.problems.some((p) => p.includes(`${created.merchant_id}:available`)));
      await store.db.write((tx) => tx.run('UPDATE accounts SET balance_cents = balance_cents - 7 WHERE id = ?', [`${created.merchant_id}:available`]));
    });
  });
}

describe('payrail in production', () => {
  it('refuses to start with simulators, without TLS and without a card key', async () => {
    const result = await runCli(['serve'], { PAYRAIL_ENV: 'production', PAYRAIL_DATA_DIR: '/nonexistent' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /production needs a real card processor, not the sandbox simulator: set PAYRAIL_CARD_PROCESSOR to authorize-net/);
    assert.match(result.stderr, /production needs TLS/);
    assert.match(result.stderr, /PAYRAIL_CARD_KEY/);
  });

  it('names the variable of every bad value', async () => {
    const result = await runCli(['serve'], { PORT: 'eighty', PAYRAIL_ENV: 'staging', DATABASE_URL: 'mysql://x' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PORT must be an integer/);
    assert.match(result.stderr, /PAYRAIL_ENV must be one of sandbox, production/);
    assert.match(result.stderr, /DATABASE_URL must be a postgres:\/\/ URL/);
  });
});
