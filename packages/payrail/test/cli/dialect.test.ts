// The wire dialect of payin sources from the command line (behaviour.md
// section 16): `merchant create --dialect`, `source create --dialect`,
// `merchant onboard --dialect` and `source dialect --source ID --set`, with
// their --json answers naming the source's dialect, `merchant show` listing
// each source's, and clear refusals for an unknown dialect or source.
// Spawned as a real process against each store.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditEvents } from '../../src/flows/operations/audit.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

interface Created {
  merchant_id: string;
  transfer_api_key: string;
  source: { id: string; dialect: string; api_key: string; pin: string; tokenization_token: string };
}

for (const kind of STORE_KINDS) {
  describe(`payrail CLI: source wire dialect (${kind})`, () => {
    let store: TestStore;
    let env: Record<string, string>;
    before(async () => {
      store = await createStore(kind);
      env = store.env;
    });
    after(async () => {
      await store.dispose();
    });

    const storedDialect = async (sourceId: string) =>
      (await store.db.read((tx) => tx.get<{ dialect: string }>('SELECT dialect FROM sources WHERE id = ?', [sourceId])))?.dialect;

    it('merchant create makes its first source in spec by default, or in --dialect', async () => {
      const plain = await runCliJson<Created>(['merchant', 'create', '--name', 'Plain Ltd'], env);
      assert.deepEqual(Object.keys(plain.source).sort(), ['api_key', 'dialect', 'id', 'pin', 'tokenization_token']);
      assert.equal(plain.source.dialect, 'spec');
      const shop = await runCliJson<Created>(['merchant', 'create', '--name', 'Woo Ltd', '--dialect', 'acceptblue'], env);
      assert.equal(shop.source.dialect, 'acceptblue');
      assert.equal(await storedDialect(shop.source.id), 'acceptblue');
      const text = await runCli(['merchant', 'show', '--merchant', shop.merchant_id], env);
      assert.match(text.stdout, new RegExp(`source +${shop.source.id} Default source \\(dialect acceptblue\\)`));
      const shown = await runCliJson<{ sources: unknown[] }>(['merchant', 'show', '--merchant', shop.merchant_id], env);
      assert.deepEqual(shown.sources, [{ id: shop.source.id, name: 'Default source', dialect: 'acceptblue', revoked: false }]);
    });

    it('source create takes --dialect; source dialect changes it, says whether it changed, and is audited', async () => {
      const merchant = await runCliJson<Created>(['merchant', 'create', '--name', 'Two Ltd'], env);
      const source = await runCliJson<Created['source']>(['source', 'create', '--merchant', merchant.merchant_id, '--dialect', 'acceptblue'], env);
      assert.equal(source.dialect, 'acceptblue');
      assert.equal(await storedDialect(source.id), 'acceptblue');
      const set = await runCliJson(['source', 'dialect', '--source', merchant.source.id, '--set', 'acceptblue'], env);
      assert.deepEqual(set, { id: merchant.source.id, merchant_id: merchant.merchant_id, dialect: 'acceptblue', changed: true });
      assert.equal(await storedDialect(merchant.source.id), 'acceptblue');
      const again = await runCli(['source', 'dialect', '--source', merchant.source.id, '--set', 'acceptblue'], env);
      assert.equal(again.code, 0);
      assert.equal(again.stdout, `source ${merchant.source.id} of ${merchant.merchant_id}: dialect acceptblue (unchanged)\n`);
      const events = (await auditEvents({ db: store.db }, { action: 'source.dialect', fromMs: null, toMs: null, beforeId: null })).rows;
      assert.deepEqual(
        events.map((e) => [e.actor_kind, e.target, e.merchant_id, e.detail]),
        [
          ['cli', merchant.source.id, merchant.merchant_id, 'dialect acceptblue (unchanged)'],
          ['cli', merchant.source.id, merchant.merchant_id, 'dialect spec -> acceptblue'],
        ],
      );
    });

    it('refuses an unknown dialect (exit 2, nothing made) and an unknown source (exit 1, named)', async () => {
      const before = Number((await store.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM merchants')))!.n);
      const bad = await runCli(['merchant', 'create', '--name', 'Bad Ltd', '--dialect', 'stripe'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /option '--dialect <dialect>' argument 'stripe' is invalid\. must be spec or acceptblue/);
      assert.equal(Number((await store.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM merchants')))!.n), before);
      const badSet = await runCli(['source', 'dialect', '--source', 'src_x', '--set', 'v1'], env);
      assert.equal(badSet.code, 2);
      const unknown = await runCli(['--json', 'source', 'dialect', '--source', 'src_nosuchsource', '--set', 'spec'], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /source src_nosuchsource not found/);
    });

    it('merchant onboard takes --dialect for the first source', async () => {
      const done = await runCliJson<{ merchant_id: string; dialect: string }>(
        ['merchant', 'onboard', '--name', 'Mailed Ltd', '--email', 'dev@mailed.example', '--dialect', 'acceptblue'],
        env,
      );
      assert.equal(done.dialect, 'acceptblue');
      const rows = await store.db.read((tx) => tx.all<{ dialect: string }>('SELECT dialect FROM sources WHERE merchant_id = ?', [done.merchant_id]));
      assert.deepEqual(
        rows.map((r) => r.dialect),
        ['acceptblue'],
      );
      const bad = await runCli(['merchant', 'onboard', '--name', 'X', '--email', 'x@mailed.example', '--dialect', 'soap'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--dialect must be spec or acceptblue/);
    });
  });
}
