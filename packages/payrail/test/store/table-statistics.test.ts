// Where PostgreSQL's autovacuum is off, the worker analyzes the tables that
// changed enough (store/table-statistics.ts); where it is on, and on SQLite,
// it leaves statistics alone. This machine's server decides which branch a
// run checks: both end in an assertion about what the store now holds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.ts';
import { refreshTableStatistics } from '../../src/flows/operations/table-statistics.ts';
import type { Service } from '../../src/service.ts';
import type { Db } from '../../src/store/db.ts';
import { STATISTICS_INTERVAL_MS, tableStatisticsJob } from '../../src/worker/maintenance-jobs.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`table statistics (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(async () => {
      await store.dispose();
    });

    it('are refreshed for a table that grew, only where autovacuum would not', async () => {
      await store.db.write(async (tx) => {
        for (let n = 0; n < 200; n++) {
          await tx.run('INSERT INTO settings (key, value) VALUES (?, ?)', [`statistics-test-${n}`, 'x']);
        }
      });
      const round = await refreshTableStatistics(store);
      if (kind === 'sqlite') {
        assert.deepEqual(round, { autovacuum: true, analyzed: [] });
        return;
      }
      const server = await store.db.read((tx) => tx.get<{ autovacuum: string }>("SELECT current_setting('autovacuum') AS autovacuum"));
      // The statistics collector reports a transaction's changes a moment after its commit.
      const analyzedAt = () =>
        store.db.read((tx) =>
          tx.get<{ at: string | null }>("SELECT last_analyze AS at FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'settings'"),
        );
      if (server?.autovacuum === 'on') {
        assert.deepEqual(round, { autovacuum: true, analyzed: [] });
        assert.equal((await analyzedAt())?.at, null, 'not analyzed by Payrail');
        return;
      }
      let analyzed = round.analyzed;
      for (let tries = 0; !analyzed.includes('settings') && tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        analyzed = (await refreshTableStatistics(store)).analyzed;
      }
      assert.ok(analyzed.includes('settings'), `settings analyzed: ${analyzed.join(', ')}`);
      assert.notEqual((await analyzedAt())?.at, null, 'last_analyze set');
      // Analyzed now, so not again until it changes enough again.
      assert.ok(!(await refreshTableStatistics(store)).analyzed.includes('settings'));
    });

    it('are looked at by the worker every few seconds, not once a minute', async () => {
      // A table that grows from empty is planned as if nearly empty until it is analyzed (src/worker/maintenance-jobs.ts).
      assert.ok(STATISTICS_INTERVAL_MS <= 10_000, `a growing table waits at most ${STATISTICS_INTERVAL_MS} ms for its statistics`);
      let looks = 0;
      const db: Db = Object.assign(Object.create(store.db) as Db, {
        read: <T>(work: Parameters<Db['read']>[0]) => {
          looks += 1;
          return store.db.read(work) as Promise<T>;
        },
      });
      const clock = new ManualClock(1_000_000);
      const log = { warn: () => undefined, debug: () => undefined };
      const job = tableStatisticsJob({ db, clock, log } as unknown as Service);
      assert.equal(await job.runOnce(), 0, 'never counts as work');
      assert.equal(looks, 1);
      clock.advance(STATISTICS_INTERVAL_MS - 1);
      await job.runOnce();
      assert.equal(looks, 1, 'not before the interval');
      clock.advance(1);
      await job.runOnce();
      assert.equal(looks, 2, 'again once it has passed');
    });
  });
}
