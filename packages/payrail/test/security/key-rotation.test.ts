// Card-data key rotation (finding 16; docs/security.md): sealed values,
// fingerprints and PIN hashes record their key; `payrail keys rotate` adds a
// key that seals new data, the worker's re-seal job moves old data to it
// while charges go on, and the old key retires once nothing uses it. Before
// this, the only way to change the key was to change PAYRAIL_CARD_KEY,
// which made every saved card unreadable. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { sealedKeyOf } from '../../src/crypto/card-cipher.ts';
import { cardCipherFor, keyRingFor } from '../../src/crypto/card-key.ts';
import { webhookSecretCipherFor, webhookSecretKeyOf } from '../../src/crypto/webhook-secret.ts';
import { Secret } from '../../src/domain/secret.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { ACTIVATION_DELAY_MS, cardKeysStatus, retireCardKey, rotateCardKey } from '../../src/flows/card-keys/rotation.ts';
import { resealBatch } from '../../src/flows/card-keys/reseal.ts';
import { RING_REFRESH_MS } from '../../src/crypto/key-ring.ts';
import { createMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { checkFingerprint } from '../../src/flows/vault/check-methods.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, chargeBody, nonceFor, postCharge, tokenizeRaw } from '../helpers/payin.ts';
import { newCustomer, saveCardFor } from '../helpers/stored.ts';
import { SEALED_TARGETS } from '../../src/store/card-keys.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';

async function chargeNonce(t: TestApp, merchant: Awaited<ReturnType<TestApp['newMerchant']>>, card: string, amount: number): Promise<void> {
  const response = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant, card), { amount }));
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.json().status, 'Approved', response.body);
}

async function chargeSaved(t: TestApp, merchant: Awaited<ReturnType<TestApp['newMerchant']>>, methodId: number, amount: number, last4: string): Promise<void> {
  const response = await postCharge(t.app, basicOf(merchant), { source: `pm-${methodId}`, amount });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.json().status, 'Approved', response.body);
  assert.equal(response.json().last_4, last4);
}

/** Key ids of every sealed card number in the tables that keep them (empty = erased, left out). */
async function sealedKeyIds(t: TestApp): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  for (const [table, column] of [
    ['payment_methods', 'card_number_enc'],
    ['charges', 'card_number_enc'],
    ['charges', 'ref_card_enc'],
    ['card_tokens', 'card_number_enc'],
  ] as const) {
    const rows = await t.service.db.read((tx) => tx.all<{ v: Uint8Array | null }>(`SELECT ${column} AS v FROM ${table}`));
    const ids = rows.flatMap((row) => (row.v === null ? [] : [sealedKeyOf(Buffer.from(row.v))?.keyId ?? -1])).filter((id) => id !== -1);
    found.set(`${table}.${column}`, [...new Set(ids)].sort());
  }
  return found;
}

async function resealAll(t: TestApp, batchRows = 3): Promise<number> {
  let rounds = 0;
  while (!(await resealBatch(t.service, batchRows)).finished) rounds++;
  return rounds;
}

