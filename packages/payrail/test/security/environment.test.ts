// Credentials and stores belong to one environment (issue 13 finding 3,
// docs/api-decisions.md section 1). The attack: take a sandbox key, swap its
// `sbx_` prefix for `live_`, and call production with it. Each credential
// now records its environment and its stored hash covers the whole key, so
// the swapped key is no key; and a store records its environment at first
// start, so a production process refuses a sandbox store (and the other way
// round) before serving anything. Rows issued before this still work in
// their own environment and get the current hashes on their next success.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { pinKeyFor } from '../../src/crypto/card-key.ts';
import { hashPin } from '../../src/domain/credentials.ts';
import { AUTH_FAILED_MESSAGES } from '../../src/flows/access/authenticate.ts';
import { claimStoreEnvironment, StoreEnvironmentError } from '../../src/flows/operations/store-environment.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, basicOf, getTransaction, refusalOfUnknownDialect } from '../helpers/payin.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const RANDOM_CARD_KEY = crypto.randomBytes(32).toString('base64');

/** A production configuration that passes every start check, on the store of `env`. */
function productionEnv(env: Record<string, string>): Record<string, string> {
  return {
    ...env,
    PAYRAIL_ENV: 'production',
    PAYRAIL_TRUST_PROXY_TLS: '1',
    PAYRAIL_CARD_KEY: RANDOM_CARD_KEY,
    PAYRAIL_PUBLIC_URL: 'https://pay.example.com',
    // Never loaded: the store is refused first.
    PAYRAIL_CARD_PROCESSOR: './connectors/card.js',
    PAYRAIL_PAYOUT_NETWORK: './connectors/payout.js',
    PAYRAIL_KYC_PROVIDER: './connectors/kyc.js',
    PAYRAIL_FX_PROVIDER: './connectors/fx.js',
    LOG_LEVEL: 'silent',
  };
}

function swapToLive(key: string): string {
  return key.replace(/^sbx_/, 'live_');
}

for (const kind of STORE_KINDS) {
  describe(`environments of credentials and stores (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    /** A production application on the sandbox store, as if the store's own check were bypassed. */
    async function productionApp() {
      const service = await createService({ ...t.service.config, environment: 'production' }, { db: t.store.db, clock: t.clock, log: createLogger('silent') });
      return buildApp(service);
    }

    it('refuses a sandbox key with its prefix swapped to live_ in production', async () => {
      const merchant = await t.newMerchant({ fundCents: 100 });
      const production = await productionApp();
      try {
        const transfer = await production.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': swapToLive(merchant.transfer_api_key) } });
        assert.equal(transfer.statusCode, 401, transfer.body);
        assert.deepEqual(transfer.json(), { success: 'false', error: { message: AUTH_FAILED_MESSAGES.transfer, code: 'authentication_error' } });
        const charge = await getTransaction(production, basic(swapToLive(merchant.source.api_key), merchant.source.pin), 100000001);
        assert.equal(charge.statusCode, 401, charge.body);
        assert.deepEqual(charge.json(), refusalOfUnknownDialect('authentication_error', AUTH_FAILED_MESSAGES.payin));
      } finally {
        await production.close();
      }
      // In its own environment the key works.
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } })).statusCode, 200);
    });

    it('accepts credentials stored before this change in their environment, upgrades their hashes, and refuses them swapped', async () => {
      const merchant = await t.newMerchant();
      const transferKeyId = merchant.transfer_api_key.split('_')[2]!;
      const sourceKeyId = merchant.source.api_key.split('_')[2]!;
      const secretOf = (key: string) => key.split('_')[3]!;
      const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
      // The rows as the earlier version wrote them: SHA-256 of the secret only, SHA-256 of id:PIN, no environment.
      await t.service.db.write(async (tx) => {
        await tx.run('UPDATE credentials SET secret_hash = ?, environment = NULL WHERE id = ?', [sha256(secretOf(merchant.transfer_api_key)), transferKeyId]);
        await tx.run('UPDATE credentials SET secret_hash = ?, pin_hash = ?, environment = NULL WHERE id = ?', [
          sha256(secretOf(merchant.source.api_key)),
          sha256(`${sourceKeyId}:${merchant.source.pin}`),
          sourceKeyId,
        ]);
      });
      // The first start of this version on the store gives them its environment.
      await claimStoreEnvironment({ db: t.service.db }, 'sandbox');
      const production = await productionApp();
      try {
        const swapped = await production.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': swapToLive(merchant.transfer_api_key) } });
        assert.equal(swapped.statusCode, 401, swapped.body);
        assert.equal((await getTransaction(production, basic(swapToLive(merchant.source.api_key), merchant.source.pin), 1)).statusCode, 401);
      } finally {
        await production.close();
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': merchant.transfer_api_key } })).statusCode, 200);
      assert.equal((await getTransaction(t.app, basicOf(merchant), 100000001)).statusCode, 404);
      const rows = await t.service.db.read((tx) =>
        tx.all<{ id: string; environment: string; secret_hash: string; pin_hash: string | null }>(
          'SELECT id, environment, secret_hash, pin_hash FROM credentials WHERE id IN (?, ?) ORDER BY id',
          [transferKeyId, sourceKeyId],
        ),
      );
      for (const row of rows) {
        assert.equal(row.environment, 'sandbox');
        assert.match(row.secret_hash, /^sha256key\$[0-9a-f]{64}$/, 'the hash now covers the whole key');
      }
      const source = rows.find((row) => row.id === sourceKeyId)!;
      assert.equal(source.pin_hash, hashPin(pinKeyFor(t.service.config), sourceKeyId, merchant.source.pin), 'the PIN hash is now an HMAC');
    });
  });

  describe(`a store serves one environment (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(async () => {
      await store.dispose();
    });

    it('records the environment at first start; a production process then refuses the sandbox store, and the other way round', async () => {
      const sandbox = await createService(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
      await sandbox.db.close();
      await assert.rejects(createService(loadConfig(productionEnv(store.env))), (error: unknown) => {
        assert.ok(error instanceof StoreEnvironmentError);
        assert.match(error.message, /this store belongs to the sandbox environment and this process is configured for production/);
        return true;
      });

      const other = await createStore(kind);
      try {
        await claimStoreEnvironment({ db: other.db }, 'production');
        await assert.rejects(createService(loadConfig({ ...other.env, LOG_LEVEL: 'silent' })), /this store belongs to the production environment/);
      } finally {
        await other.dispose();
      }
    });
  });
}
