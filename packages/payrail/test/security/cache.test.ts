// Authentication keeps what it read (store/security-cache.ts) only while the
// store's security version stands: a credential revoked or rotated, or an
// address locked, by this process or by another one sharing the store, is
// refused by the next request. "Another process" is a second store handle
// on the same SQLite file or PostgreSQL schema, as the CLI or a second
// server would open. On PostgreSQL the news travels by notification, so the
// test waits for it, but for less than the entries' time to live, so that
// only the notification can make the answer change; on SQLite it is seen at
// once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issuingDeps, revokeSource, rotateTransferKey } from '../../src/flows/merchants/merchants.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { countAddressFailure } from '../../src/store/auth-address-failures.ts';
import type { Db } from '../../src/store/db.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { ENTRY_TTL_MS } from '../../src/store/security-cache.ts';
import { addressKey } from '../../src/domain/client-address.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** How long a PostgreSQL notification may take to arrive before the test fails. */
const NOTIFICATION_WAIT_MS = ENTRY_TTL_MS / 2;

for (const kind of STORE_KINDS) {
  describe(`authentication cache (${kind})`, () => {
    let t: TestApp;
    let other: Db;
    before(async () => {
      t = await createTestApp(kind);
      other = await openMigratedDb({ databaseUrl: t.store.env.DATABASE_URL ?? null, dataDir: t.store.dataDir, pgPoolSize: 2 });
    });
    after(async () => {
      await other.close();
      await t.close();
    });

    const balance = (key: string, address = '127.0.0.1') =>
      t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: { 'api-key': key }, remoteAddress: address });

    /** The status of the next answer; on PostgreSQL, the first that is not `stale` within the wait. */
    async function statusAfterChange(send: () => Promise<{ statusCode: number }>, stale: number): Promise<number> {
      const deadlineMs = Date.now() + (kind === 'postgres' ? NOTIFICATION_WAIT_MS : 0);
      for (;;) {
        const { statusCode } = await send();
        if (statusCode !== stale || Date.now() >= deadlineMs) return statusCode;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    async function warmedMerchant(): Promise<CreatedMerchant> {
      const merchant = await t.newMerchant({ fundCents: 100 });
      // Twice: the second answer comes from what the first kept.
      for (let i = 0; i < 2; i++) assert.equal((await balance(merchant.transfer_api_key)).statusCode, 200);
      return merchant;
    }

    it('refuses a transfer key rotated by this process at the next request', async () => {
      const merchant = await warmedMerchant();
      const rotated = await rotateTransferKey(issuingDeps(t.service), { merchantId: merchant.merchant_id });
      assert.equal((await balance(merchant.transfer_api_key)).statusCode, 401);
      assert.equal((await balance(rotated.transfer_api_key)).statusCode, 200);
    });

    it('refuses a transfer key rotated by another process', async () => {
      const merchant = await warmedMerchant();
      const deps = { ...issuingDeps(t.service), db: other };
      const rotated = await rotateTransferKey(deps, { merchantId: merchant.merchant_id });
      assert.equal(await statusAfterChange(() => balance(merchant.transfer_api_key), 200), 401);
      assert.equal((await balance(rotated.transfer_api_key)).statusCode, 200);
    });

    it('refuses the credentials of a source revoked by another process', async () => {
      const merchant = await t.newMerchant({ fundCents: 100 });
      const basic = `Basic ${Buffer.from(`${merchant.source.api_key}:${merchant.source.pin}`).toString('base64')}`;
      const list = () => t.app.inject({ method: 'GET', url: '/api/v2/transactions', headers: { authorization: basic } });
      for (let i = 0; i < 2; i++) assert.equal((await list()).statusCode, 200);
      await revokeSource({ ...issuingDeps(t.service), db: other }, { merchantId: merchant.merchant_id, sourceId: merchant.source.id });
      assert.equal(await statusAfterChange(list, 200), 401);
    });

    it('refuses an address locked by another process', async () => {
      const merchant = await warmedMerchant();
      const address = '198.51.100.7';
      assert.equal((await balance(merchant.transfer_api_key, address)).statusCode, 200);
      const nowMs = t.clock.nowMs();
      await other.write((tx) =>
        countAddressFailure(tx, { address: addressKey(address), nowMs, windowStartMinMs: nowMs - 60_000, failuresMax: 1, lockedUntilMs: nowMs + 60_000 }),
      );
      assert.equal(await statusAfterChange(() => balance(merchant.transfer_api_key, address), 200), 429);
      // Other addresses are not affected.
      assert.equal((await balance(merchant.transfer_api_key)).statusCode, 200);
    });
  });
}
