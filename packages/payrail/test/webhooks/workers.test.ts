// Two `payrail worker` processes on one PostgreSQL schema deliver webhooks
// together (docs/api-decisions.md section 11): fan-out and delivery claims
// skip rows the other process holds, so under normal operation (no crash,
// every answer 200) each event reaches the receiver exactly once.
import { SYSTEM_ACTOR } from '../../src/domain/audit.ts';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, fundMerchant, issuingDeps } from '../../src/flows/merchants/merchants.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { createEndpoint } from '../../src/flows/webhooks/endpoints.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import type { Service } from '../../src/service.ts';
import { BIN } from '../helpers/cli.ts';
import { createStore, type TestStore, testConfigHome } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';
import { signaturesValid, startReceiver } from '../helpers/webhook-receiver.ts';

const TRANSFERS = 300;
const SETTLE_DEADLINE_MS = 120_000;

function startWorker(env: Record<string, string>): { child: ChildProcess; output(): string; exited: Promise<number | null> } {
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

describe('two worker processes delivering webhooks on PostgreSQL', () => {
  let store: TestStore;
  let service: Service;
  before(async () => {
    store = await createStore('postgres');
    service = await createService(loadConfig({ ...store.env, PAYRAIL_SANDBOX_DELAY_MS: '0', PAYRAIL_WORKER: 'off' }), {
      db: store.db,
      log: createLogger('silent'),
    });
  });
  after(() => store.dispose());

  it('delivers each event exactly once', async (context) => {
    const receiver = await startReceiver();
    const workers: Array<ReturnType<typeof startWorker>> = [];
    try {
      const deps = issuingDeps(service);
      const merchant = await createMerchant(deps, { name: 'Hooked merchant' });
      await fundMerchant(deps, { merchantId: merchant.merchant_id, amountCents: TRANSFERS * 100 });
      const endpoint = await createEndpoint(service, merchant.merchant_id, { url: receiver.url }, SYSTEM_ACTOR);
      workers.push(startWorker(store.env), startWorker(store.env));
      await Promise.all(
        Array.from({ length: TRANSFERS }, (_, i) =>
          executeTransfer(service, merchant.merchant_id, transferBody({ amount: '1.00', lastFour: i % 10 === 0 ? '0004' : '5678' })),
        ),
      );

      // created, processing, then succeeded or failed: three events per transfer.
      const expected = TRANSFERS * 3;
      const deadline = Date.now() + SETTLE_DEADLINE_MS;
      while (receiver.received.length < expected) {
        for (const worker of workers) assert.equal(worker.child.exitCode, null, worker.output().slice(-2000));
        assert.ok(Date.now() < deadline, `${receiver.received.length} of ${expected} deliveries received`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Let any duplicate that would come arrive before counting.
      const pending = async () =>
        Number((await service.db.read((tx) => tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'")))!.n);
      while ((await pending()) > 0) {
        assert.ok(Date.now() < deadline, 'deliveries still pending');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const stored = Number((await service.db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM events')))!.n);
      assert.equal(stored, expected);
      const ids = receiver.received.map((r) => r.headers['payrail-event-id']);
      assert.equal(ids.length, expected, 'no event was delivered twice');
      assert.equal(new Set(ids).size, expected);
      for (const r of receiver.received) assert.ok(signaturesValid(r, endpoint.signature));
      const attemptsByWorker = await service.db.read((tx) => tx.all<{ attempts: number }>('SELECT attempts FROM webhook_deliveries'));
      assert.ok(
        attemptsByWorker.every((row) => Number(row.attempts) === 1),
        'every delivery was sent in one attempt',
      );
      const failedBy = workers.map((w) => (w.output().match(/webhook delivery attempt failed/g) ?? []).length);
      assert.deepEqual(failedBy, [0, 0]);
      const deliveredBy = workers.map((w) => (w.output().match(/"msg":"webhook delivered"/g) ?? []).length);
      assert.equal(deliveredBy[0]! + deliveredBy[1]!, expected);
      assert.ok(deliveredBy[0]! > 0 && deliveredBy[1]! > 0, 'both workers delivered');
      context.diagnostic(`${expected} events delivered once each: ${deliveredBy.join(' and ')} by the two workers`);
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      for (const worker of workers) assert.equal(await worker.exited, 0, worker.output().slice(-2000));
      await receiver.close();
    }
  });
});
