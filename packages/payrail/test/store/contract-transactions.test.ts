// The store contract, run against SQLite and PostgreSQL alike: migrations,
// group commit with per-operation rollback, each operation's own value,
// inserts keyed on a unique column, exact 64-bit integers, snapshot reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tx } from '../../src/store/db.ts';
import type { SqliteDb } from '../../src/store/sqlite.ts';
import { createAccount, getAccount } from '../../src/store/ledger.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const NOW_MS = Date.UTC(2026, 0, 1);

for (const kind of STORE_KINDS) {
  describe(`store contract: transactions (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(async () => {
      await store.dispose();
    });

    it('applies migrations once', async () => {
      assert.equal(await store.db.migrate(), 0);
      const row = await store.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations'));
      assert.ok(Number(row?.n) >= 1);
    });

    it('commits concurrent operations and rolls back a failing one alone', async () => {
      await store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('seed', 'x')"));
      const results = await Promise.allSettled([
        store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('a', '1')")),
        store.db.write(async (tx) => {
          await tx.run("INSERT INTO settings (key, value) VALUES ('b', '2')");
          throw new Error('boom');
        }),
        store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('seed', 'dup')")),
        store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('c', '3')")),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /boom/);
      const keys = await store.db.read((tx) => tx.all<{ key: string; value: string }>('SELECT key, value FROM settings ORDER BY key'));
      assert.deepEqual(keys, [
        { key: 'a', value: '1' },
        { key: 'c', value: '3' },
        { key: 'seed', value: 'x' },
      ]);
    });

    it('runs the other operations of a batch once when one is refused before writing, and takes back one refused after writing', async () => {
      const runs = new Map<string, number>();
      const counted = (name: string, work: (tx: Tx) => Promise<unknown>) => (tx: Tx) => {
        runs.set(name, (runs.get(name) ?? 0) + 1);
        return work(tx);
      };
      const runAgainBefore = kind === 'sqlite' ? (store.db as SqliteDb).batchesRunAgain : 0;
      // Issued in one turn: one batch.
      const clean = await Promise.allSettled([
        store.db.write(counted('p1', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('p1', '1')"))),
        store.db.write(
          counted('refused', async (tx) => {
            await tx.get("SELECT value FROM settings WHERE key = 'p1'");
            await tx.run("UPDATE settings SET value = 'never' WHERE key = 'no such key'");
            throw new Error('refused before writing');
          }),
        ),
        store.db.write(counted('p2', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('p2', '2')"))),
      ]);
      assert.deepEqual(
        clean.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(Object.fromEntries(runs), { p1: 1, refused: 1, p2: 1 });
      if (kind === 'sqlite') assert.equal((store.db as SqliteDb).batchesRunAgain, runAgainBefore);

      runs.clear();
      const unclean = await Promise.allSettled([
        store.db.write(counted('q1', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('q1', '1')"))),
        store.db.write(
          counted('undone', async (tx) => {
            await tx.run("UPDATE settings SET value = 'changed' WHERE key = 'p1'");
            await tx.run("INSERT INTO settings (key, value) VALUES ('undone', 'x')");
            throw new Error('refused after writing');
          }),
        ),
        store.db.write(counted('q2', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('q2', '2')"))),
      ]);
      assert.deepEqual(
        unclean.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((unclean[1] as PromiseRejectedResult).reason), /refused after writing/);
      const rows = await store.db.read((tx) =>
        tx.all<{ key: string; value: string }>("SELECT key, value FROM settings WHERE key IN ('p1', 'p2', 'q1', 'q2', 'undone') ORDER BY key"),
      );
      assert.deepEqual(rows, [
        { key: 'p1', value: '1' },
        { key: 'p2', value: '2' },
        { key: 'q1', value: '1' },
        { key: 'q2', value: '2' },
      ]);
      if (kind === 'sqlite') {
        // The batch was taken back whole at the failure and run again, each operation in a savepoint.
        assert.equal((store.db as SqliteDb).batchesRunAgain, runAgainBefore + 1);
        assert.deepEqual(Object.fromEntries(runs), { q1: 2, undone: 2, q2: 1 });
      }
    });

    it('returns each operation its own value in order', async () => {
      const values = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          store.db.write(async (tx) => {
            await tx.run('INSERT INTO settings (key, value) VALUES (?, ?)', [`k${i}`, String(i)]);
            return i;
          }),
        ),
      );
      assert.deepEqual(
        values,
        Array.from({ length: 300 }, (_, i) => i),
      );
      const count = await store.db.read((tx) => tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'k%'"));
      assert.equal(Number(count?.n), 300);
    });

    it('inserts a row and returns its pk; a duplicate of the named key gives null, the transaction goes on, any other refusal is an error', async () => {
      const key = kind === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY';
      await store.db.write((tx) => tx.run(`CREATE TABLE insert_probe (pk ${key}, a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL UNIQUE, UNIQUE (a, b))`));
      const sql = 'INSERT INTO insert_probe (a, b, c) VALUES (?, ?, ?)';
      const first = await store.db.write((tx) => tx.insert(sql, ['a1', 'b1', 'c1'], 'a, b'));
      const second = await store.db.write((tx) => tx.insert(sql, ['a1', 'b2', 'c2']));
      assert.equal(typeof first, 'number');
      assert.ok(second! > first!, `${second} follows ${first}`);
      // In one operation: the duplicate is refused quietly and the next insert still lands.
      const [duplicate, third] = await store.db.write(async (tx) => [
        await tx.insert(sql, ['a1', 'b1', 'c3'], 'a, b'),
        await tx.insert(sql, ['a3', 'b3', 'c3'], 'a,b'),
      ]);
      assert.equal(duplicate, null);
      assert.ok(third! > second!);
      await assert.rejects(
        store.db.write((tx) => tx.insert(sql, ['a4', 'b4', 'c1'], 'a, b')),
        /unique|duplicate/i,
        'another unique key refused: an error',
      );
      await assert.rejects(
        store.db.write((tx) => tx.insert(sql, ['a1', 'b1', 'c5'])),
        /unique|duplicate/i,
        'no key named: an error',
      );
      const rows = await store.db.read((tx) => tx.all<{ pk: number; a: string; c: string }>('SELECT pk, a, c FROM insert_probe ORDER BY pk'));
      assert.deepEqual(
        rows.map((r) => [Number(r.pk), r.a, r.c]),
        [
          [first, 'a1', 'c1'],
          [second, 'a1', 'c2'],
          [third, 'a3', 'c3'],
        ],
      );
      await store.db.write((tx) => tx.run('DROP TABLE insert_probe'));
    });

    it('keeps 64-bit integers exact within the safe range', async () => {
      const big = 2 ** 53 - 1;
      await store.db.write((tx) => createAccount(tx, { id: 'test:big', merchantId: null, kind: 'test', floorCents: -big, nowMs: NOW_MS }));
      const account = await store.db.read((tx) => getAccount(tx, 'test:big'));
      assert.equal(account?.floor_cents, -big);
    });

    it('reads one snapshot: a write committed during readSnapshot stays out of it, while plain reads see it', async () => {
      await store.db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('snapshot', 'before')"));
      const value = (tx: Tx) => tx.get<{ value: string }>("SELECT value FROM settings WHERE key = 'snapshot'").then((row) => row?.value);
      const seen = await store.db.readSnapshot(async (tx) => {
        const first = await value(tx);
        await store.db.write((w) => w.run("UPDATE settings SET value = 'after' WHERE key = 'snapshot'"));
        return { first, plain: await store.db.read(value), second: await value(tx) };
      });
      assert.deepEqual(seen, { first: 'before', plain: 'after', second: 'before' });
      assert.equal(await store.db.readSnapshot(value), 'after');
    });
  });
}
