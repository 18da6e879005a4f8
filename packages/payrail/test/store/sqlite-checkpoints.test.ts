// The embedded store's checkpoints off the main thread and its writer that
// never sleeps on a lock (src/store/sqlite.ts, sqlite-checkpointer.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteDb } from '../../src/store/sqlite.ts';
import { tempDir } from '../helpers/stores.ts';

const ROW_BYTES = 4096;
const ROWS_PER_WRITE = 4;
const WRITES = 200;

async function openScratch(dir: string): Promise<SqliteDb> {
  const db = new SqliteDb(path.join(dir, 'payrail.sqlite'), { checkpointThreadStartBytes: 1024 * 1024, checkpointIntervalMs: 10, checkpointRestartFrames: 64 });
  await db.migrate();
  await db.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS scratch (k INTEGER PRIMARY KEY, v BLOB NOT NULL)'));
  return db;
}

/** Writes WRITES concurrent operations of ROWS_PER_WRITE rows each, keys from `firstKey`. */
async function fill(db: SqliteDb, firstKey: number): Promise<void> {
  await Promise.all(
    Array.from({ length: WRITES }, (_, i) =>
      db.write(async (tx) => {
        for (let r = 0; r < ROWS_PER_WRITE; r++) {
          await tx.run('INSERT INTO scratch (k, v) VALUES (?, ?)', [firstKey + i * ROWS_PER_WRITE + r, Buffer.alloc(ROW_BYTES, (i + r) % 251)]);
        }
      }),
    ),
  );
}

async function count(db: SqliteDb): Promise<number> {
  return Number((await db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM scratch')))!.n);
}

describe('SQLite checkpoints off the main thread', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('start once the log grows, keep every write, and the scrub empties the log through the thread while writes go on', async () => {
    const db = await openScratch(dir);
    try {
      assert.equal(db.checkpointsOffThread, false, 'a small store checkpoints the usual way');
      await fill(db, 0);
      assert.equal(db.checkpointsOffThread, true, 'past the threshold the thread takes over');
      // The scrub asks the thread for a TRUNCATE checkpoint; writes submitted meanwhile wait their turn without failing.
      const [scrubbed] = await Promise.all([db.scrub(), fill(db, WRITES * ROWS_PER_WRITE)]);
      assert.equal(typeof scrubbed, 'boolean');
      // Once writes stop, a scrub finishes: the log is empty and every row is in the database file.
      let done = false;
      for (let attempt = 0; attempt < 50 && !done; attempt++) done = await db.scrub();
      assert.equal(done, true);
      assert.equal(fs.statSync(path.join(dir, 'payrail.sqlite-wal')).size, 0);
      assert.equal(await count(db), 2 * WRITES * ROWS_PER_WRITE);
    } finally {
      await db.close();
    }
    // Closed cleanly (the thread's connection too): another open sees everything.
    const reopened = new Database(path.join(dir, 'payrail.sqlite'), { readonly: true });
    try {
      assert.equal((reopened.prepare('SELECT COUNT(*) AS n FROM scratch').get() as { n: number }).n, 2 * WRITES * ROWS_PER_WRITE);
    } finally {
      reopened.close();
    }
  });

  it('a write that finds the store locked by another connection waits with the event loop free, then commits', async () => {
    const db = await openScratch(dir);
    const other = new Database(path.join(dir, 'payrail.sqlite'));
    try {
      other.exec('BEGIN IMMEDIATE');
      let committed = false;
      const write = db
        .write((tx) => tx.run('INSERT INTO scratch (k, v) VALUES (?, ?)', [-1, Buffer.alloc(1)]))
        .then(() => {
          committed = true;
        });
      // Timers still fire while the write waits: the thread is not asleep in SQLite's busy handler.
      for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(committed, false, 'the write cannot commit while the other connection holds the lock');
      other.exec('COMMIT');
      await write;
      assert.equal(committed, true);
      assert.equal(Number((await db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM scratch WHERE k = -1')))!.n), 1);
    } finally {
      other.close();
      await db.close();
    }
  });

  it("keeps a group commit's savepoint journals in memory: no temporary file, so no page images left on disk", async () => {
    const db = await openScratch(dir);
    /** Files this process has open that SQLite made as temporary files (named etilqs_*, deleted at once). */
    const temporaryFiles = () =>
      fs
        .readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return fs.readlinkSync(path.join('/proc/self/fd', fd));
          } catch {
            return '';
          }
        })
        .filter((target) => target.includes('etilqs_'));
    try {
      // Index entries spread over pages that exist before the group commit (a savepoint journal copies only those).
      const key = (n: number) => ((n * 7919) % 100_003).toString(36).padStart(8, '0');
      await db.write(async (tx) => {
        await tx.run('CREATE TABLE journal_probe (k INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL)');
        await tx.run('CREATE INDEX journal_probe_a ON journal_probe (a)');
        await tx.run('CREATE INDEX journal_probe_b ON journal_probe (b)');
        for (let n = 0; n < 20_000; n++) await tx.run('INSERT INTO journal_probe (k, a, b) VALUES (?, ?, ?)', [n, key(n), key(n + 50_000)]);
      });
      const operations = 64;
      const rowsEach = 32;
      const seen: string[] = [];
      const runAgainBefore = db.batchesRunAgain;
      // One group commit, which the last operation (failing after it wrote) makes run again with each
      // operation under its savepoint: together far more than the 64 KiB a savepoint journal keeps in memory by default.
      const settled = await Promise.allSettled([
        ...Array.from({ length: operations }, (_, i) =>
          db.write(async (tx) => {
            for (let r = 0; r < rowsEach; r++) {
              const n = 20_000 + i * rowsEach + r;
              await tx.run('INSERT INTO journal_probe (k, a, b) VALUES (?, ?, ?)', [n, key(n * 13), key(n * 17)]);
            }
            seen.push(...temporaryFiles());
          }),
        ),
        db.write(async (tx) => {
          await tx.run('INSERT INTO journal_probe (k, a, b) VALUES (?, ?, ?)', [-1, 'x', 'y']);
          throw new Error('taken back');
        }),
      ]);
      assert.equal(settled.filter((r) => r.status === 'rejected').length, 1);
      assert.equal(db.batchesRunAgain, runAgainBefore + 1);
      assert.deepEqual([...new Set(seen)], []);
      const rows = await db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM journal_probe'));
      assert.equal(Number(rows!.n), 20_000 + operations * rowsEach);
    } finally {
      await db.close();
    }
  });
});
