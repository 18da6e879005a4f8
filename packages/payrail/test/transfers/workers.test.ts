// Two `payrail worker` processes on one PostgreSQL schema share a few
// thousand transfers: each step of each transfer is claimed by exactly one
// of them (SKIP LOCKED claims with a lease), no step is applied twice, each
// transfer ends with exactly one final posting, and the ledger verifies.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, fundMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Service } from '../../src/service.ts';
import { BIN } from '../helpers/cli.ts';
import { createStore, type TestStore, testConfigHome } from '../helpers/stores.ts';
import { assertLedgerOk, transferBody } from '../helpers/transfers.ts';

const TRANSFERS = 3000;
/** Every tenth receiver ends in 0004, so failures and refunds are shared out too. */
const FAILING_EVERY = 10;
const EXECUTE_CHUNK = 250;
const SETTLE_DEADLINE_MS = 120_000;

interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_CONFIG_HOME: testConfigHome(),
      LOG_LEVEL: 'debug',
      PAYRAIL_SANDBOX_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, output: () => out, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/** Log lines of one worker, parsed. */
function lines(worker: WorkerProcess): Array<{ msg?: string; level?: number; claimed?: number; stale?: number }> {
  return worker
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string });
}

describe('two worker processes on PostgreSQL', () => {
  let store: TestStore;
  let service: Service;
  before(async () => {
    store = await createStore('postgres');
    service = await createService(loadConfig({ ...store.env, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off' }), {
      db: store.db,
      log: createLogger('silent'),
    });
  });
  after(async () => {
    await store.dispose();
  });

  it(`process ${TRANSFERS} transfers with none processed twice`, async (context) => {
    const deps = issuingDeps(service);
    const merchant = await createMerchant(deps, { name: 'Busy merchant' });
    await fundMerchant(deps, { merchantId: merchant.merchant_id, amountCents: TRANSFERS * 100 });
    for (let start = 0; start < TRANSFERS; start += EXECUTE_CHUNK) {
      await Promise.all(
        Array.from({ length: EXECUTE_CHUNK }, (_, i) =>
          executeTransfer(service, merchant.merchant_id, transferBody({ amount: '1.00', lastFour: (start + i) % FAILING_EVERY === 0 ? '0004' : '5678' })),
        ),
      );
    }

    const workers = [startWorker(store.env), startWorker(store.env)];
    try {
      const deadline = Date.now() + SETTLE_DEADLINE_MS;
      for (;;) {
        const open = await service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM transfers WHERE final = 0'));
        if (Number(open!.n) === 0) break;
        for (const worker of workers) assert.equal(worker.child.exitCode, null, worker.output().slice(-2000));
        assert.ok(Date.now() < deadline, `${open!.n} transfers still open`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      for (const worker of workers) assert.equal(await worker.exited, 0, worker.output().slice(-2000));
    }

    // With a sandbox step of 0 the first poll is due at once, so the worker polls in the step that
    // submits: every transfer takes exactly one step, the workers together claimed exactly one row
    // per transfer, and each did some.
    const claimedBy = workers.map((worker) =>
      lines(worker)
        .filter((l) => l.msg === 'transfers advanced')
        .reduce((sum, l) => sum + (l.claimed ?? 0), 0),
    );
    const stale = workers.flatMap((worker) => lines(worker).filter((l) => l.msg === 'transfer changed meanwhile; its step was dropped'));
    context.diagnostic(`rows claimed per worker: ${claimedBy.join(' and ')}`);
    assert.equal(claimedBy[0]! + claimedBy[1]!, TRANSFERS);
    assert.ok(claimedBy[0]! > 0 && claimedBy[1]! > 0, 'both workers took part');
    assert.deepEqual(stale, []);

    const histories = await service.db.read((tx) =>
      tx.all<{ history: string; n: number }>(
        `SELECT history, COUNT(*) AS n FROM (
           SELECT t.pk, string_agg(e.state || '/' || e.substate, ' ' ORDER BY e.id) AS history
           FROM transfers t JOIN transfer_events e ON e.transfer_pk = t.pk GROUP BY t.pk) h
         GROUP BY history ORDER BY history`,
      ),
    );
    assert.deepEqual(
      histories.map((h) => [h.history, Number(h.n)]),
      [
        ['0/0 40/1 60/0', TRANSFERS - TRANSFERS / FAILING_EVERY],
        ['0/0 40/1 80/5', TRANSFERS / FAILING_EVERY],
      ],
    );
    const postings = await service.db.read((tx) =>
      tx.all<{ kinds: string; n: number }>(
        `SELECT kinds, COUNT(*) AS n FROM (
           SELECT ref_id, string_agg(kind, ' ' ORDER BY id) AS kinds FROM postings WHERE ref_type = 'transfer' GROUP BY ref_id) p
         GROUP BY kinds ORDER BY kinds`,
      ),
    );
    assert.deepEqual(
      postings.map((p) => [p.kinds, Number(p.n)]),
      [
        ['transfer.execute transfer.fail', TRANSFERS / FAILING_EVERY],
        ['transfer.execute transfer.succeed', TRANSFERS - TRANSFERS / FAILING_EVERY],
      ],
    );
    await assertLedgerOk(service);
  });
});
