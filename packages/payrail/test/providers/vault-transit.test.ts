// The Vault transit key provider (finding 16; docs/security.md): data keys
// wrapped and unwrapped by a transit key that never leaves Vault, checked
// against the stand-in written from Vault's API documentation
// (test/providers/vault/stand-in.ts) always, and the same contract against
// a real Vault when VAULT_ADDR and VAULT_TOKEN are set (a dev server will
// do: `vault server -dev`; the transit engine is enabled if it is not).
// Then a whole service whose card-data keys Vault wraps, on both stores.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { Secret } from '../../src/domain/secret.ts';
import { cardKeysStatus, retireCardKey, rewrapCardKeys, rotateCardKey } from '../../src/flows/card-keys/rotation.ts';
import { resealBatch } from '../../src/flows/card-keys/reseal.ts';
import { RING_REFRESH_MS } from '../../src/crypto/key-ring.ts';
import type { KeyProvider } from '../../src/providers/card-keys/key-provider.ts';
import { vaultKeyVersionOf, vaultTransitKeyProvider, type VaultTransitSettings } from '../../src/providers/card-keys/vault-transit.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, postCharge } from '../helpers/payin.ts';
import { newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { startVaultStandIn, type VaultStandIn } from './vault/stand-in.ts';

function settingsFor(address: string, token: string, keyName: string): VaultTransitSettings {
  return { address, token: new Secret(token), keyName, mount: 'transit', namespace: null, timeoutMs: 5000 };
}

/** What the provider relies on in Vault's transit API, for any Vault: the stand-in or a real one. */
function contract(name: string, setup: () => Promise<{ provider: KeyProvider; wrongToken: KeyProvider; rotate?: () => Promise<void> }>): void {
  describe(name, () => {
    let provider: KeyProvider;
    let wrongToken: KeyProvider;
    let rotate: (() => Promise<void>) | undefined;
    before(async () => {
      ({ provider, wrongToken, rotate } = await setup());
    });

    it('wraps a data key as a vault:v<n>: ciphertext and unwraps it for the same key id only', async () => {
      const key = crypto.randomBytes(32);
      const wrapped = await provider.wrap(key, { keyId: 7 });
      assert.match(wrapped, /^vault:v[0-9]+:/);
      assert.equal(wrapped.includes(key.toString('base64')), false);
      assert.deepEqual(await provider.unwrap(wrapped, { keyId: 7 }), key);
      await assert.rejects(provider.unwrap(wrapped, { keyId: 8 }), /copied from another key/);
    });

    it('is refused without the right token, and says so without the token', async () => {
      const error = await wrongToken.wrap(crypto.randomBytes(32), { keyId: 1 }).then(
        () => null,
        (e: Error) => e,
      );
      assert.ok(error !== null);
      assert.match(error.message, /answered 403/);
      assert.equal(error.message.includes('hvs.'), false);
    });

    it('refuses a ciphertext that is not Vault transit', async () => {
      await assert.rejects(provider.unwrap('local:v1:AAAA', { keyId: 1 }), /not wrapped by Vault transit/);
      await assert.rejects(provider.unwrap('vault:v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { keyId: 1 }), /Vault transit decrypt answered 400/);
    });

    it('rewraps under the newest transit key version after the transit key rotates; the older ciphertext still unwraps', async (t) => {
      if (rotate === undefined) return t.skip('this Vault token may not rotate keys');
      const key = crypto.randomBytes(32);
      const wrapped = await provider.wrap(key, { keyId: 3 });
      await rotate();
      const rewrapped = await provider.rewrap(wrapped, { keyId: 3 });
      assert.ok(vaultKeyVersionOf(rewrapped)! > vaultKeyVersionOf(wrapped)!);
      assert.deepEqual(await provider.unwrap(rewrapped, { keyId: 3 }), key);
      assert.deepEqual(await provider.unwrap(wrapped, { keyId: 3 }), key);
    });
  });
}

let standIn: VaultStandIn;
contract('Vault transit key provider (stand-in)', async () => {
  standIn = await startVaultStandIn();
  const keyName = 'payrail-test';
  return {
    provider: vaultTransitKeyProvider(settingsFor(standIn.address, standIn.token, keyName)),
    wrongToken: vaultTransitKeyProvider(settingsFor(standIn.address, 'hvs.wrong', keyName)),
    rotate: async () => standIn.rotate(keyName),
  };
});
after(async () => standIn?.close());

const realAddress = process.env.VAULT_ADDR;
const realToken = process.env.VAULT_TOKEN;
describe('Vault transit key provider (real Vault: VAULT_ADDR and VAULT_TOKEN)', {
  skip: realAddress === undefined || realToken === undefined ? 'VAULT_ADDR and VAULT_TOKEN are not set' : false,
}, () => {
  contract('contract', async () => {
    const address = realAddress!;
    const token = realToken!;
    const keyName = `payrail-test-${crypto.randomBytes(4).toString('hex')}`;
    const post = (path: string, body: unknown) =>
      fetch(`${address.replace(/\/+$/, '')}/v1/${path}`, {
        method: 'POST',
        headers: { 'x-vault-token': token, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // Enabling transit answers 400 when it is enabled already: either way it is there afterwards.
    await post('sys/mounts/transit', { type: 'transit' });
    await post(`transit/keys/${keyName}`, {});
    return {
      provider: vaultTransitKeyProvider(settingsFor(address, token, keyName)),
      wrongToken: vaultTransitKeyProvider(settingsFor(address, 'hvs.not-a-token', keyName)),
      rotate: async () => {
        const response = await post(`transit/keys/${keyName}/rotate`, {});
        assert.ok(response.ok, `rotating the transit key answered ${response.status}`);
      },
    };
  });
});

function vaultEnv(vault: VaultStandIn): Record<string, string> {
  return { PAYRAIL_KEY_PROVIDER: 'vault', PAYRAIL_VAULT_ADDR: vault.address, PAYRAIL_VAULT_TOKEN: vault.token, PAYRAIL_VAULT_TRANSIT_KEY: 'payrail-cards' };
}

for (const kind of STORE_KINDS) {
  describe(`card-data keys wrapped by Vault transit (${kind})`, () => {
    let vault: VaultStandIn;
    let t: TestApp;
    before(async () => {
      vault = await startVaultStandIn();
      t = await createTestApp(kind, {
        env: vaultEnv(vault),
      });
    });
    after(async () => {
      await t.close();
      await vault.close();
    });

    it('finding 16: a rotated key is wrapped by Vault, opens saved cards, is rewrapped after the transit key rotates, and the old key retires', async () => {
      const merchant = await t.newMerchant({ fundCents: 1_000_000 });
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      const rotated = await rotateCardKey(t.service, { activateNow: true });
      assert.equal(rotated.provider, 'vault');
      assert.ok(vault.calls.includes('POST /v1/transit/encrypt/payrail-cards'));
      while (!(await resealBatch(t.service, 5)).finished);
      const charged = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 3 });
      assert.equal(charged.statusCode, 200, charged.body);

      vault.rotate('payrail-cards');
      assert.deepEqual((await rewrapCardKeys(t.service)).rewrapped, [rotated.key_id]);
      vault.setMinDecryptionVersion('payrail-cards', 2);
      const status = await cardKeysStatus(t.service);
      assert.equal(status.keys.find((key) => key.id === rotated.key_id)?.provider_key_version, 2);

      t.clock.advance(RING_REFRESH_MS + 1000);
      await retireCardKey(t.service, 1, { forcePins: true });
      const wrapped = await t.service.db.read((tx) =>
        tx.all<{ id: number; provider: string; wrapped: string | null }>('SELECT id, provider, wrapped FROM card_data_keys ORDER BY id'),
      );
      assert.deepEqual(
        wrapped.map((row) => [Number(row.id), row.provider, row.wrapped === null ? null : row.wrapped.slice(0, 9)]),
        [
          [1, 'configured', null],
          [2, 'vault', 'vault:v2:'],
        ],
      );
      // A process starting now unwraps key 2 through Vault (only its v2 ciphertext decrypts any more) and charges the saved card.
      const decrypts = vault.calls.filter((call) => call.includes('/decrypt/')).length;
      const config = loadConfig({ ...t.store.env, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off', ...vaultEnv(vault) });
      const other = await createService(config, { db: t.store.db, clock: t.clock, log: createLogger('silent') });
      const otherApp = await buildApp(other);
      try {
        assert.equal(vault.calls.filter((call) => call.includes('/decrypt/')).length, decrypts + 1);
        assert.equal(cardCipherFor(other.config).sealingKeyId, rotated.key_id);
        const later = await postCharge(otherApp, basicOf(merchant), { source: `pm-${method.id}`, amount: 4 });
        assert.equal(later.statusCode, 200, later.body);
      } finally {
        await otherApp.close();
      }
    });
  });
}
