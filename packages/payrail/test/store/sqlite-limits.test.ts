// The embedded store writes bound LIMIT counts into the statement text
// (src/store/sqlite-limits.ts), so SQLite does not prepare such a statement
// again on every run: the rewrite of each statement shape we use, what stays
// bound, and the same rows through the store as with the count bound.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteDb } from '../../src/store/sqlite.ts';
import { writeLimits } from '../../src/store/sqlite-limits.ts';
import { tempDir } from '../helpers/stores.ts';

describe('LIMIT counts written into SQLite statements', () => {
  it('writes each LIMIT count in and keeps every other parameter bound, in order', () => {
    assert.deepEqual(writeLimits('SELECT id FROM t WHERE a < ? ORDER BY a LIMIT ?', [5, 20]), {
      sql: 'SELECT id FROM t WHERE a < ? ORDER BY a LIMIT 20',
      params: [5],
    });
    // OFFSET takes no part in planning: it stays bound.
    assert.deepEqual(writeLimits('SELECT id FROM t WHERE a = ? ORDER BY id LIMIT ? OFFSET ?', ['x', 50, 100]), {
      sql: 'SELECT id FROM t WHERE a = ? ORDER BY id LIMIT 50 OFFSET ?',
      params: ['x', 100],
    });
    // A claim: the count inside a subquery, parameters before and after it, any case and spacing.
    assert.deepEqual(
      writeLimits('UPDATE t SET n = ? WHERE s = ? AND pk IN (SELECT pk FROM t WHERE s = ? ORDER BY n limit\n   ?) RETURNING pk, ?', [1, 'a', 'a', 200, 'r']),
      { sql: 'UPDATE t SET n = ? WHERE s = ? AND pk IN (SELECT pk FROM t WHERE s = ? ORDER BY n limit\n   200) RETURNING pk, ?', params: [1, 'a', 'a', 'r'] },
    );
    // Two counts in one statement.
    assert.deepEqual(writeLimits('SELECT * FROM (SELECT id FROM a LIMIT ?) UNION ALL SELECT * FROM (SELECT id FROM b LIMIT ?)', [3, 4]), {
      sql: 'SELECT * FROM (SELECT id FROM a LIMIT 3) UNION ALL SELECT * FROM (SELECT id FROM b LIMIT 4)',
      params: [],
    });
  });

  it('leaves statements without a bound LIMIT, and counts that are not plain non-negative integers, as they are', () => {
    assert.equal(writeLimits('SELECT id FROM t WHERE a = ? LIMIT 1', [1]), null);
    assert.equal(writeLimits('SELECT id FROM t WHERE climit = ?', [1]), null);
    assert.equal(writeLimits('SELECT id FROM t', []), null);
    // Too few parameters: SQLite reports it, as it would have.
    assert.equal(writeLimits('SELECT id FROM t LIMIT ?', []), null);
    for (const count of [-1, 1.5, '10', 10n, null, Number.MAX_SAFE_INTEGER + 2]) {
      assert.deepEqual(writeLimits('SELECT id FROM t LIMIT ?', [count]), { sql: 'SELECT id FROM t LIMIT ?', params: [count] }, String(count));
    }
  });

  describe('through the store', () => {
    const dir = tempDir();
    let db: SqliteDb;
    before(async () => {
      db = new SqliteDb(path.join(dir, 'payrail.sqlite'));
      await db.migrate();
      await db.write(async (tx) => {
        await tx.run('CREATE TABLE probe_limits (pk INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
        for (let n = 1; n <= 10; n++) await tx.run('INSERT INTO probe_limits (n) VALUES (?)', [n]);
      });
    });
    after(() => db.close());

    it('answers the rows a bound count would have, for reads, writes and RETURNING', async () => {
      for (const count of [0, 1, 3, 10, 50]) {
        const rows = await db.read((tx) => tx.all<{ n: number }>('SELECT n FROM probe_limits WHERE n > ? ORDER BY n LIMIT ? OFFSET ?', [2, count, 1]));
        assert.deepEqual(
          rows.map((row) => row.n),
          [4, 5, 6, 7, 8, 9, 10].slice(0, count),
          `LIMIT ${count}`,
        );
      }
      const one = await db.read((tx) => tx.get<{ n: number }>('SELECT n FROM probe_limits ORDER BY n DESC LIMIT ?', [1]));
      assert.equal(one?.n, 10);
      const changed = await db.write((tx) => tx.run('UPDATE probe_limits SET n = n + 100 WHERE pk IN (SELECT pk FROM probe_limits ORDER BY pk LIMIT ?)', [2]));
      assert.equal(changed.changes, 2);
      const claimed = await db.write((tx) =>
        tx.all<{ pk: number }>(
          'UPDATE probe_limits SET n = n + 1000 WHERE pk IN (SELECT pk FROM probe_limits WHERE n < ? ORDER BY pk LIMIT ?) RETURNING pk',
          [100, 3],
        ),
      );
      assert.deepEqual(claimed.map((row) => row.pk).sort(), [3, 4, 5]);
    });

    it('still refuses a count SQLite refuses', async () => {
      await assert.rejects(
        db.read((tx) => tx.all('SELECT n FROM probe_limits LIMIT ?', ['ten'])),
        /datatype mismatch/,
      );
    });
  });
});
