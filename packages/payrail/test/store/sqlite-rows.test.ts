// The embedded store builds its row objects itself from raw rows
// (src/store/sqlite-rows.ts): every row must be what better-sqlite3 would
// have built (names, order, values of every type, duplicate names, RETURNING
// rows, a name an object literal cannot hold), through reads and writes.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteDb } from '../../src/store/sqlite.ts';
import { rowBuilder } from '../../src/store/sqlite-rows.ts';
import { tempDir } from '../helpers/stores.ts';

const TABLE = `CREATE TABLE probe_rows (
  pk INTEGER PRIMARY KEY, label TEXT, amount_cents INTEGER, rate REAL, body BLOB, note TEXT
)`;
const SELECTS = [
  'SELECT pk, label, amount_cents, rate, body, note FROM probe_rows ORDER BY pk',
  // Duplicate names: the last column's value, as better-sqlite3 keeps it.
  'SELECT pk, label AS v, amount_cents AS v FROM probe_rows ORDER BY pk',
  'SELECT pk, label AS "weird name ""quoted""", rate AS "1" FROM probe_rows ORDER BY pk',
  'SELECT COUNT(*) AS n, MAX(amount_cents) FROM probe_rows',
];

describe('SQLite row objects', () => {
  const dir = tempDir();
  const file = path.join(dir, 'payrail.sqlite');
  let db: SqliteDb;
  let plain: Database.Database;
  before(async () => {
    db = new SqliteDb(file);
    await db.migrate();
    await db.write(async (tx) => {
      await tx.run(TABLE);
      await tx.run('INSERT INTO probe_rows (label, amount_cents, rate, body, note) VALUES (?, ?, ?, ?, ?)', [
        'first',
        1250,
        129.25,
        Buffer.from([1, 2, 3]),
        null,
      ]);
      await tx.run('INSERT INTO probe_rows (label, amount_cents, rate, body, note) VALUES (?, ?, ?, ?, ?)', ['', -7, 0, null, 'n']);
    });
    plain = new Database(file, { readonly: true });
  });
  after(async () => {
    plain.close();
    await db.close();
  });

  for (const sql of SELECTS) {
    it(`reads what better-sqlite3 builds: ${sql.slice(0, 60)}`, async () => {
      const expected = plain.prepare(sql).all() as Array<Record<string, unknown>>;
      const rows = await db.read((tx) => tx.all<Record<string, unknown>>(sql));
      assert.deepEqual(rows, expected);
      for (const [i, row] of rows.entries()) assert.deepEqual(Object.keys(row), Object.keys(expected[i]!));
      assert.deepEqual(await db.read((tx) => tx.get<Record<string, unknown>>(sql)), expected[0]);
    });
  }

  it('answers undefined for no row and [] for no rows', async () => {
    const sql = 'SELECT pk FROM probe_rows WHERE pk = ?';
    assert.equal(await db.read((tx) => tx.get(sql, [999])), undefined);
    assert.deepEqual(await db.read((tx) => tx.all(sql, [999])), []);
  });

  it('builds the rows a write returns (RETURNING), inside the batch', async () => {
    const returned = await db.write((tx) =>
      tx.get<{ pk: number; label: string }>("INSERT INTO probe_rows (label, amount_cents) VALUES ('third', 3) RETURNING pk, label"),
    );
    assert.deepEqual(returned, { pk: 3, label: 'third' });
    const updated = await db.write((tx) => tx.all<{ pk: number }>('UPDATE probe_rows SET note = ? WHERE pk >= ? RETURNING pk', ['x', 2]));
    assert.deepEqual(updated.map((row) => row.pk).sort(), [2, 3]);
  });

  it('leaves to better-sqlite3 a statement with a column an object literal cannot hold', async () => {
    const sql = 'SELECT label AS "__proto__", pk FROM probe_rows ORDER BY pk';
    assert.equal(rowBuilder(['__proto__', 'pk']), null);
    const expected = plain.prepare(sql).all() as Array<Record<string, unknown>>;
    const rows = await db.read((tx) => tx.all<Record<string, unknown>>(sql));
    assert.deepEqual(rows, expected);
    assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
  });

  it('gives every row of a statement the same own properties in column order', () => {
    const build = rowBuilder(['b', 'a', 'b'])!;
    assert.deepEqual(Object.keys(build([1, 2, 3])), ['b', 'a']);
    assert.deepEqual(build([1, 2, 3]), { b: 3, a: 2 });
    // One builder per column list, whichever statement or connection asks.
    assert.equal(rowBuilder(['b', 'a', 'b']), build);
    assert.notEqual(rowBuilder(['b', 'a']), build);
  });
});
