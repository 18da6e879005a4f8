// Idempotency-Key on charge (docs/api-decisions.md section 8): the same key and body replay
// the stored reply and charge nothing; the same key with another body is
// refused; keys are scoped per source and kept 24 hours; concurrent
// same-key requests, in one process or two, charge once. Both stores.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { merchantAccount } from '../../src/domain/ledger.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { getAccount } from '../../src/store/ledger.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import type { Db } from '../../src/store/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BILLING, basicOf, chargeBody, countCharges, nonceFor, postCharge, shapeC } from '../helpers/payin.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const REUSED = shapeC('idempotency_key_reused', 'This Idempotency-Key was used with another request body');
const DAY_MS = 24 * 60 * 60_000;

for (const kind of STORE_KINDS) {
  describe(`Idempotency-Key on charge (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    const available = async (merchantId: string) => (await t.service.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available'))))!.balance_cents;

    it('replays the stored reply for the same key and body, charging nothing more', async () => {
      const merchant = await t.newMerchant();
      const body = chargeBody(await nonceFor(t.app, merchant), { amount: 12 });
      const first = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'order-1' });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().status, 'Approved');
      t.clock.advance(60_000);
      const again = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'order-1' });
      assert.equal(again.statusCode, 200);
      assert.equal(again.body, first.body);
      // Only the replay says it is one.
      assert.deepEqual([first.headers['idempotent-replayed'], again.headers['idempotent-replayed']], [undefined, 'true']);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
      assert.equal(await available(merchant.merchant_id), 1200);
    });

    it('replays a declined reply too', async () => {
      const merchant = await t.newMerchant();
      const body = chargeBody(await nonceFor(t.app, merchant, '4000000000000002'));
      const first = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'declined-1' });
      assert.equal(first.json().status, 'declined');
      const again = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'declined-1' });
      assert.equal(again.statusCode, 200);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
    });

    it('refuses the same key with another body: 400 idempotency_key_reused', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      const first = await postCharge(t.app, basicOf(merchant), chargeBody(nonce, { amount: 12 }), { 'idempotency-key': 'order-2' });
      assert.equal(first.statusCode, 200);
      const other = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 13 }), { 'idempotency-key': 'order-2' });
      assert.equal(other.statusCode, 400);
      assert.deepEqual(other.json(), REUSED);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
    });

    it('replays a retry whose fields come in another order, at every depth, with other whitespace', async () => {
      const merchant = await t.newMerchant();
      const body = chargeBody(await nonceFor(t.app, merchant), { amount: 14 });
      const first = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'order-reordered' });
      assert.equal(first.statusCode, 200, first.body);
      const reordered = Object.fromEntries(
        Object.entries(body)
          .reverse()
          .map(([name, value]) => [name, name === 'billing_info' ? Object.fromEntries(Object.entries(value as object).reverse()) : value]),
      );
      assert.notEqual(JSON.stringify(reordered), JSON.stringify(body));
      const again = await postCharge(t.app, basicOf(merchant), JSON.stringify(reordered, null, 2), { 'idempotency-key': 'order-reordered' });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
      // A value that differs still makes another request.
      const changed = await postCharge(
        t.app,
        basicOf(merchant),
        { ...reordered, billing_info: { ...BILLING, zip: '78702' } },
        { 'idempotency-key': 'order-reordered' },
      );
      assert.equal(changed.statusCode, 400);
      assert.deepEqual(changed.json(), REUSED);
    });

    it('still matches a key reserved before bodies were hashed in canonical form (hashed as sent)', async () => {
      const merchant = await t.newMerchant();
      const body = chargeBody(await nonceFor(t.app, merchant), { amount: 15 });
      const first = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'from-before' });
      assert.equal(first.statusCode, 200, first.body);
      // The key as the earlier version stored it: the SHA-256 of the body exactly as sent.
      const legacyHash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
      const changed = await t.service.db.write((tx) =>
        tx.run('UPDATE idempotency_keys SET request_hash = ? WHERE source_id = ? AND idem_key = ?', [legacyHash, merchant.source.id, 'from-before']),
      );
      assert.equal(changed.changes, 1);
      const retry = await postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'from-before' });
      assert.equal(retry.statusCode, 200, retry.body);
      assert.equal(retry.body, first.body);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      const other = await postCharge(t.app, basicOf(merchant), { ...body, amount: 16 }, { 'idempotency-key': 'from-before' });
      assert.deepEqual(other.json(), REUSED);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
    });

    it('scopes keys per source: another merchant may use the same key', async () => {
      const a = await t.newMerchant();
      const b = await t.newMerchant();
      const ra = await postCharge(t.app, basicOf(a), chargeBody(await nonceFor(t.app, a)), { 'idempotency-key': 'shared-key' });
      const rb = await postCharge(t.app, basicOf(b), chargeBody(await nonceFor(t.app, b)), { 'idempotency-key': 'shared-key' });
      assert.equal(ra.statusCode, 200);
      assert.equal(rb.statusCode, 200);
      assert.notEqual(ra.json().reference_number, rb.json().reference_number);
    });

    it('stores nothing for a refused request: the key stays free', async () => {
      const merchant = await t.newMerchant();
      const refused = await postCharge(t.app, basicOf(merchant), chargeBody('nonce-0123456789abcdefghijABCDEFGHIJ01'), { 'idempotency-key': 'retry-me' });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json(), shapeC('invalid_nonce', 'source is not a valid nonce of this payin source'));
      const ok = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)), { 'idempotency-key': 'retry-me' });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    it('refuses a malformed key', async () => {
      const merchant = await t.newMerchant();
      const nonce = await nonceFor(t.app, merchant);
      for (const key of ['has space', 'x'.repeat(256), 'caf\u00e9']) {
        const response = await postCharge(t.app, basicOf(merchant), chargeBody(nonce), { 'idempotency-key': key });
        assert.equal(response.statusCode, 400, key);
        assert.deepEqual(response.json(), shapeC('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters'));
      }
    });

    it('charges once for concurrent requests with one key, and refuses a concurrent other body', async () => {
      const merchant = await t.newMerchant();
      const body = chargeBody(await nonceFor(t.app, merchant), { amount: 7 });
      const otherBody = chargeBody(await nonceFor(t.app, merchant), { amount: 8 });
      const responses = await Promise.all([
        ...Array.from({ length: 10 }, () => postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'burst' })),
        postCharge(t.app, basicOf(merchant), otherBody, { 'idempotency-key': 'burst' }),
      ]);
      const same = responses.slice(0, 10);
      const other = responses[10]!;
      // The key belongs to whichever body the store took first: sent at once,
      // either may be; the other body is refused, and one charge is made.
      if (other.statusCode === 200) {
        assert.equal(other.json().status, 'Approved');
        for (const r of same) assert.deepEqual([r.statusCode, r.json()], [400, REUSED]);
        assert.equal(await countCharges(t, merchant.merchant_id), 1);
        assert.equal(await available(merchant.merchant_id), 800);
        return;
      }
      for (const r of same) {
        assert.equal(r.statusCode, 200);
        assert.equal(r.body, same[0]!.body);
      }
      assert.equal(same[0]!.json().status, 'Approved');
      // One request made the charge; the nine others got its reply, marked as a replay.
      assert.equal(same.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 9);
      assert.equal(other.statusCode, 400);
      assert.deepEqual(other.json(), REUSED);
      assert.equal(await countCharges(t, merchant.merchant_id), 1);
      assert.equal(await available(merchant.merchant_id), 700);
    });

    it('charges once for same-key requests racing in two server processes on one store', async () => {
      const merchant = await t.newMerchant();
      const secondDb: Db = await openMigratedDb({ databaseUrl: t.store.env.DATABASE_URL ?? null, dataDir: t.store.dataDir, pgPoolSize: 4 });
      const secondService = await createService(t.service.config, { db: secondDb, clock: t.clock, log: createLogger('silent') });
      const secondApp: App = await buildApp(secondService);
      try {
        const body = chargeBody(await nonceFor(t.app, merchant), { amount: 9 });
        const responses = await Promise.all([
          postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'two-processes' }),
          postCharge(secondApp, basicOf(merchant), body, { 'idempotency-key': 'two-processes' }),
          postCharge(t.app, basicOf(merchant), body, { 'idempotency-key': 'two-processes' }),
          postCharge(secondApp, basicOf(merchant), body, { 'idempotency-key': 'two-processes' }),
        ]);
        for (const r of responses) {
          assert.equal(r.statusCode, 200, r.body);
          assert.equal(r.body, responses[0]!.body);
        }
        assert.equal(await countCharges(t, merchant.merchant_id), 1);
        assert.equal(await available(merchant.merchant_id), 900);
      } finally {
        await secondApp.close();
        await secondDb.close();
      }
    });

    it('keeps keys 24 hours: then the worker prunes them and the key is free again', async () => {
      const merchant = await t.newMerchant();
      const first = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)), { 'idempotency-key': 'daily' });
      assert.equal(first.statusCode, 200);
      t.clock.advance(DAY_MS - 1);
      await t.worker.drain();
      const stillKept = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)), { 'idempotency-key': 'daily' });
      assert.deepEqual(stillKept.json(), REUSED);
      t.clock.advance(1);
      await t.worker.drain();
      const keys = await t.service.db.read((tx) => tx.all('SELECT idem_key FROM idempotency_keys WHERE source_id = ?', [merchant.source.id]));
      assert.deepEqual(keys, []);
      const fresh = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)), { 'idempotency-key': 'daily' });
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.notEqual(fresh.json().reference_number, first.json().reference_number);
    });

    it('treats a key older than 24 hours as free even before the worker prunes it', async () => {
      const merchant = await t.newMerchant();
      await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant)), { 'idempotency-key': 'unpruned' });
      t.clock.advance(DAY_MS);
      const fresh = await postCharge(t.app, basicOf(merchant), chargeBody(await nonceFor(t.app, merchant), { amount: 3 }), { 'idempotency-key': 'unpruned' });
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.equal(await countCharges(t, merchant.merchant_id), 2);
    });

    it('leaves a ledger that verifies', async () => {
      assert.deepEqual((await verifyLedger(t.service.db)).problems, []);
    });
  });
}
