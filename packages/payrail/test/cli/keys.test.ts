// `payrail keys rotate|status|retire` (finding 16; docs/security.md), spawned
// as a real process against each store: a key added, its activation and use
// shown, retirement refused while a key seals or is in use, and the old key
// retired once the re-seal job moved everything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

interface Status {
  keys: Array<{ id: number; state: string; sealing: boolean; provider: string; use: { total: number } }>;
  reseal: Record<string, string>;
}

for (const kind of STORE_KINDS) {
  describe(`payrail keys (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(() => store.dispose());

    it('finding 16: rotates, shows each key, refuses to retire the sealing key, and retires the old one once unused', async () => {
      const first = await runCliJson<Status>(['keys', 'status', '--json'], store.env);
      assert.deepEqual(
        first.keys.map((key) => [key.id, key.state, key.sealing, key.provider]),
        [[1, 'active', true, 'configured']],
      );
      const rotated = await runCliJson<{ key_id: number; provider: string }>(['keys', 'rotate', '--now', '--json'], store.env);
      assert.deepEqual([rotated.key_id, rotated.provider], [2, 'local']);
      const text = await runCli(['keys', 'status'], store.env);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /key 2 {2}active, seals new data, wrapped by local/);
      const sealing = await runCli(['keys', 'retire', '2'], store.env);
      assert.equal(sealing.code, 1);
      assert.match(sealing.stderr, /seals new data/);
      const bad = await runCli(['keys', 'retire', 'one'], store.env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /positive whole number/);
    });

    it('finding 7: the text status shows what a retired key still holds, marked unreadable', async () => {
      // A merchant's first source has a PIN hashed under the sealing key; that key is then retired behind its back
      // (as when a process that had not seen the rotation sealed under it after the recount).
      await runCliJson(['merchant', 'create', '--name', 'Retired key Ltd'], store.env);
      const status = await runCliJson<Status>(['keys', 'status', '--json'], store.env);
      const sealingId = status.keys.find((key) => key.sealing)!.id;
      await runCliJson(['keys', 'rotate', '--now', '--json'], store.env);
      await store.db.write((tx) => tx.run("UPDATE card_data_keys SET state = 'retired', wrapped = NULL, retired_at_ms = 1 WHERE id = ?", [sealingId]));
      const text = await runCli(['keys', 'status'], store.env);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`key ${sealingId} {2}retired[^\n]*\n {2}UNREADABLE, still sealed under this retired key: [^\n]*PIN hashes 1`));
    });
  });
}
