// The card-data key a process holds must be the key its store recorded
// (docs/security.md, card-data keys). Each key is recorded with a check
// value; a changed PAYRAIL_CARD_KEY or another store's key file refuses to
// start, and a sandbox store opened through another path (a symlink, a
// moved folder, another HOME) is never given a new generated key 1. Both
// stores.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { defaultCardKeyFile } from '../../src/crypto/card-key.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createStore, STORE_KINDS, type TestStore, tempDir, testConfigHome } from '../helpers/stores.ts';

function start(store: TestStore, env: Record<string, string>) {
  const { PAYRAIL_CARD_KEY_FILE: _file, ...rest } = store.env;
  return createService(loadConfig({ ...rest, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off', ...env }), {
    db: store.db,
    log: createLogger('silent'),
  });
}

async function keyChecks(store: TestStore): Promise<Array<string | null>> {
  const rows = await store.db.read((tx) => tx.all<{ key_check: string | null }>('SELECT key_check FROM card_data_keys ORDER BY id'));
  return rows.map((row) => row.key_check);
}

for (const kind of STORE_KINDS) {
  describe(`card-data key check values (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      testConfigHome();
      store = await createStore(kind);
    });
    after(() => store.dispose());

    it('finding 3: a sandbox store opened through a symlinked data directory refuses to start instead of generating a new key 1', async () => {
      const dataDir = store.env.PAYRAIL_DATA_DIR!;
      await start(store, { PAYRAIL_DATA_DIR: dataDir });
      const keyFile = defaultCardKeyFile(dataDir);
      assert.ok(fs.existsSync(keyFile));
      const [check] = await keyChecks(store);
      assert.match(check ?? '', /^[0-9a-f]{32}$/);
      assert.ok(!fs.readFileSync(keyFile, 'utf8').includes(check!), 'the check value is not the key');

      const link = path.join(tempDir('payrail-link-'), 'data-link');
      fs.symlinkSync(dataDir, link);
      await assert.rejects(start(store, { PAYRAIL_DATA_DIR: link }), /already has its card-data keys[\s\S]*PAYRAIL_CARD_KEY_FILE/);
      assert.equal(fs.existsSync(defaultCardKeyFile(link)), false, 'no second key file was generated');

      // Pointed at its key file, the store starts through the symlink too.
      await start(store, { PAYRAIL_DATA_DIR: link, PAYRAIL_CARD_KEY_FILE: keyFile });

      // Another store's key file is refused, naming the file.
      const otherFile = path.join(tempDir('payrail-key-'), 'other.key');
      fs.writeFileSync(otherFile, `${crypto.randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
      await assert.rejects(start(store, { PAYRAIL_DATA_DIR: dataDir, PAYRAIL_CARD_KEY_FILE: otherFile }), (error: Error) => {
        assert.match(error.message, /does not hold card-data key 1 of this store/);
        assert.ok(error.message.includes(otherFile));
        return true;
      });
    });
  });

  describe(`card-data key check values with PAYRAIL_CARD_KEY (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(() => store.dispose());

    it('finding 3: a changed PAYRAIL_CARD_KEY refuses to start; a key recorded before check values gets its check value at its first load', async () => {
      const key = crypto.randomBytes(32).toString('base64');
      await start(store, { PAYRAIL_CARD_KEY: key });
      const recorded = await keyChecks(store);
      // As a store recorded its key before check values existed (migration 033).
      await store.db.write((tx) => tx.run('UPDATE card_data_keys SET key_check = NULL'));
      await start(store, { PAYRAIL_CARD_KEY: key });
      assert.deepEqual(await keyChecks(store), recorded);
      await assert.rejects(
        start(store, { PAYRAIL_CARD_KEY: crypto.randomBytes(32).toString('base64') }),
        /PAYRAIL_CARD_KEY is not card-data key 1 of this store/,
      );
      assert.deepEqual(await keyChecks(store), recorded);
    });
  });
}
