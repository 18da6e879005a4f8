// The installation id (migration 022, store/installation.ts): recorded once
// when a store is created, the same after restarts and for processes that
// open a new store at the same moment, and different for another store, so
// two installations never hand a provider the same key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INSTALLATION_ID_PATTERN, providerKeysOf } from '../../src/domain/provider-keys.ts';
import { readInstallationId } from '../../src/store/installation.ts';
import { openMigratedDb } from '../../src/store/open.ts';
import { randomBase62 } from '../../src/domain/ids.ts';
import { adminQuery, createStore, STORE_KINDS, TEST_DATABASE_URL, tempDir } from '../helpers/stores.ts';

/** Where a new, empty store of `kind` will be, and how to drop it. */
async function emptyStoreConfig(kind: 'sqlite' | 'postgres') {
  if (kind === 'sqlite') return { config: { databaseUrl: null, dataDir: tempDir(), pgPoolSize: 2 }, drop: async () => {} };
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { config: { databaseUrl: url, dataDir: tempDir(), pgPoolSize: 2 }, drop: () => adminQuery(`DROP SCHEMA ${schema} CASCADE`) };
}

for (const kind of STORE_KINDS) {
  describe(`installation id (${kind})`, () => {
    it('is recorded once: processes opening a new store at once agree, and a restart reads the same', async () => {
      const { config, drop } = await emptyStoreConfig(kind);
      try {
        const opened = await Promise.all([1, 2, 3].map(() => openMigratedDb(config)));
        const ids = await Promise.all(opened.map((db) => readInstallationId(db)));
        await Promise.all(opened.map((db) => db.close()));
        assert.match(ids[0]!, INSTALLATION_ID_PATTERN);
        assert.deepEqual(new Set(ids).size, 1, 'one id for every process');
        const restarted = await openMigratedDb(config);
        try {
          assert.equal(await restarted.migrate(), 0);
          assert.equal(await readInstallationId(restarted), ids[0]);
        } finally {
          await restarted.close();
        }
      } finally {
        await drop();
      }
    });

    it('differs between two stores, and so do their keys for the same record', async () => {
      const [a, b] = await Promise.all([createStore(kind), createStore(kind)]);
      try {
        const [idA, idB] = [await readInstallationId(a.db), await readInstallationId(b.db)];
        assert.notEqual(idA, idB);
        const [keysA, keysB] = [providerKeysOf(idA), providerKeysOf(idB)];
        assert.notEqual(keysA.key('charge', 100000001), keysB.key('charge', 100000001));
        assert.equal(keysB.parse(keysA.key('charge', 100000001)), null, "another installation's key names nothing here");
      } finally {
        await Promise.all([a.dispose(), b.dispose()]);
      }
    });
  });
}
