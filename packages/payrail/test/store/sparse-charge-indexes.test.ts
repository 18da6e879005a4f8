// Migration 012: charges_parent and charges_batch index only the rows they
// are for (a refund's parent, a batch member), on both stores, and the
// lookups by value still use them: a value named in the query implies IS NOT
// NULL to both planners.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { indexesOf } from '../helpers/plans.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const LOOKUPS = [
  ['charges_parent', 'SELECT pk FROM charges WHERE parent_pk = 100000001'],
  ['charges_batch', 'SELECT c.pk FROM batches b JOIN charges c ON c.batch_id = b.id WHERE b.id = 1'],
] as const;

for (const kind of STORE_KINDS) {
  describe(`sparse charge indexes (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(() => store.dispose());

    it('are partial: only rows with a parent, or a batch, have an entry', async () => {
      const definitions = await store.db.read((tx) =>
        kind === 'sqlite'
          ? tx.all<{ name: string; definition: string }>(
              "SELECT name, sql AS definition FROM sqlite_master WHERE type = 'index' AND name IN ('charges_parent', 'charges_batch') ORDER BY name",
            )
          : tx.all<{ name: string; definition: string }>(
              "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN ('charges_parent', 'charges_batch') ORDER BY indexname",
            ),
      );
      assert.deepEqual(
        definitions.map((d) => d.name),
        ['charges_batch', 'charges_parent'],
      );
      assert.match(definitions[0]!.definition, /WHERE \(?batch_id IS NOT NULL\)?$/);
      assert.match(definitions[1]!.definition, /WHERE \(?parent_pk IS NOT NULL\)?$/);
    });

    it('serve the lookups by value', async () => {
      for (const [index, query] of LOOKUPS) {
        if (kind === 'sqlite') {
          const plan = await store.db.read((tx) => tx.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`));
          assert.ok(
            plan.some((step) => step.detail.includes(index)),
            `${query}: ${plan.map((step) => step.detail).join('; ')}`,
          );
        } else {
          // Without statistics the planner may prefer a scan of an empty table; with scans off, the index must be usable at all.
          const plan = await store.db.write(async (tx) => {
            await tx.run('SET LOCAL enable_seqscan = off');
            return tx.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${query}`);
          });
          assert.ok(indexesOf(plan[0]!['QUERY PLAN']).includes(index), `${query}: ${JSON.stringify(plan)}`);
        }
      }
    });
  });
}