for (const kind of STORE_KINDS) {
  describe(`card-data key rotation (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('finding 16: saved cards and nonce charges keep working while old data is re-sealed under a new key, and after the old key is retired', async () => {
      const merchant = await t.newMerchant({ fundCents: 10_000_000 });
      const customer = await newCustomer(t, merchant);
      const before = [await saveCardFor(t, merchant, customer.id, VISA)];
      for (let i = 0; i < 6; i++) await chargeSaved(t, merchant, before[0]!.id, 1 + i, '1111');
      for (let i = 0; i < 4; i++) await chargeNonce(t, merchant, MASTERCARD, 2 + i);
      assert.equal(cardCipherFor(t.service.config).sealingKeyId, 1, 'an installation that never rotated seals under key 1');
      // A webhook endpoint's signing secret is sealed under the card-data keys too.
      const secretBefore = webhookSecretCipherFor(t.service.config).seal(new Secret('whsec_rotation'), 'we_rotation');
      await t.service.db.write((tx) =>
        tx.run(
          "INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, secret_enc, created_at_ms, updated_at_ms) VALUES ('we_rotation', ?, 'https://example.com/hook', '', ?, 0, 0)",
          [merchant.merchant_id, secretBefore],
        ),
      );

      const rotated = await rotateCardKey(t.service, { activateNow: true });
      assert.equal(rotated.key_id, 2);
      assert.equal(cardCipherFor(t.service.config).sealingKeyId, 2);
      await assert.rejects(retireCardKey(t.service, 2), /seals new data/);

      // Load: saved-card and nonce charges, and cards saved, interleaved with the re-seal job's batches.
      const other = await newCustomer(t, merchant, { identifier: 'Grace Hopper' });
      const load = (async () => {
        const saved = await saveCardFor(t, merchant, other.id, MASTERCARD);
        for (let i = 0; i < 8; i++) {
          await chargeSaved(t, merchant, before[0]!.id, 10 + i, '1111');
          await chargeSaved(t, merchant, saved.id, 20 + i, '4444');
          await chargeNonce(t, merchant, VISA, 30 + i);
        }
        return saved;
      })();
      const reseal = (async () => {
        let rounds = 0;
        while (!(await resealBatch(t.service, 2)).finished) rounds++;
        return rounds;
      })();
      const [saved, rounds] = await Promise.all([load, reseal]);
      assert.ok(rounds > 1, `the job ran in several bounded batches (${rounds})`);
      await resealAll(t);
      for (const [column, ids] of await sealedKeyIds(t))
        assert.ok(
          ids.every((id) => id === 2),
          `${column}: ${ids.join(',')}`,
        );
      const secretRow = await t.service.db.read((tx) => tx.get<{ v: Uint8Array }>("SELECT secret_enc AS v FROM webhook_endpoints WHERE id = 'we_rotation'"));
      assert.equal(webhookSecretKeyOf(Buffer.from(secretRow!.v)), 2);

      // Retirement waits until every process has had time to stop sealing under the old key.
      await assert.rejects(retireCardKey(t.service, 1), /too recently/);
      t.clock.advance(RING_REFRESH_MS + 1000);
      const status = await cardKeysStatus(t.service);
      const key1 = status.keys.find((key) => key.id === 1)!;
      assert.equal(key1.use.total - key1.use.pin_hashes, 0, JSON.stringify(key1.use));
      const retired = await retireCardKey(t.service, 1, { forcePins: true });
      assert.equal(retired.key_id, 1);
      assert.deepEqual(keyRingFor(t.service.config).ids(), [2]);

      assert.equal(webhookSecretCipherFor(t.service.config).open(Buffer.from(secretRow!.v), 'we_rotation').reveal(), 'whsec_rotation');
      await chargeSaved(t, merchant, before[0]!.id, 40, '1111');
      await chargeSaved(t, merchant, saved.id, 41, '4444');
      await chargeNonce(t, merchant, MASTERCARD, 42);
      const later = await newCustomer(t, merchant, { identifier: 'Katherine Johnson' });
      const third = await saveCardFor(t, merchant, later.id, VISA);
      await chargeSaved(t, merchant, third.id, 43, '1111');
      const after = await cardKeysStatus(t.service);
      assert.deepEqual(
        after.keys.map((key) => [key.id, key.state]),
        [
          [1, 'retired'],
          [2, 'active'],
        ],
      );
      const wrapped = await t.service.db.read((tx) => tx.all<{ id: number; wrapped: string | null }>('SELECT id, wrapped FROM card_data_keys ORDER BY id'));
      assert.equal(wrapped[1]!.wrapped?.startsWith('local:v1:'), true, 'key 2 is stored wrapped, never in the clear');
    });

    it('finding 16: the same card saved again after a rotation is still found as the same card', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const first = await saveCardFor(t, merchant, customer.id, VISA);
      await rotateCardKey(t.service, { activateNow: true });
      await resealAll(t);
      const fingerprints = await t.service.db.read((tx) => tx.all<{ fingerprint: string }>('SELECT fingerprint FROM payment_methods WHERE pk = ?', [first.id]));
      assert.match(fingerprints[0]!.fingerprint, /^k[0-9]+\$[0-9a-f]{64}$/, 'the fingerprint was made again under the new key');
      const again = await t.app.inject({
        method: 'POST',
        url: `/api/v2/customers/${customer.id}/payment-methods`,
        headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
        payload: JSON.stringify({ source: await nonceFor(t.app, merchant, VISA), expiry_month: 12, expiry_year: 2035 }),
      });
      assert.equal(again.statusCode, 409, again.body);
    });

    it('finding 16: a saved check keeps its bank account and is still found as the same account after a rotation', async () => {
      const merchant = await t.newMerchant();
      const customer = await newCustomer(t, merchant);
      const body = { name: 'Ada Lovelace', routing_number: '021000021', account_number: '000123456789', account_type: 'checking' };
      const saveCheck = () =>
        t.app.inject({
          method: 'POST',
          url: `/api/v2/customers/${customer.id}/payment-methods`,
          headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      const first = await saveCheck();
      assert.equal(first.statusCode, 201, first.body);
      const rotated = await rotateCardKey(t.service, { activateNow: true });
      await resealAll(t);
      const row = await t.service.db.read((tx) =>
        tx.get<{ fingerprint: string; v: Uint8Array }>('SELECT fingerprint, card_number_enc AS v FROM payment_methods WHERE pk = ?', [first.json().id]),
      );
      assert.equal(sealedKeyOf(Buffer.from(row!.v))?.keyId, rotated.key_id);
      assert.equal(
        row!.fingerprint,
        checkFingerprint(cardCipherFor(t.service.config), merchant.merchant_id, body.routing_number, new Secret(body.account_number)),
      );
      const again = await saveCheck();
      assert.equal(again.statusCode, 409, again.body);
    });

    it('finding 16: PIN hashes under the old key are made again at the next right PIN; retirement waits for the others or drops them on request', async () => {
      const used = await t.newMerchant();
      const idle = await t.newMerchant();
      const pinKeyOf = async (apiKey: string) => {
        const id = apiKey.split('_')[2]!;
        const row = await t.service.db.read((tx) => tx.get<{ pin_hash: string | null }>('SELECT pin_hash FROM credentials WHERE id = ?', [id]));
        return row?.pin_hash ?? null;
      };
      const sealing = cardCipherFor(t.service.config).sealingKeyId;
      const rotated = await rotateCardKey(t.service, { activateNow: true });
      await resealAll(t);
      // Nonce data is never re-sealed (its key needs the nonce): it expires within 15 minutes and is deleted.
      t.clock.advance(16 * 60_000);
      await t.worker.drain();
      await chargeNonce(t, used, VISA, 1);
      assert.match((await pinKeyOf(used.source.api_key))!, new RegExp(`^hmac256k${rotated.key_id}\\$`));
      await assert.rejects(retireCardKey(t.service, sealing), /still in use: [0-9]+ PIN hashes/);
      const retired = await retireCardKey(t.service, sealing, { forcePins: true });
      const idleId = idle.source.api_key.split('_')[2]!;
      assert.ok(retired.pins_dropped.includes(idleId));
      assert.equal(await pinKeyOf(idle.source.api_key), null);
      // The dropped PIN no longer authenticates (its source needs a new one); the rehashed one does.
      const refused = await postCharge(t.app, basicOf(idle), chargeBody(await nonceFor(t.app, idle, VISA), { amount: 1 }));
      assert.equal(refused.statusCode, 401);
      await chargeNonce(t, used, VISA, 2);
    });

    it('finding 16: a process that started before a rotation loads the new key before it seals with it', async () => {
      const clock = new ManualClock(t.clock.nowMs());
      const env = { PAYRAIL_DATA_DIR: t.store.dataDir, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off', ...t.store.env };
      const other = await createService(loadConfig(env), { db: t.store.db, clock, log: createLogger('silent') });
      const otherApp = await buildApp(other);
      try {
        const merchant = await createMerchant(issuingDeps(other), { name: 'Two processes' });
        await t.service.db.write((tx) => tx.run('UPDATE accounts SET balance_cents = 1000000 WHERE merchant_id = ?', [merchant.merchant_id]));
        const before = cardCipherFor(other.config).sealingKeyId;
        const rotated = await rotateCardKey(t.service);
        assert.equal(cardCipherFor(t.service.config).sealingKeyId, before, 'the new key waits for its activation');
        // The other process refreshes its ring within RING_REFRESH_MS: it holds the key before the key seals anything.
        clock.advance(RING_REFRESH_MS);
        cardCipherFor(other.config).sealingKeyId;
        for (let i = 0; i < 100 && !keyRingFor(other.config).has(rotated.key_id); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.ok(keyRingFor(other.config).has(rotated.key_id));
        t.clock.set(rotated.active_from_ms);
        clock.set(rotated.active_from_ms);
        const customer = await newCustomer(t, merchant);
        const method = await saveCardFor(t, merchant, customer.id, VISA);
        const sealed = await t.service.db.read((tx) => tx.get<{ v: Uint8Array }>('SELECT card_number_enc AS v FROM payment_methods WHERE pk = ?', [method.id]));
        assert.equal(sealedKeyOf(Buffer.from(sealed!.v))?.keyId, rotated.key_id);
        const response = await otherApp.inject({
          method: 'POST',
          url: '/api/v2/transactions/charge',
          headers: { authorization: basicOf(merchant), 'content-type': 'application/json' },
          payload: JSON.stringify({ source: `pm-${method.id}`, amount: 5 }),
        });
        assert.equal(response.statusCode, 200, response.body);
      } finally {
        await otherApp.close();
      }
    });

    it('finding 16: a process that has not loaded a key another one activated at once loads it: one retryable 503 in the API envelope, then the charge', async () => {
      const env = { PAYRAIL_DATA_DIR: t.store.dataDir, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off', ...t.store.env };
      const other = await createService(loadConfig(env), { db: t.store.db, clock: t.clock, log: createLogger('silent') });
      const otherApp = await buildApp(other);
      try {
        const merchant = await t.newMerchant({ fundCents: 100_000 });
        const rotated = await rotateCardKey(t.service, { activateNow: true });
        assert.equal(keyRingFor(other.config).has(rotated.key_id), false);
        const customer = await newCustomer(t, merchant);
        const method = await saveCardFor(t, merchant, customer.id, VISA);
        const first = await postCharge(otherApp, basicOf(merchant), { source: `pm-${method.id}`, amount: 6 });
        assert.equal(first.statusCode, 503, first.body);
        assert.match(first.body, /card-data key/);
        for (let i = 0; i < 100 && !keyRingFor(other.config).has(rotated.key_id); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        const second = await postCharge(otherApp, basicOf(merchant), { source: `pm-${method.id}`, amount: 6 });
        assert.equal(second.statusCode, 200, second.body);
      } finally {
        await otherApp.close();
      }
    });

    it('finding 1: a process whose key ring cannot be reloaded for longer than the activation delay stops sealing (retryable 503) until a reload succeeds', async () => {
      const clock = new ManualClock(t.clock.nowMs());
      const env = { PAYRAIL_DATA_DIR: t.store.dataDir, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off', ...t.store.env };
      const other = await createService(loadConfig(env), { db: t.store.db, clock, log: createLogger('silent') });
      const otherApp = await buildApp(other);
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      // Tokenizing a card seals it (the nonce's card data) in that process.
      const save = () =>
        tokenizeRaw(otherApp, merchant.source.tokenization_token, { card_number: MASTERCARD, expiry_month: 12, expiry_year: 2039, cvv2: '123' });
      // A key this process cannot unwrap (wrapped by a provider it has not configured): every reload of its ring fails.
      const id = Math.max(...keyRingFor(t.service.config).ids()) + 1000;
      await t.store.db.write((tx) =>
        tx.run(
          "INSERT INTO card_data_keys (id, provider, wrapped, state, created_at_ms, active_from_ms) VALUES (?, 'vault', 'vault:v1:AAAA', 'active', ?, ?)",
          [id, clock.nowMs(), clock.nowMs() + 86_400_000],
        ),
      );
      try {
        clock.advance(ACTIVATION_DELAY_MS + 1);
        const refused = await save();
        assert.equal(refused.statusCode, 503, refused.body);
        assert.match(refused.body, /retry/);
      } finally {
        await t.store.db.write((tx) => tx.run('DELETE FROM card_data_keys WHERE id = ?', [id]));
      }
      try {
        clock.advance(RING_REFRESH_MS);
        const saved = await save();
        assert.equal(saved.statusCode, 200, saved.body);
      } finally {
        await otherApp.close();
      }
    });

    it('finding 16: every column of sealed data in the schema is one the re-seal job and keys status know', async () => {
      const columns =
        kind === 'sqlite'
          ? await t.service.db.read((tx) =>
              tx.all<{ name: string }>(
                "SELECT m.name || '.' || c.name AS name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND upper(c.type) = 'BLOB'",
              ),
            )
          : await t.service.db.read((tx) =>
              tx.all<{ name: string }>(
                "SELECT table_name || '.' || column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND data_type = 'bytea'",
              ),
            );
      assert.deepEqual(columns.map((c) => c.name).sort(), SEALED_TARGETS.map((target) => target.name).sort());
    });

    it('finding 2: a sealed value the re-seal job cannot open is skipped and left under its key; the rest is re-sealed and that key cannot retire', async () => {
      const merchant = await t.newMerchant();
      const saved: { id: number }[] = [];
      for (const name of ['Ada One', 'Ada Two', 'Ada Three'])
        saved.push(await saveCardFor(t, merchant, (await newCustomer(t, merchant, { identifier: name })).id, VISA));
      const old = cardCipherFor(t.service.config).sealingKeyId;
      // The middle card's sealed number is damaged: its header still names the old key, but it no longer opens.
      await t.service.db.write(async (tx) => {
        const row = await tx.get<{ v: Uint8Array }>('SELECT card_number_enc AS v FROM payment_methods WHERE pk = ?', [saved[1]!.id]);
        const damaged = Buffer.from(row!.v);
        damaged[damaged.length - 1]! ^= 0xff;
        await tx.run('UPDATE payment_methods SET card_number_enc = ? WHERE pk = ?', [damaged, saved[1]!.id]);
      });
      const rotated = await rotateCardKey(t.service, { activateNow: true });
      await resealAll(t, 1);
      const keyOf = async (pk: number) => {
        const row = await t.service.db.read((tx) => tx.get<{ v: Uint8Array }>('SELECT card_number_enc AS v FROM payment_methods WHERE pk = ?', [pk]));
        return sealedKeyOf(Buffer.from(row!.v))?.keyId;
      };
      assert.equal(await keyOf(saved[0]!.id), rotated.key_id);
      assert.equal(await keyOf(saved[1]!.id), old, 'the unreadable value is left as it was');
      assert.equal(await keyOf(saved[2]!.id), rotated.key_id, 'the values after it are re-sealed');
      t.clock.advance(RING_REFRESH_MS + 1000);
      const status = await cardKeysStatus(t.service);
      const oldUse = status.keys.find((key) => key.id === old)!.use;
      assert.equal(oldUse.sealed['payment_methods.card_number_enc'], 1, JSON.stringify(oldUse));
      await assert.rejects(retireCardKey(t.service, old, { forcePins: true }), /still in use/);
      await t.service.db.write((tx) => tx.run('DELETE FROM payment_methods WHERE pk = ?', [saved[1]!.id]));
    });

    it('finding 16: keys status counts what each key protects; a card number sealed under a retired key is refused, never misread', async () => {
      const status = await cardKeysStatus(t.service);
      assert.ok(status.keys.length >= 2);
      assert.ok(status.keys.some((key) => key.sealing));
      const cipher = cardCipherFor(t.service.config);
      const forged = Buffer.from(cipher.seal({ reveal: () => VISA } as never, 'card_number', 'src_x'));
      forged.writeUInt32BE(1, 1);
      forged[0] = 3;
      assert.throws(() => cipher.open(forged, 'card_number', 'src_x'), /key 1|failed authentication/);
    });
  });
}
