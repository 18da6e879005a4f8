// The embedded store's plain reads share one read transaction per turn of the
// event loop (src/store/sqlite.ts ReadTx), and never miss a commit that
// anyone in the process could have heard of first: one of the same store,
// one of another store of this thread, one of another thread (commit signal).
// Each case opens the read transaction where it would last longest: in a
// setImmediate callback, so that it would otherwise stay open until the
// next turn's end, across the wait for the other write.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { newCommitSignalBuffer } from '../../src/store/commit-signal.ts';
import { SqliteDb } from '../../src/store/sqlite.ts';
import { tempDir } from '../helpers/stores.ts';

const readValue = async (db: SqliteDb): Promise<string | undefined> =>
  (await db.read((tx) => tx.get<{ value: string }>("SELECT value FROM settings WHERE key = 'probe'")))?.value;

/** Runs a read from a setImmediate callback: its read transaction begins in the loop's check phase. */
const readFromCheckPhase = (db: SqliteDb): Promise<string | undefined> =>
  new Promise((resolve, reject) => setImmediate(() => readValue(db).then(resolve, reject)));

describe('SQLite reads in one transaction per turn', () => {
  const dir = tempDir();
  const file = path.join(dir, 'payrail.sqlite');
  const signal = newCommitSignalBuffer();
  let db: SqliteDb;
  before(async () => {
    db = new SqliteDb(file, { commitSignal: signal });
    await db.migrate();
    await db.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('probe', '0')"));
  });
  after(async () => {
    await db.close();
  });

  it('sees a write of the same store as soon as the write resolves', async () => {
    assert.equal(await readFromCheckPhase(db), '0');
    await db.write((tx) => tx.run("UPDATE settings SET value = '1' WHERE key = 'probe'"));
    assert.equal(await readValue(db), '1');
  });

  it('sees a commit of another store of this thread from the moment it is made', async () => {
    const other = new SqliteDb(file);
    try {
      // In the check phase, in this order: a read begins its transaction, the other store commits, another read.
      const before = readFromCheckPhase(db);
      const written = other.write((tx) => tx.run("UPDATE settings SET value = '2' WHERE key = 'probe'"));
      const after = readFromCheckPhase(db);
      assert.equal(await before, '1');
      assert.equal(await after, '2', 'the commit ended the read transaction of the turn');
      await written;
      assert.equal(await readValue(db), '2');
    } finally {
      await other.close();
    }
  });

  it('sees a commit of another thread of the process as soon as that thread says so', async () => {
    // The other thread writes the file with a connection of its own and moves the commit signal, as a store there does;
    // it answers before it moves the signal, so the answer is waiting once the signal moved.
    const thread = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require('better-sqlite3');
       const db = new Database(workerData.file, { timeout: 10000 });
       const counter = new Int32Array(workerData.signal, 0, 1);
       parentPort.on('message', (value) => {
         db.prepare("UPDATE settings SET value = ? WHERE key = 'probe'").run(value);
         parentPort.postMessage('committed');
         Atomics.add(counter, 0, 1);
         Atomics.notify(counter, 0);
       });`,
      { eval: true, workerData: { file, signal } },
    );
    try {
      await new Promise((resolve) => thread.once('online', resolve));
      const counter = new Int32Array(signal, 0, 1);
      const committed = new Promise((resolve) => thread.once('message', resolve));
      assert.equal(await readFromCheckPhase(db), '2');
      // Still in the turn whose read transaction is open: the thread commits and answers meanwhile.
      const generation = Atomics.load(counter, 0);
      thread.postMessage('3');
      assert.equal(Atomics.wait(counter, 0, generation, 10_000), 'ok');
      await committed;
      assert.equal(await readValue(db), '3');
    } finally {
      await thread.terminate();
    }
  });

  it('a new security version (another process wrote) ends the read transaction, so what made it is read', async () => {
    const outside = new Database(file, { timeout: 10_000 });
    try {
      const before = db.securityVersion();
      // Later turns: the version is looked at again (once a turn).
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const seen = await readFromCheckPhase(db);
      outside.prepare("UPDATE settings SET value = 'revoked' WHERE key = 'probe'").run();
      assert.notEqual(db.securityVersion(), before, "the other process's commit is seen");
      assert.notEqual(seen, 'revoked');
      assert.equal(await readValue(db), 'revoked', 'and read under the new version');
    } finally {
      outside.close();
    }
  });

  it('shares one read transaction among the reads of a turn and ends it with the turn', async () => {
    // Another process, as far as this thread's stores know: a plain connection of its own.
    const outside = new Database(file, { timeout: 10_000 });
    try {
      const first = await readValue(db);
      outside.prepare("UPDATE settings SET value = '4' WHERE key = 'probe'").run();
      assert.equal(await readValue(db), first, 'the same turn: the same snapshot');
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(await readValue(db), '4', 'a later turn: a new snapshot');
    } finally {
      outside.close();
    }
  });
});
