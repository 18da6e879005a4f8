// The inline worker of `payrail serve` on a thread of its own
// (src/worker/inline-thread.ts): on both stores, with the server's own
// connection writing beside it, every transfer executed on the main thread
// is carried to its final state by the thread, the ledger verifies, and
// stop() ends the thread after its current batch; a thread that dies is
// logged and started again. And the SQLite commit
// signal the two threads share (src/store/commit-signal.ts): a writer that
// finds the file locked goes on once the holder's transaction ends.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, fundMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { createLogger } from '../../src/log.ts';
import { createService, newStoreThreadSignal } from '../../src/runtime.ts';
import type { Service } from '../../src/service.ts';
import { CommitSignal } from '../../src/store/commit-signal.ts';
import { SqliteDb } from '../../src/store/sqlite.ts';
import { startInlineWorkerThread } from '../../src/worker/inline-thread.ts';
import { createStore, STORE_KINDS, tempDir, type TestStore } from '../helpers/stores.ts';
import { assertLedgerOk, transferBody } from '../helpers/transfers.ts';

const TRANSFERS = 400;
/** Every tenth receiver ends in 0004: those transfers fail and their money goes back. */
const FAILING_EVERY = 10;
/** A bound on the wait for the thread, not a measure: the test fails if it is reached. */
const SETTLE_DEADLINE_MS = 60_000;

for (const kind of STORE_KINDS) {
  describe(`the inline worker thread (${kind})`, () => {
    let store: TestStore;
    let service: Service;
    let env: Record<string, string>;
    const signal = newStoreThreadSignal();
    before(async () => {
      store = await createStore(kind);
      // The service opens a connection of its own, with the signal, as `payrail serve` does.
      env = { ...store.env, PAYRAIL_SANDBOX_DELAY_MS: '0', LOG_LEVEL: 'silent' };
      service = await createService(loadConfig(env), { log: createLogger('silent'), storeThreadSignal: signal });
    });
    after(async () => {
      await service.db.close();
      await store.dispose();
    });

    it(`finishes ${TRANSFERS} transfers executed meanwhile on the main thread`, async () => {
      const thread = await startInlineWorkerThread(loadConfig(env), signal, createLogger('silent'));
      try {
        const deps = issuingDeps(service);
        const merchant = await createMerchant(deps, { name: 'Threaded merchant' });
        await fundMerchant(deps, { merchantId: merchant.merchant_id, amountCents: TRANSFERS * 100 });
        await Promise.all(
          Array.from({ length: TRANSFERS }, (_, i) =>
            executeTransfer(service, merchant.merchant_id, transferBody({ amount: '1.00', lastFour: i % FAILING_EVERY === 0 ? '0004' : '5678' })),
          ),
        );
        const deadline = Date.now() + SETTLE_DEADLINE_MS;
        for (;;) {
          const open = await service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM transfers WHERE final = 0'));
          if (Number(open!.n) === 0) break;
          assert.ok(Date.now() < deadline, `${open!.n} transfers still open`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const outcomes = await service.db.read((tx) =>
          tx.all<{ state: number; n: number }>('SELECT state, COUNT(*) AS n FROM transfers GROUP BY state ORDER BY state'),
        );
        assert.deepEqual(
          outcomes.map((o) => [Number(o.state), Number(o.n)]),
          [
            [60, TRANSFERS - TRANSFERS / FAILING_EVERY],
            [80, TRANSFERS / FAILING_EVERY],
          ],
        );
        await assertLedgerOk(service);
      } finally {
        await thread.stop();
      }
    });
  });
}

describe('the inline worker thread when it dies', () => {
  it('is logged and started again, until stopped', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => lines.push(line) });
    const starts = newStoreThreadSignal();
    const entry = new URL('../helpers/dying-worker-thread.ts', import.meta.url);
    const thread = await startInlineWorkerThread(loadConfig({ PAYRAIL_DATA_DIR: tempDir() }), starts, log, { entry, restartPauseMs: 1 });
    // A bound on the wait, not a measure: the test fails if it is reached.
    const deadline = Date.now() + SETTLE_DEADLINE_MS;
    while (Atomics.load(new Int32Array(starts), 0) < 3) {
      assert.ok(Date.now() < deadline, 'the thread was not started again');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await thread.stop();
    const died = lines
      .map((line) => JSON.parse(line) as { msg: string; exit_code?: number })
      .filter((l) => l.msg === 'the worker thread ended unexpectedly; starting it again');
    assert.ok(died.length >= 2, `${died.length} deaths logged`);
    assert.equal(died[0]!.exit_code, 3);
  });
});

describe('the SQLite commit signal', () => {
  it('wakes a wait when a transaction ends after the generation was read, and not before', async () => {
    const signal = new CommitSignal(newStoreThreadSignal());
    const seen = signal.generation();
    let woken = false;
    // A one-minute bound: if the signal did not wake it, the test would time out instead of passing.
    const waiting = signal.endedSince(seen, 60_000).then(() => {
      woken = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(woken, false, 'nothing ended yet');
    signal.ended();
    await waiting;
    assert.equal(signal.generation(), seen + 1);
    // A generation already past returns at once.
    await signal.endedSince(seen, 60_000);
  });

  it('keeps a process with nothing else to do alive while it waits', async () => {
    // A pending Atomics.waitAsync alone does not: the process would end mid-wait with exit code 13.
    const module = new URL('../../src/store/commit-signal.ts', import.meta.url).href;
    const code = `
      const { CommitSignal, newCommitSignalBuffer } = await import(${JSON.stringify(module)});
      const signal = new CommitSignal(newCommitSignalBuffer());
      await signal.endedSince(signal.generation(), 20);
      process.stdout.write('waited');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, 'waited');
  });

  it('lets a store that found the file locked write once the holder commits and signals', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'payrail.sqlite');
    const buffer = newStoreThreadSignal();
    const db = new SqliteDb(file, { commitSignal: buffer });
    try {
      await db.migrate();
      await db.write((tx) => tx.run('CREATE TABLE scratch (k INTEGER PRIMARY KEY)'));
      const holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
      holder.prepare('INSERT INTO scratch (k) VALUES (1)').run();
      let written = false;
      const write = db
        .write((tx) => tx.run('INSERT INTO scratch (k) VALUES (2)'))
        .then(() => {
          written = true;
        });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(written, false, 'the store waits while the file is locked');
      holder.exec('COMMIT');
      new CommitSignal(buffer).ended();
      await write;
      holder.close();
      const keys = await db.read((tx) => tx.all<{ k: number }>('SELECT k FROM scratch ORDER BY k'));
      assert.deepEqual(
        keys.map((r) => r.k),
        [1, 2],
      );
    } finally {
      await db.close();
    }
  });
});
